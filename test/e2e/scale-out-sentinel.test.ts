// Two gateway instances on a real Sentinel set-up: a master, a replica and three
// sentinels. The master is killed under load: keyed requests keep answering, counted playground
// calls fail closed until the replica is promoted, readiness says so, replay records written
// meanwhile are retried and kept, and everything recovers without a gateway restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { clusterSkipReason, startTestSentinel, type TestSentinel } from '../support/redis-cluster.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { connectRedis, type RedisClient } from '../../cache/redis-connection.js';
import { createReplayStore } from '../../stores/replay-store.js';
import { loadConfig } from '../../start/config.js';
import { runCacheCli } from '../../cli/cache.js';

const problem = clusterSkipReason('Redis Sentinel');

const UTILS = (zip: string) => `{ utilities(zipCode: "${zip}") { id name } }`;

describe.skipIf(problem)('Redis Sentinel: two gateway instances and a failover', () => {
  let sentinel: TestSentinel;
  let a: TestGateway;
  let b: TestGateway;
  let reader: RedisClient;
  const env = () => ({ REDIS_URL: sentinel.url, TRUST_PROXY: '127.0.0.1', PLAYGROUND_ALLOWANCE: '5' });
  const play = (gw: TestGateway, ip: string) => gw.post('playground', UTILS('60601'), undefined, { headers: { 'x-forwarded-for': ip } });
  const readyz = async (gw: TestGateway) => {
    const res = await fetch(gw.g.urls.production!.replace('/graphql', '/readyz'));
    return { status: res.status, body: await res.json() };
  };

  beforeAll(async () => {
    sentinel = await startTestSentinel();
    a = await startTestGateway(env());
    b = await startTestGateway(env());
    reader = await connectRedis(sentinel.url);
  }, 90_000);
  afterAll(async () => {
    reader?.disconnect();
    await a?.close();
    await b?.close();
    await sentinel?.stop();
  });

  it('shares the allowance and purges across instances through the sentinels', async () => {
    expect((await readyz(a)).body.redis).toBe('up');
    const statuses = await Promise.all(Array.from({ length: 8 }, (_, i) => play(i % 2 ? a : b, '198.51.100.77')));
    expect(statuses.filter((r) => r.status === 200)).toHaveLength(5);
    expect(statuses.filter((r) => r.status === 429)).toHaveLength(3);
    const out: string[] = [];
    expect(
      await runCacheCli(
        ['purge', '--all'],
        { ...process.env, REDIS_URL: sentinel.url },
        { out: (l) => out.push(l), err: (l) => out.push(l) },
      ),
    ).toBe(0);
    expect(out.join('\n')).toMatch(/2 of 2 live instance\(s\) confirmed/);
  });

  it('a gateway starts while the first sentinel of the list is down, and takes purges', async () => {
    await sentinel.killSentinel(0);
    let c: TestGateway | null = null;
    try {
      const t0 = Date.now();
      c = await startTestGateway(env());
      expect(Date.now() - t0).toBeLessThan(20_000);
      expect((await c.post('production', UTILS('60601'))).status).toBe(200);
      // A sentinel down is no Redis outage: the master answers.
      expect(await readyz(c)).toMatchObject({ status: 200, body: { redis: 'up' } });
      const out: string[] = [];
      expect(
        await runCacheCli(
          ['purge', '--all'],
          { ...process.env, REDIS_URL: sentinel.url },
          { out: (l) => out.push(l), err: (l) => out.push(l) },
        ),
      ).toBe(0);
      expect(out.join('\n')).toMatch(/3 of 3 live instance\(s\) confirmed/);
    } finally {
      await c?.close();
      await sentinel.startSentinel(0);
    }
  }, 60_000);

  it('master killed under load: keyed answers, playground fails closed then recovers, replay records survive', async () => {
    const oldMaster = sentinel.masterPort();
    const ids: string[] = [];
    let n = 0;
    const keyed = async () => {
      const id = `sentinel-${Date.now()}-${n}`;
      ids.push(id);
      return (await a.post('production', UTILS(String(20000 + n++)), undefined, { headers: { 'x-request-id': id } })).status;
    };
    await sentinel.killData(oldMaster);
    try {
      const h = await eventually(async () => {
        const r = await readyz(b);
        return r.status === 503 && r.body;
      });
      expect(h.redis).toBe('down');
      expect(h.allowance.degraded).toMatch(/every counted call is refused/);
      // During the failover: keyed answers, the playground fails closed (503, never unlimited).
      expect(await Promise.all(Array.from({ length: 5 }, keyed))).toEqual(Array(5).fill(200));
      const during = await play(b, '198.51.100.78');
      expect([200, 503]).toContain(during.status);
      if (during.status === 503) expect(during.headers.get('retry-after')).toBeTruthy();

      // The replica is promoted; both instances follow it without a restart.
      await eventually(async () => sentinel.masterPort() !== oldMaster, 20_000, 200);
      await eventually(async () => (await readyz(a)).status === 200 && (await readyz(b)).status === 200, 20_000);
      expect(await Promise.all(Array.from({ length: 5 }, keyed))).toEqual(Array(5).fill(200));
      const after = await play(a, '198.51.100.79');
      expect(after.status).toBe(200);
      expect(after.headers.get('x-ratelimit-remaining')).toBe('4');
    } finally {
      await sentinel.startData(oldMaster);
    }
    // Records written while the master was gone were retried, not dropped.
    const store = createReplayStore({ redis: reader, dataDir: a.dataDir, settings: loadConfig({}).cacheReplay.replay });
    await eventually(async () => (await Promise.all(ids.map((id) => store.get(id)))).every(Boolean), 20_000);
    const metrics = (await readyz(a)).body.replay;
    expect(metrics.dropped).toBe(0);
  }, 90_000);
});
