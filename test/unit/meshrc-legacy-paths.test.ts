// A .meshrc.yaml written for the layout before the design card's folders names `./api/index.ts` and
// `./feeds/feed-mapping.ts`; it keeps starting the gateway (mesh/gateway-mesh.ts links both to today's modules).
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadGatewayMesh, type GatewayMesh } from '../../mesh/gateway-mesh.js';
import { ROOT, writeMeshDir } from '../support/mesh-dir.js';

const rename = (v: string) =>
  v
    .replace(path.join(ROOT, 'resolvers/index.ts'), path.join(ROOT, 'api/index.ts'))
    .replace(path.join(ROOT, 'transforms/feed-mapping.ts'), path.join(ROOT, 'feeds/feed-mapping.ts'));

describe('.meshrc.yaml paths of the earlier layout', () => {
  let mesh: GatewayMesh | undefined;
  afterAll(() => mesh?.close());

  it('api/index.ts and feeds/feed-mapping.ts still load the resolvers and the feed mapping', async () => {
    const dir = writeMeshDir((config) => {
      config.additionalResolvers = (config.additionalResolvers as string[]).map(rename);
      for (const source of config.sources)
        source.transforms = source.transforms?.map((t: Record<string, unknown>) =>
          Object.fromEntries(Object.entries(t).map(([k, v]) => [rename(k), v])),
        );
    });
    mesh = await loadGatewayMesh({ dir, fetchFn: fetch as never });
    expect(mesh.feeds.all.length).toBeGreaterThan(3);
    expect(mesh.schemas.keyed.getQueryType()?.getFields().residentialPlans).toBeDefined();
  });
});
