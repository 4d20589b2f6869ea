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
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { feedDocument, sourceCall } from '../../mesh/gateway-mesh.js';
import { feedFetch } from '../../mesh/feed-transport.js';
import { createUpstreamFetch } from '../../sources/upstream/fetch.js';
import { compliantOffers } from '../../resolvers/compliance.js';
import { businessPlan, offersFor, residentialPlan } from '../../resolvers/plans.js';
import type { CanonicalOffer, Territory } from '../../domain/canonical.js';

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

  describe("a payload completed in place maps as the source schema's completion of it", () => {
    // What the feed call did before payloads were completed in place: the whole selection through graphql-jit.
    const jitCall = async (b: CompiledFeedBinding, input: FeedInput, context: Record<string, any>) => {
      const schema = mesh.rawSources.find((s) => s.name === b.source)!.schema;
      const compiled = compileQuery(schema, feedDocument(schema.getQueryType()!.getFields()[b.operation]!, b));
      if (!isCompiledQuery(compiled)) throw new Error('not compiled');
      const result = await compiled.query(undefined, context, b.args(input));
      return (result.data as Record<string, unknown> | null)?.[b.operation] ?? null;
    };
    /**
     * The context with every feed answer edited by `edit` (its parsed JSON) before Mesh's transport
     * reads it, marked with a field no selection names (a copy by graphql-jit leaves it out), and
     * each request recorded.
     */
    const editing = (edit: (json: any) => void = () => {}) => {
      const requests: string[] = [];
      const context = {
        ...ctx,
        fetch: async (url: string, init: RequestInit, c: unknown, info: unknown) => {
          requests.push(`${init.method} ${url} ${JSON.stringify(init.headers)} ${init.body ?? ''}`);
          const res: Response = await ctx.fetch(url, init, c, info);
          const json = await res.json();
          edit(json);
          if (json && typeof json === 'object' && !Array.isArray(json)) json.unselectedMarker = true;
          return new Response(JSON.stringify(json), { status: res.status, headers: res.headers });
        },
      };
      return { context, requests };
    };
    const both = async (source: string, input: FeedInput, edit?: (json: any) => void) => {
      const b = feed(source);
      const schema = mesh.rawSources.find((s) => s.name === b.source)!.schema;
      const handler = sourcesOnly().sources.find((s) => s.name === source).handler;
      const first = editing(edit);
      const direct = await sourceCall(schema, b, handler)!(b.args(input), first.context);
      // Twice: the second call sends the request the first one took from Mesh's resolver.
      const again = editing(edit);
      await sourceCall(schema, b, handler)!(b.args(input), again.context);
      const old = editing(edit);
      const jit = await jitCall(b, input, old.context);
      expect(first.requests).toEqual(old.requests);
      expect(again.requests).toEqual(old.requests);
      const mapped = (p: unknown) => {
        try {
          return b.map(p, input);
        } catch (e) {
          return { thrown: (e as Error).message };
        }
      };
      return { direct, jit, mappedDirect: mapped(direct), mappedJit: mapped(jit) };
    };
    const inPlace = (payload: unknown) => (payload as { unselectedMarker?: boolean } | null)?.unselectedMarker === true;

    it.each([
      ['Voltify', { zipCode: '75001', customerClass: 'RESIDENTIAL' }],
      ['Voltify', { zipCode: '75001', customerClass: 'COMMERCIAL' }],
      ['Brightgrid', { zipCode: '75001', customerClass: 'RESIDENTIAL' }],
      ['Territories', { zipCode: '75001' }],
      ['Territories', { zipCode: '10001' }],
      ['Eia', { state: 'TX' }],
      ['Premises', { zipCode: '75201', address: '1500 MARILLA ST' }],
    ] as const)('%s %j: in place, the same records', async (source, input) => {
      const r = await both(source, input as FeedInput);
      expect(inPlace(r.direct), source).toBe(true);
      expect(r.mappedDirect).toEqual(r.mappedJit);
      expect((r.mappedDirect as { records: unknown[] }).records.length).toBeGreaterThan(0);
    });

    it("calls every operation without Mesh's transport on each request", () => {
      for (const b of bindings) {
        const schema = mesh.rawSources.find((s) => s.name === b.source)!.schema;
        const field = schema.getQueryType()!.getFields()[b.operation]!;
        const handler = sourcesOnly().sources.find((s) => s.name === b.source).handler;
        const direct = feedFetch(schema, field, field.resolve!, {} as never, handler);
        expect(direct, b.source).not.toBeNull();
      }
    });

    it("a 4xx answer: handed to Mesh's resolver, the same error", async () => {
      const b = feed('Brightgrid');
      const schema = mesh.rawSources.find((s) => s.name === b.source)!.schema;
      const handler = sourcesOnly().sources.find((s) => s.name === 'Brightgrid').handler;
      const input = { zipCode: 'abcde', customerClass: 'RESIDENTIAL' } as const;
      const direct = await sourceCall(schema, b, handler)!(b.args(input), ctx).catch((e: Error) => e);
      const old = await jitCall(b, input, ctx).catch((e: Error) => e);
      expect(direct).toBeInstanceOf(Error);
      expect(old).toBeNull(); // the compiled query answers null with the error beside it
      const result = await (async () => {
        const compiled = compileQuery(schema, feedDocument(schema.getQueryType()!.getFields()[b.operation]!, b));
        return isCompiledQuery(compiled) ? compiled.query(undefined, ctx, b.args(input)) : null;
      })();
      expect((direct as Error).message).toBe(result!.errors![0]!.message);
    });

    it("Voltify's error member: completed by graphql-jit, the same FeedPayloadError", async () => {
      const r = await both('Voltify', { zipCode: 'abcde', customerClass: 'RESIDENTIAL' });
      expect(inPlace(r.direct)).toBe(false);
      expect(r.mappedDirect).toEqual(r.mappedJit);
      expect(r.mappedDirect).toMatchObject({ thrown: expect.stringMatching(/answered VoltifyError/) });
    });

    it.each([
      [
        'absent optional fields (made null)',
        (u: any) => (delete u.choiceCapPercent, delete u.bundledRate, delete u.switching.meterReadDates),
      ],
      ['a number as text (coerced)', (u: any) => (u.choiceCapPercent = '15')],
      ['text as a number (coerced)', (u: any) => (u.name = 42)],
    ])('%s: completed in place, the same records', async (_what, edit) => {
      const r = await both('Territories', { zipCode: '75001' }, (json) => json.utilities.forEach(edit));
      expect(inPlace(r.direct)).toBe(true);
      expect(r.mappedDirect).toEqual(r.mappedJit);
    });

    it.each([
      ['an unknown enum value', (p: any) => (p.contract.type = 'tiered')],
      ['a negative where the contract says non-negative', (p: any) => (p.contract.lengthMonths = -12)],
      ['null in a non-null field', (p: any) => (p.id = null)],
      ['an object where a list is', (p: any) => (p.pricing.components = { kind: 'ENERGY' })],
      ['text that is no number where a number is', (p: any) => (p.contract.lengthMonths = 'twelve')],
    ])('%s: completed by graphql-jit as before, the same records and rejections', async (_what, edit) => {
      const r = await both('Brightgrid', { zipCode: '75001', customerClass: 'RESIDENTIAL' }, (json) => edit(json.data.plans[1]));
      expect(inPlace(r.direct)).toBe(false);
      expect(r.mappedDirect).toEqual(r.mappedJit);
      expect((r.mappedJit as { rejected: unknown[] }).rejected.length).toBeGreaterThan(0);
    });
  });

  describe('callers joining one exchange', () => {
    const handlerOf = (source: string) => sourcesOnly().sources.find((s) => s.name === source).handler;
    const frozenThrough = (value: unknown, where: string): void => {
      if (value === null || typeof value !== 'object') return;
      expect(Object.isFrozen(value), where).toBe(true);
      for (const [k, v] of Object.entries(value)) frozenThrough(v, `${where}.${k}`);
    };

    it('share one payload and one mapping, records frozen through', async () => {
      const upstreamFetch = createUpstreamFetch({ env: {} });
      try {
        const context = { ...ctx, fetch: upstreamFetch };
        const cases = [
          ['Voltify', { zipCode: '75001', customerClass: 'RESIDENTIAL' }],
          ['Brightgrid', { zipCode: '75001', customerClass: 'RESIDENTIAL' }],
          ['Territories', { zipCode: '75001' }],
        ] as const;
        for (const [source, input] of cases) {
          const b = feed(source);
          const schema = mesh.rawSources.find((s) => s.name === b.source)!.schema;
          const execute = sourceCall(schema, b, handlerOf(source))!;
          // The first call takes the request from Mesh's resolver; the three after it start together.
          const alone = await execute(b.args(input), context);
          const [p1, p2, p3] = await Promise.all([0, 1, 2].map(() => execute(b.args(input), context)));
          expect(p2, source).toBe(p1);
          expect(p3, source).toBe(p1);
          // Answered with the bytes of the call before: that call's payload, not one of its own.
          expect(p1, source).toBe(alone);
          const mapped = b.map(p1, input);
          expect(b.map(p2, input), source).toBe(mapped);
          // What a caller maps from an answer of its own, as every caller did before.
          const own = createUpstreamFetch({ env: {} });
          try {
            const apart = await execute(b.args(input), { ...ctx, fetch: own });
            expect(apart, source).not.toBe(p1);
            expect(mapped, source).toEqual(b.map(apart, input));
          } finally {
            await own.close();
          }
          expect(mapped.records.length, source).toBeGreaterThan(0);
          frozenThrough(mapped, source);
          expect(() => {
            (mapped.records[0] as { utilityId: string }).utilityId = 'CHANGED';
          }).toThrow(TypeError);
        }
      } finally {
        await upstreamFetch.close();
      }
    });

    it('every step after the mapping reads shared records without writing to them', async () => {
      const input = { zipCode: '75001', customerClass: 'RESIDENTIAL' } as const;
      const offers = [
        ...feed('Voltify').map(await call(feed('Voltify'), input)).records,
        ...feed('Brightgrid').map(await call(feed('Brightgrid'), input)).records,
      ] as CanonicalOffer[];
      const territories = feed('Territories').map(await call(feed('Territories'), { zipCode: '75001' })).records as Territory[];
      for (const r of [...offers, ...territories]) frozenThrough(r, 'record');
      // A write to a frozen record throws (modules are strict): each step below fails if it writes.
      const served = compliantOffers({ feeds: { byKind: () => [] } }, offers, territories);
      const settings = { enrollmentBaseUrl: 'https://enroll.example', utmSource: 'test', fillPartnerRef: true };
      const profile = [800, 800, 750, 800, 1100, 1600, 2000, 2100, 1700, 1100, 800, 800];
      const plans = offersFor(served, territories, 'RESIDENTIAL').map(({ offer, delivery }) => {
        const plan = residentialPlan(offer, delivery, '75001', 1200, settings, 'BENCH', null, profile);
        return [plan.rates(), plan.rateSpread(), plan.fees(), plan.headlessEnrollmentUrl(), businessPlan(offer, delivery, 30_000)];
      });
      expect(plans.length).toBeGreaterThan(0);
    });
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
