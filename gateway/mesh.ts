// Builds the Mesh from .meshrc.yaml at start-up (no build step, so a new feed is configuration
// only) and derives the public schema variants the listeners serve.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { findAndParseConfig } from '@graphql-mesh/cli';
import { getMesh, type MeshInstance } from '@graphql-mesh/runtime';
import { filterSchema, pruneSchema } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import { bindingsFromConfig } from '../transforms/mapping/index.js';
import type { FeedBinding, FeedKind } from '../transforms/mapping/types.js';
import type { FeedRegistry } from '../resolvers/context.js';
import type { MeshFetch } from './upstream/fetch.js';

export type SchemaVariant = 'keyed' | 'playground';

export interface GatewayMesh {
  mesh: MeshInstance;
  schemas: Record<SchemaVariant, GraphQLSchema>;
  feeds: FeedRegistry & { all: FeedBinding[] };
  /** Context entries Mesh's sources need (in-context SDK, fetch, cache...), built once. */
  meshContext: Record<string | symbol, unknown>;
  close(): void;
}

/** Public root fields; everything else on Query is a raw source operation and stays hidden. */
const PUBLIC_FIELDS = new Set(['utilities', 'residentialPlans', 'businessPlans', 'nextStartDate', 'energyInfoByState', 'utilityAccounts']);
const KEYED_ONLY = new Set(['utilityAccounts']);

export class MeshStartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MeshStartupError';
  }
}

export async function loadGatewayMesh(opts: { dir: string; fetchFn: MeshFetch; logLevel?: string }): Promise<GatewayMesh> {
  const dir = path.resolve(opts.dir);
  // Mesh's default importer resolves relative module paths from its own folder; ours from the config's.
  const importFn = (id: string) =>
    import(id.startsWith('.') ? pathToFileURL(path.resolve(dir, id)).href : path.isAbsolute(id) ? pathToFileURL(id).href : id);
  const config = await findAndParseConfig({ dir, importFn, throwOnInvalidConfig: true }).catch((err: Error) => {
    throw new MeshStartupError(`invalid .meshrc.yaml in ${dir}: ${err.message}`);
  });
  const feeds = bindingsFromConfig(config.config as { sources?: unknown[] });
  const errors: string[] = [];
  const logger = quietLogger(errors, opts.logLevel);
  let mesh: MeshInstance;
  try {
    mesh = await getMesh({ ...config, logger, fetchFn: opts.fetchFn as never });
  } catch (err) {
    const detail = errors.length ? errors.join('; ') : (err as Error).message;
    throw new MeshStartupError(`could not build the schema from the feeds: ${detail}`);
  }
  const keyed = publicSchema(mesh.schema, (name) => PUBLIC_FIELDS.has(name));
  const playground = publicSchema(mesh.schema, (name) => PUBLIC_FIELDS.has(name) && !KEYED_ONLY.has(name));
  const enveloped = mesh.getEnveloped({});
  const meshContext = (await enveloped.contextFactory({})) as Record<string | symbol, unknown>;
  return {
    mesh,
    schemas: { keyed, playground },
    feeds: {
      all: feeds,
      byKind: <K extends FeedKind>(kind: K) => feeds.filter((f) => f.kind === kind) as unknown as FeedBinding<K>[],
    },
    meshContext,
    close: () => mesh.destroy(),
  };
}

function publicSchema(schema: GraphQLSchema, keep: (field: string) => boolean): GraphQLSchema {
  return pruneSchema(
    filterSchema({
      schema,
      rootFieldFilter: (operation, name) => operation === 'Query' && keep(name),
      directiveFilter: () => false,
    }),
  );
}

/** Mesh logs a lot at info level; we keep its errors for the start-up message and pass warnings on. */
function quietLogger(errors: string[], level = 'warn') {
  const noop = () => {};
  const logger = {
    name: 'mesh',
    log: noop,
    debug: noop,
    info: noop,
    warn: level === 'silent' ? noop : (...args: unknown[]) => console.warn('[mesh]', ...args.map(String)),
    error: (...args: unknown[]) => errors.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ').trim()),
    child: () => logger,
  };
  return logger as never;
}
