// NODE_ENV=production must not change how the gateway builds its schema: Mesh's production default
// expects `mesh build` artifacts, which this gateway never needs.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadGatewayMesh } from '../../mesh/gateway-mesh.js';
import { publicApi } from '../../resolvers/public-api.js';
import { createUpstreamFetch } from '../../sources/upstream/fetch.js';

const saved = process.env.NODE_ENV;
afterAll(() => {
  process.env.NODE_ENV = saved;
});

describe('NODE_ENV=production', () => {
  it('builds the same public schema', async () => {
    process.env.NODE_ENV = 'production';
    const fetchFn = createUpstreamFetch();
    const mesh = await loadGatewayMesh({ dir: path.resolve(import.meta.dirname, '../..'), fetchFn, api: publicApi });
    try {
      expect(Object.keys(mesh.schemas.keyed.getQueryType()!.getFields()).sort()).toEqual([
        'businessPlans',
        'coverage',
        'energyInfoByState',
        'nextStartDate',
        'residentialPlans',
        'utilities',
        'utilityAccounts',
      ]);
      expect(mesh.feeds.byKind('offers').map((f) => f.source)).toEqual(['Voltify', 'Brightgrid']);
    } finally {
      mesh.close();
      await fetchFn.close();
    }
  });
});
