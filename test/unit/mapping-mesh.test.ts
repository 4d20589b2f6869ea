// The .meshrc.yaml mappings inside a real Mesh: the transform validates each mapping against the
// schema the handler generates from the feed's OpenAPI / JSON Schema, and each binding, called
// on its Mesh source like resolvers/feed-client.ts does, maps the reference upstream's
// answers with no rejection. Sources only: no public schema, resolvers or plugins.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { processConfig } from '@graphql-mesh/config';
import { getMesh, type MeshInstance } from '@graphql-mesh/runtime';
import { loadYaml } from '@graphql-mesh/utils';
import { tsImport } from 'tsx/esm/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceUpstream, type ReferenceUpstream } from '../../sources/reference-upstream/server.js';
import { bindingsFromConfig, FeedPayloadError, type CompiledFeedBinding, type FeedInput } from '../../transforms/mapping/index.js';
import { sourceCall } from '../../server/mesh.js';

const DIR = fileURLToPath(new URL('../..', import.meta.url));
const MESHRC = path.join(DIR, '.meshrc.yaml');
const QUIET_LOGGER = 'feed-mapping-test-quiet-logger';

function errorsLogger(errors: string[]) {
  const logger = {
    name: 'test',
    log() {},
    debug() {},
    info() {},
    warn() {},
    error: (...args: unknown[]) => errors.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ')),
    child: () => logger,
  };
  return logger as never;
}

function sourcesOnly(): { sources: any[] } {
  const raw = loadYaml(MESHRC, readFileSync(MESHRC, 'utf8'), errorsLogger([])) as { sources: any[] };
  return { sources: raw.sources };
}

async function buildMesh(config: { sources: any[] }, errors: string[]): Promise<MeshInstance> {
  // Our transform is loaded as in production (tsx on Node), so it shares Mesh's graphql module;
  // vitest's own loader would give it the ESM build of graphql next to Mesh's CJS one.
  const logger = errorsLogger(errors);
  const importFn = (id: string) =>
    id.includes(QUIET_LOGGER)
      ? Promise.resolve({ default: logger }) // the handlers' logger (Mesh resolves it by module name)
      : id.startsWith('.')
        ? tsImport(pathToFileURL(path.resolve(DIR, id)).href, import.meta.url)
        : import(id);
  const processed = await processConfig({ ...config, logger: QUIET_LOGGER } as never, { dir: DIR, importFn, throwOnInvalidConfig: true });
  return getMesh({ ...processed, logger });
}

const STATES = (
  'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA ' +
  'RI SC SD TN TX UT VT VA WA WV WI WY'
).split(' ');

describe('the feed mappings in a real Mesh', () => {
  let upstream: ReferenceUpstream;
  let mesh: MeshInstance;
  let ctx: Record<string, any>;
  const bindings = bindingsFromConfig(sourcesOnly());
  const feed = (source: string) => bindings.find((b) => b.source === source)!;
  const call = async (b: CompiledFeedBinding, input: FeedInput) => {
    const schema = mesh.rawSources.find((s) => s.name === b.source)!.schema;
    const payload = await sourceCall(schema, b)!(b.args(input), ctx);
    if (payload instanceof Error) throw payload;
    return payload;
  };

  beforeAll(async () => {
    upstream = await startReferenceUpstream({ port: 0 });
    const errors: string[] = [];
    mesh = await buildMesh(sourcesOnly(), errors).catch((e) => {
      throw new Error(`${(e as Error).message}: ${errors.join('; ')}`);
    });
    const u = upstream.url.replace(/\/+$/, '');
    const feedUrls = Object.fromEntries(bindings.map((b) => [b.source, u])); // as the gateway fills them from UPSTREAM_URL
    ctx = (await mesh.getEnveloped({}).contextFactory({ feedUrls })) as Record<string, any>;
  }, 60_000);

  afterAll(async () => {
    mesh?.destroy();
    await upstream?.close();
  });

  it('builds: every mapping validates against its generated schema', () => {
    for (const b of bindings) expect(mesh.schema.getQueryType()!.getFields()[b.operation], b.source).toBeDefined();
  });

  it.each(['RESIDENTIAL', 'COMMERCIAL'] as const)('maps every %s supplier offer with no rejection', async (customerClass) => {
    for (const source of ['Voltify', 'Brightgrid']) {
      const out = feed(source).map(await call(feed(source), { zipCode: '75001', customerClass }));
      expect(out.rejected, source).toEqual([]);
      expect(out.records.length, source).toBeGreaterThan(0);
      for (const r of out.records) {
        expect(r).toMatchObject({ feed: source, customerClass });
        expect(['FIXED', 'VARIABLE', 'INDEXED']).toContain((r as { rateType: string }).rateType);
      }
    }
  });

  it('maps territories, every state statistic and premises with no rejection', async () => {
    const t = feed('Territories').map(await call(feed('Territories'), { zipCode: '75001' }));
    expect(t.rejected).toEqual([]);
    expect(t.records.length).toBeGreaterThan(0);
    for (const state of STATES) {
      const s = feed('Eia').map(await call(feed('Eia'), { state }));
      expect(s.rejected, state).toEqual([]);
      expect(s.records, state).toHaveLength(1);
    }
    const p = feed('Premises').map(await call(feed('Premises'), { zipCode: '75201', address: '1500 MARILLA ST' }));
    expect(p.rejected).toEqual([]);
    expect(p.records.length).toBeGreaterThan(0);
  });

  it("turns Voltify's error member into a FeedPayloadError", async () => {
    const payload = await call(feed('Voltify'), { zipCode: 'abcde', customerClass: 'RESIDENTIAL' });
    expect(payload).toMatchObject({ __typename: 'VoltifyError' });
    expect(() => feed('Voltify').map(payload)).toThrow(FeedPayloadError);
    expect(() => feed('Voltify').map(payload)).toThrow(/answered VoltifyError, not VoltifyOffersResponse/);
  });

  it('a wrong mapping stops the start with the feed and key', async () => {
    const config = sourcesOnly();
    const bg = config.sources.find((s) => s.name === 'Brightgrid');
    const t = bg.transforms[0]['./transforms/feed-mapping.ts'];
    t.fields.rateType.map = { 'fixed-rate': 'FIXED', 'variable-rate': 'VARIABLE', indexed: 'INDEXED' }; // the JSON spelling
    const errors: string[] = [];
    await expect(buildMesh(config, errors)).rejects.toThrow();
    expect(errors.join('\n')).toContain(
      'feed Brightgrid: fields.rateType: map keys "fixed-rate", "variable-rate" are not values of data.plans.contract.type',
    );
  }, 60_000);
});
