// A .meshrc.yaml written for an earlier layout names `./api/index.ts`, `./feeds/feed-mapping.ts` (before
// the design card's folders) or `./server/mesh-logger.ts` (before mesh/); it keeps starting the gateway
// (mesh/gateway-mesh.ts links each to today's module).
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadGatewayMesh, type GatewayMesh } from '../../mesh/gateway-mesh.js';
import { publicApi } from '../../resolvers/public-api.js';
import { ROOT, writeMeshDir } from '../support/mesh-dir.js';

const rename = (v: string) =>
  v
    .replace(path.join(ROOT, 'resolvers/index.ts'), path.join(ROOT, 'api/index.ts'))
    .replace(path.join(ROOT, 'transforms/feed-mapping.ts'), path.join(ROOT, 'feeds/feed-mapping.ts'))
    .replace(path.join(ROOT, 'mesh/mesh-logger.ts'), path.join(ROOT, 'server/mesh-logger.ts'));

describe('.meshrc.yaml paths of the earlier layout', () => {
  let mesh: GatewayMesh | undefined;
  afterAll(() => mesh?.close());

  it('api/index.ts, feeds/feed-mapping.ts and server/mesh-logger.ts still load the resolvers, the feed mapping and the logger', async () => {
    const dir = writeMeshDir((config) => {
      expect(config.logger).toBe(path.join(ROOT, 'mesh/mesh-logger.ts'));
      config.logger = rename(config.logger as string);
      config.additionalResolvers = (config.additionalResolvers as string[]).map(rename);
      for (const source of config.sources)
        source.transforms = source.transforms?.map((t: Record<string, unknown>) =>
          Object.fromEntries(Object.entries(t).map(([k, v]) => [rename(k), v])),
        );
    });
    mesh = await loadGatewayMesh({ dir, fetchFn: fetch as never, api: publicApi });
    expect(mesh.feeds.all.length).toBeGreaterThan(3);
    expect(mesh.schemas.keyed.getQueryType()?.getFields().residentialPlans).toBeDefined();
  });
});
