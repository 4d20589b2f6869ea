// What the Mesh adapter serves beside the feeds (mesh/gateway-mesh.ts: PublicApi): these resolvers,
// as .meshrc.yaml's `additionalResolvers` names them, and the root fields each schema variant keeps
// (schema/public.graphql's, read by schema-policy.ts).
import type { PublicApi } from '../mesh/gateway-mesh.js';
import * as resolversModule from './index.js';
import { schemaPolicy } from './schema-policy.js';

export const publicApi: PublicApi = {
  resolversPath: 'resolvers/index.ts',
  resolversModule,
  rootFields: { keyed: schemaPolicy.rootFields, playground: schemaPolicy.playgroundFields },
};
