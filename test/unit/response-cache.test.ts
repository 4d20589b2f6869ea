import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { connectRedis, type RedisClient } from '../../cache/redis-connection.js';
import { InstanceBus } from '../../cache/instance-registry.js';
import { loadCacheSettings, type CacheSettings } from '../../cache/cache-config.js';
import { loadReplaySettings } from '../../stores/replay-settings.js';
import {
  ResponseCache,
  canonicalJson,
  cachePolicy,
  msUntilLocalTime,
  shortenByUpstream,
  type KeyInput,
} from '../../cache/response-cache.js';
import { responseCachePlugin } from '../../server/plugins/response-cache.js';
import type { PreparedOperation } from '../../server/graphql/prepare.js';
import type { EnvironmentName, ExecutedResult, RequestState } from '../../server/http/plugin.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';

const H = 3_600_000;

function settings(over: Partial<CacheSettings> = {}, env: NodeJS.ProcessEnv = {}): CacheSettings {
  const problems: string[] = [];
  // An empty working directory: no cache.config.yaml, so the built-in defaults apply.
  const s = loadCacheSettings(env, '/nonexistent-dir-for-tests', problems);
  expect(problems).toEqual([]);
  return { ...s, ...over };
}

const input = (over: Partial<KeyInput> = {}): KeyInput => ({
  environment: 'production',
  variant: 'keyed',
  normalized: '{\n  utilities(zipCode: $zip) {\n    id\n  }\n}',
  operationName: null,
  variables: { zip: '75001', usage: 1000 },
  ...over,
});

const op = (rootFields: string[], over: Partial<{ operationType: 'query' | 'mutation'; introspectionOnly: boolean }> = {}) => ({
  operationType: over.operationType ?? ('query' as const),
  rootFields,
  introspectionOnly: over.introspectionOnly ?? rootFields.every((f) => f.startsWith('__')),
});

describe('cache keys', () => {
  const cache = new ResponseCache({ settings: settings(), redis: null, schemaIds: { keyed: 'k1', playground: 'p1' } });
  const key = (over: Partial<KeyInput> = {}) => cache.keyFor(input(over), ['utilities']);

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"x":2,"y":1}]},"b":1}');
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('variables in another order give the same key; other values another key', () => {
    expect(key({ variables: { usage: 1000, zip: '75001' } })).toBe(key());
    expect(key({ variables: { zip: '75002', usage: 1000 } })).not.toBe(key());
    expect(key({ variables: { zip: '75001', usage: '1000' } })).not.toBe(key());
    expect(key({ variables: null })).toBe(key({ variables: {} }));
  });

  it('environment, schema variant, operation, operation name and partner keep entries apart', () => {
    const base = key();
    const others = [
      key({ environment: 'certification' }),
      key({ environment: 'playground', variant: 'playground' }),
      key({ variant: 'playground' }),
      key({ normalized: '{\n  utilities(zipCode: $zip) {\n    name\n  }\n}' }),
      key({ operationName: 'Utilities' }),
      key({ partnerCode: 'ACME' }),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
  });

  it('the config generation and the schema are part of the key', () => {
    const other = new ResponseCache({ settings: settings({ generation: '2' }), redis: null, schemaIds: { keyed: 'k1', playground: 'p1' } });
    expect(other.keyFor(input(), ['utilities'])).not.toBe(key());
    const otherSchema = new ResponseCache({ settings: settings(), redis: null, schemaIds: { keyed: 'k2', playground: 'p1' } });
    expect(otherSchema.keyFor(input(), ['utilities'])).not.toBe(key());
  });

  it('a purge of one of the fields changes the key', async () => {
    const before = cache.keyFor(input(), ['utilities', 'residentialPlans']);
    const unrelated = cache.keyFor(input(), ['energyInfoByState']);
    await cache.purge({ fields: ['residentialPlans'] });
    expect(cache.keyFor(input(), ['utilities', 'residentialPlans'])).not.toBe(before);
    expect(cache.keyFor(input(), ['energyInfoByState'])).toBe(unrelated);
    await cache.purge({ all: true });
    expect(cache.keyFor(input(), ['energyInfoByState'])).not.toBe(unrelated);
  });
});

describe('TTL rules', () => {
  const s = settings();
  const now = new Date('2026-01-15T12:00:00Z');

  it('defaults: state data 24 h, plans 15 min', () => {
    expect(cachePolicy(s, op(['utilities']), now)).toEqual({ cacheable: true, fields: ['utilities'], ttlMs: 24 * H });
    expect(cachePolicy(s, op(['energyInfoByState']), now)).toMatchObject({ ttlMs: 24 * H });
    expect(cachePolicy(s, op(['residentialPlans']), now)).toMatchObject({ ttlMs: 15 * 60_000 });
    expect(cachePolicy(s, op(['businessPlans']), now)).toMatchObject({ ttlMs: 15 * 60_000 });
  });

  it('several root fields: the minimum; __typename does not count', () => {
    expect(cachePolicy(s, op(['utilities', 'residentialPlans', '__typename']), now)).toEqual({
      cacheable: true,
      fields: ['residentialPlans', 'utilities'],
      ttlMs: 15 * 60_000,
    });
  });

  it('never: personal data (whatever the file says), introspection, mutations, unlisted fields', () => {
    const generous = settings({ ttl: { ...s.ttl, utilityAccounts: { kind: 'fixed', ms: H } } });
    expect(cachePolicy(generous, op(['utilityAccounts']), now)).toEqual({ cacheable: false, reason: 'personal data' });
    expect(cachePolicy(s, op(['utilities', 'utilityAccounts']), now)).toEqual({ cacheable: false, reason: 'personal data' });
    expect(cachePolicy(s, op(['__schema']), now)).toEqual({ cacheable: false, reason: 'introspection' });
    expect(cachePolicy(s, op(['utilities'], { operationType: 'mutation' }), now)).toEqual({ cacheable: false, reason: 'not a query' });
    expect(cachePolicy(s, op(['someNewField']), now)).toEqual({ cacheable: false, reason: 'ttl 0' });
    expect(cachePolicy(settings({ enabled: false }), op(['utilities']), now)).toEqual({ cacheable: false, reason: 'disabled' });
  });

  it('the config file cannot make utilityAccounts cacheable', () => {
    const problems: string[] = [];
    const parsed = { cache: loadCacheSettings({ CACHE_CONFIG: 'cache.config.yaml' }, process.cwd(), problems) };
    expect(problems).toEqual([]);
    expect(parsed.cache.ttl.utilityAccounts).toEqual({ kind: 'fixed', ms: 0 });
    expect(parsed.cache.ttl.residentialPlans).toEqual({ kind: 'fixed', ms: 15 * 60_000 });
  });

  it('nextStartDate: until the next local midnight or cut-off in any US zone, at most an hour', () => {
    // 23:59 in New York (EST): midnight there in 60 s.
    expect(cachePolicy(s, op(['nextStartDate']), new Date('2026-01-15T04:59:00Z'))).toMatchObject({ ttlMs: 60_000 });
    // 16:30 New York / 15:30 Chicago: the next cut-off (17:00 NY, 16:00 Chicago) in 30 min.
    expect(cachePolicy(s, op(['nextStartDate']), new Date('2026-01-15T21:30:00Z'))).toMatchObject({ ttlMs: 30 * 60_000 });
    // 07:00 New York: nothing within the hour; the cap applies.
    expect(cachePolicy(s, op(['nextStartDate']), now)).toMatchObject({ ttlMs: H });
    // With plans in the same operation the shorter wins.
    expect(cachePolicy(s, op(['nextStartDate', 'residentialPlans']), new Date('2026-01-15T04:59:00Z'))).toMatchObject({ ttlMs: 60_000 });
  });

  it('msUntilLocalTime handles zones and DST', () => {
    expect(msUntilLocalTime(new Date('2026-07-15T03:59:00Z'), 'America/New_York', '00:00')).toBe(60_000); // EDT 23:59
    expect(msUntilLocalTime(new Date('2026-07-15T09:59:30.500Z'), 'Pacific/Honolulu', '00:00')).toBe(29_500);
    expect(msUntilLocalTime(new Date('2026-01-15T05:00:00Z'), 'America/New_York', '00:00')).toBe(24 * H);
  });

  it('upstream max-age shortens, never lengthens', () => {
    expect(shortenByUpstream(15 * 60_000, 60)).toBe(60_000);
    expect(shortenByUpstream(60_000, 86_400)).toBe(60_000);
    expect(shortenByUpstream(60_000, null)).toBe(60_000);
    expect(shortenByUpstream(60_000, 0)).toBe(0);
    const cache = new ResponseCache({ settings: s, redis: null });
    expect(cache.storeTtl(['utilities'], 900)).toBe(900_000);
    expect(cache.storeTtl(['residentialPlans'], 86_400)).toBe(15 * 60_000);
    expect(cache.storeTtl(['utilityAccounts'], 86_400)).toBe(0);
  });

  it('reads durations and rules from a config file', async () => {
    const fs = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cache-config-'));
    await fs.writeFile(
      path.join(dir, 'c.json'),
      JSON.stringify({
        generation: 'deploy-7',
        ttl: {
          utilities: '2s',
          residentialPlans: 5,
          nextStartDate: { untilLocalTime: '00:00', timeZones: ['America/Chicago'], max: '10m' },
        },
        defaultTtl: '1m',
      }),
    );
    const problems: string[] = [];
    const parsed = { cache: loadCacheSettings({ CACHE_CONFIG: path.join(dir, 'c.json'), CACHE_LRU_BYTES: '1MiB' }, dir, problems) };
    expect(problems).toEqual([]);
    expect(parsed.cache.generation).toBe('deploy-7');
    expect(parsed.cache.ttl.utilities).toEqual({ kind: 'fixed', ms: 2000 });
    expect(parsed.cache.ttl.residentialPlans).toEqual({ kind: 'fixed', ms: 5000 });
    expect(parsed.cache.ttl.nextStartDate).toEqual({
      kind: 'untilLocalTime',
      times: ['00:00'],
      timeZones: ['America/Chicago'],
      maxMs: 600_000,
    });
    expect(parsed.cache.defaultTtl).toEqual({ kind: 'fixed', ms: 60_000 });
    expect(parsed.cache.lruBytes).toBe(1024 * 1024);

    await fs.writeFile(
      path.join(dir, 'bad.yaml'),
      'ttl:\n  utilities: soon\n  residentalPlans: 5m\n  businessPlans: 40000000\n  nextStartDate: { untilLocalTime: "00:00", max: 400d }\nttls: {}\n',
    );
    const bad: string[] = [];
    loadCacheSettings({ CACHE_CONFIG: path.join(dir, 'bad.yaml'), CACHE_LRU_BYTES: 'lots' }, dir, bad);
    expect(bad.join('\n')).toMatch(/ttl\.utilities must be a duration/);
    expect(bad.join('\n')).toMatch(/ttl\.residentalPlans: no such root field \(the schema's: utilities, coverage, residentialPlans,/);
    expect(bad.join('\n')).toMatch(/ttl\.businessPlans must be at most 365d, got 40000000 \(a bare number is seconds\)/);
    expect(bad.join('\n')).toMatch(/ttl\.nextStartDate\.max must be a duration like 1h, at most 365d/);
    expect(bad.join('\n')).toMatch(/unknown setting "ttls"/);
    expect(bad.join('\n')).toMatch(/CACHE_LRU_BYTES/);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('REPLAY_FLUSH_MS: 50 ms by default, 1 ms to 60 s, anything else named', () => {
    const read = (v?: string) => {
      const problems: string[] = [];
      const s = loadReplaySettings(v === undefined ? {} : { REPLAY_FLUSH_MS: v }, problems);
      return { flushMs: s.flushMs, problems };
    };
    expect(read()).toEqual({ flushMs: 50, problems: [] });
    expect(read('1')).toEqual({ flushMs: 1, problems: [] });
    expect(read('60000')).toEqual({ flushMs: 60_000, problems: [] });
    // Empty is unset, as for every setting.
    expect(read('  ')).toEqual({ flushMs: 50, problems: [] });
    for (const bad of ['0', '60001', '-5', '1.5', 'soon', '9'.repeat(400)])
      expect(read(bad).problems.join('\n'), bad).toMatch(/REPLAY_FLUSH_MS must be an integer from 1 to 60000/);
  });
});

describe('in-process LRU', () => {
  it('is bounded by bytes: old entries are evicted', async () => {
    const cache = new ResponseCache({ settings: settings({ lruBytes: 8 * 1024, maxEntryBytes: 8 * 1024 }), redis: null });
    const body = (i: number) => JSON.stringify({ data: { i, pad: 'x'.repeat(2000) } });
    const keys = Array.from({ length: 6 }, (_, i) => cache.keyFor(input({ variables: { zip: String(75000 + i) } }), ['utilities']));
    keys.forEach((k, i) => cache.set(k, body(i), 60_000, ['utilities']));
    expect(cache.lruBytes).toBeLessThanOrEqual(8 * 1024);
    expect(cache.stats.evictions).toBeGreaterThanOrEqual(2);
    expect(await cache.get(keys[0]!)).toBeNull();
    expect((await cache.get(keys[5]!))?.entry.body).toBe(body(5));
  });

  it('does not keep an answer larger than the entry bound', async () => {
    const cache = new ResponseCache({ settings: settings({ lruBytes: 64 * 1024, maxEntryBytes: 1024 }), redis: null });
    const k = cache.keyFor(input(), ['utilities']);
    expect(cache.set(k, 'y'.repeat(2000), 60_000, ['utilities'])).toBe(false);
    expect(await cache.get(k)).toBeNull();
  });

  it('entries expire at their TTL; age is reported', async () => {
    let t = 1_000_000;
    const cache = new ResponseCache({ settings: settings(), redis: null, now: () => t });
    const k = cache.keyFor(input(), ['utilities']);
    cache.set(k, '{"data":{}}', 5000, ['utilities']);
    t += 3200;
    expect(await cache.get(k)).toMatchObject({ level: 'lru', ageSeconds: 3 });
    t += 1800;
    expect(await cache.get(k)).toBeNull();
  });

  it('getLocal answers an in-process hit synchronously, counted as get counts it, and nothing else', () => {
    let t = 1_000_000;
    const cache = new ResponseCache({ settings: settings(), redis: null, now: () => t });
    const k = cache.keyFor(input(), ['utilities']);
    expect(cache.getLocal(k)).toBeNull();
    cache.set(k, '{"data":{}}', 5000, ['utilities']);
    const before = { ...cache.stats };
    expect(cache.getLocal(k)).toMatchObject({ level: 'lru', ageSeconds: 0, entry: { body: '{"data":{}}' } });
    expect(cache.stats).toMatchObject({ hits: before.hits + 1, lruHits: before.lruHits + 1, misses: before.misses });
    t += 5000;
    expect(cache.getLocal(k)).toBeNull();
    expect(cache.lruEntries).toBe(0);
  });

  it('purge by field drops only entries selecting that field', async () => {
    const cache = new ResponseCache({ settings: settings(), redis: null });
    cache.set(cache.keyFor(input(), ['residentialPlans']), 'plans', 60_000, ['residentialPlans']);
    cache.set(cache.keyFor(input(), ['utilities']), 'utilities', 60_000, ['utilities']);
    const result = await cache.purge({ fields: ['residentialPlans'] });
    expect(result.reach).toBe('this instance');
    expect(cache.lruEntries).toBe(1);
    expect(await cache.get(cache.keyFor(input(), ['residentialPlans']))).toBeNull();
    expect((await cache.get(cache.keyFor(input(), ['utilities'])))?.entry.body).toBe('utilities');
  });
});

// The plugin with a minimal request state, as the listener drives it.
function fakeState(environment: EnvironmentName, variables: Record<string, unknown> = { zip: '75001' }): RequestState {
  return {
    environment,
    requestId: 'req-00000001',
    clientIp: '127.0.0.1',
    receivedAt: Date.now(),
    req: {} as IncomingMessage,
    partnerCode: environment === 'playground' ? null : 'ACME',
    variables,
    cache: 'BYPASS',
    upstreamCalls: [],
    headers: {},
    notes: {},
  };
}

function fakeOp(rootFields: string[]): PreparedOperation {
  return {
    operation: { operation: 'query' },
    operationName: null,
    rootFields,
    introspectionOnly: rootFields.every((f) => f.startsWith('__')),
    normalized: `{ ${rootFields.join(' ')} }`,
  } as unknown as PreparedOperation;
}

describe('response cache plugin', () => {
  const ok: ExecutedResult = { hasErrors: false, upstreamMaxAge: null, stale: false };

  async function roundTrip(environment: EnvironmentName, fields: string[], result: ExecutedResult = ok, status = 200) {
    const cache = new ResponseCache({ settings: settings(), redis: null });
    const plugin = responseCachePlugin({
      cache,
      environment,
      variant: environment === 'playground' ? 'playground' : 'keyed',
      keyByPartner: false,
    });
    const s1 = fakeState(environment);
    const first = await plugin.onBeforeExecute!(s1, fakeOp(fields));
    await plugin.onExecuted!(s1, fakeOp(fields), { status, headers: {}, body: '{"data":{"x":1}}' }, result);
    const s2 = fakeState(environment);
    const second = await plugin.onBeforeExecute!(s2, fakeOp(fields));
    return { cache, plugin, first, s1, second, s2 };
  }

  it('a stored answer is served with x-cache HIT and age', async () => {
    const { first, s1, second, s2 } = await roundTrip('production', ['utilities']);
    expect(first).toBeUndefined();
    expect(s1.cache).toBe('MISS');
    expect(second).toEqual({ status: 200, headers: { age: '0' }, body: '{"data":{"x":1}}', bytes: Buffer.from('{"data":{"x":1}}') });
    expect(s2.cache).toBe('HIT');
  });

  it('answers with errors, stale answers, non-200 and upstream no-store are never stored', async () => {
    const cases: [ExecutedResult, number][] = [
      [{ ...ok, hasErrors: true }, 200],
      [{ ...ok, stale: true }, 200],
      [ok, 500],
      [{ ...ok, upstreamMaxAge: 0 }, 200],
    ];
    for (const [result, status] of cases) {
      const { second, s2, cache } = await roundTrip('production', ['utilities'], result, status);
      expect(second).toBeUndefined();
      expect(s2.cache).toBe('MISS');
      expect(cache.stats.stores).toBe(0);
    }
  });

  it('personal data and introspection bypass the cache', async () => {
    for (const fields of [['utilityAccounts'], ['__schema']]) {
      const { first, s1, second, cache } = await roundTrip('production', fields);
      expect(first).toBeUndefined();
      expect(second).toBeUndefined();
      expect(s1.cache).toBe('BYPASS');
      expect(cache.stats.stores).toBe(0);
    }
  });

  it('never serves an entry across environments sharing one cache', async () => {
    const cache = new ResponseCache({ settings: settings(), redis: null });
    const prod = responseCachePlugin({ cache, environment: 'production', variant: 'keyed', keyByPartner: false });
    const play = responseCachePlugin({ cache, environment: 'playground', variant: 'playground', keyByPartner: false });
    const s = fakeState('production');
    await prod.onBeforeExecute!(s, fakeOp(['utilities']));
    await prod.onExecuted!(s, fakeOp(['utilities']), { status: 200, headers: {}, body: '{"data":{"secret":1}}' }, ok);
    const p = fakeState('playground');
    expect(await play.onBeforeExecute!(p, fakeOp(['utilities']))).toBeUndefined();
    expect(p.cache).toBe('MISS');
  });
});

describe('shared through Redis', () => {
  let redis: TestRedis;
  let a: RedisClient;
  let b: RedisClient;
  beforeAll(async () => {
    redis = await startTestRedis();
    a = await connectRedis(redis.url);
    b = await connectRedis(redis.url);
  });
  afterAll(async () => {
    a?.disconnect();
    b?.disconnect();
    await redis?.stop();
  });

  it('an answer stored by one instance is a hit on another; a purge reaches both', async () => {
    const busA = await InstanceBus.open(a, () => {});
    const busB = await InstanceBus.open(b, () => {});
    const one = new ResponseCache({ settings: settings(), redis: a, bus: busA });
    const two = new ResponseCache({ settings: settings(), redis: b, bus: busB });
    await one.start();
    await two.start();
    try {
      const k1 = one.keyFor(input(), ['residentialPlans']);
      one.set(k1, '{"data":{"plans":[]}}', 60_000, ['residentialPlans']);
      await new Promise((r) => setTimeout(r, 50));
      const k2 = two.keyFor(input(), ['residentialPlans']);
      expect(k2).toBe(k1);
      expect(await two.get(k2)).toMatchObject({ level: 'redis', entry: { body: '{"data":{"plans":[]}}' } });
      expect(await two.get(k2)).toMatchObject({ level: 'lru' });

      const res = await one.purge({ fields: ['residentialPlans'] });
      expect(res).toMatchObject({ reach: 'all instances', instancesNotified: 2 });
      await new Promise((r) => setTimeout(r, 100));
      expect(two.lruEntries).toBe(0);
      const after = two.keyFor(input(), ['residentialPlans']);
      expect(after).not.toBe(k2);
      expect(await two.get(after)).toBeNull();
    } finally {
      await one.close();
      await two.close();
      await busA.close();
      await busB.close();
    }
  });

  it('Redis down: lookups and stores fall back to the LRU and are counted, never thrown', async () => {
    const cache = new ResponseCache({ settings: settings({ redisReadTimeoutMs: 200 }), redis: a });
    await cache.start();
    try {
      await redis.stop();
      await new Promise((r) => setTimeout(r, 100));
      const k = cache.keyFor(input({ variables: { zip: '10001' } }), ['utilities']);
      expect(await cache.get(k)).toBeNull();
      expect(cache.stats.cacheReadErrors).toBeGreaterThanOrEqual(1);
      cache.set(k, '{"data":{}}', 60_000, ['utilities']);
      expect(cache.stats.cacheWriteErrors).toBeGreaterThanOrEqual(1);
      expect(await cache.get(k)).toMatchObject({ level: 'lru' });
    } finally {
      await cache.close();
      await redis.start();
    }
  });
});
