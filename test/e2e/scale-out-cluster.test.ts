// Two gateway instances on a real 3-master Redis Cluster: the multi-host URL, the
// allowance exact under concurrency across instances, purge and replay across instances with a
// truthful count, a master killed under load (readiness says what is degraded, nobody waits on the
// lost master, the playground fails closed, keyed requests answer) and recovery without a restart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { clusterSkipReason, slotOwners, startTestCluster, type TestCluster } from '../support/redis-cluster.js';
import { freePort } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { runCacheCli } from '../../cli/cache.js';
import { runKeysCli } from '../../cli/keys.js';
import { connectRedis, type RedisClient } from '../../cache/redis-connection.js';
import { allowanceKey } from '../../cache/allowance.js';
import { createReplayStore, REPLAY_KEYS } from '../../stores/replay-store.js';
import { loadConfig } from '../../start/config.js';

const problem = clusterSkipReason('Redis Cluster');

const COUNTED = '{ utilities(zipCode: "60601") { id } }';
const UTILS = (zip: string) => `{ utilities(zipCode: "${zip}") { id name } }`;
const ALLOWANCE = 3;

async function readyz(gw: TestGateway): Promise<{ status: number; body: any }> {
  const res = await fetch(gw.g.urls.production!.replace('/graphql', '/readyz'));
  return { status: res.status, body: await res.json() };
}

describe.skipIf(problem)('Redis Cluster: two gateway instances', () => {
  let cluster: TestCluster;
  let a: TestGateway;
  let b: TestGateway;
  let opsA: number;
  let reader: RedisClient;
  /** A third instance, started while a master is down. */
  let c: TestGateway | null = null;
  // One keys file for every instance, as a shared volume would give them.
  const keysFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'epg-cluster-keys-')), 'keys.json');
  const env = () => ({ REDIS_URL: cluster.url, TRUST_PROXY: '127.0.0.1', PLAYGROUND_ALLOWANCE: String(ALLOWANCE), KEYS_FILE: keysFile });
  const play = (gw: TestGateway, ip: string, query = COUNTED) =>
    gw.post('playground', query, undefined, { headers: { 'x-forwarded-for': ip } });

  beforeAll(async () => {
    cluster = await startTestCluster();
    opsA = await freePort();
    a = await startTestGateway({ ...env(), OPS_PORT: String(opsA) });
    b = await startTestGateway(env());
    reader = await connectRedis(cluster.url);
  }, 60_000);

  afterAll(async () => {
    reader?.disconnect();
    await c?.close();
    await a?.close();
    await b?.close();
    await cluster?.stop();
    fs.rmSync(path.dirname(keysFile), { recursive: true, force: true });
  });

  it('accepts redis-cluster://h:p,h:p and reports the cluster up', async () => {
    expect(loadConfig({ REDIS_URL: cluster.url }).redisUrl).toBe(cluster.url);
    const r = await readyz(a);
    expect(r.status).toBe(200);
    expect(r.body.redis).toBe('up');
  });

  it('the allowance is exact under concurrency across two instances (10 IPs x 8 calls split across both)', async () => {
    const ips = Array.from({ length: 10 }, (_, i) => `198.51.100.${i + 1}`);
    const calls = ips.flatMap((ip) => Array.from({ length: 8 }, (_, j) => play(j % 2 ? a : b, ip)));
    const answers = await Promise.all(calls);
    const byIp = new Map<string, number[]>();
    answers.forEach((r, i) => {
      const ip = ips[Math.floor(i / 8)]!;
      byIp.set(ip, [...(byIp.get(ip) ?? []), r.status]);
    });
    for (const ip of ips) {
      const statuses = byIp.get(ip)!;
      expect(statuses.filter((s) => s === 200)).toHaveLength(ALLOWANCE);
      expect(statuses.filter((s) => s === 429)).toHaveLength(8 - ALLOWANCE);
    }
    // The counters are spread over the masters: this checked more than one node.
    const masterOf = slotOwners(cluster);
    expect(new Set(ips.map((ip) => masterOf(allowanceKey(ip)))).size).toBeGreaterThan(1);
  });

  it('a purge reaches both instances and the CLI says how many confirmed', async () => {
    // One query per instance, so neither finds the other's fresh answer in Redis after the purge.
    const qa = UTILS('19103');
    const qb = UTILS('60601');
    await a.post('production', qa);
    await b.post('production', qb);
    expect((await a.post('production', qa)).headers.get('x-cache')).toBe('HIT');
    expect((await b.post('production', qb)).headers.get('x-cache')).toBe('HIT');
    const out: string[] = [];
    const code = await runCacheCli(
      ['purge', '--field', 'utilities'],
      { ...process.env, REDIS_URL: cluster.url },
      { out: (l) => out.push(l), err: (l) => out.push(l) },
    );
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/2 of 2 live instance\(s\) confirmed/);
    expect((await a.post('production', qa)).headers.get('x-cache')).toBe('MISS');
    expect((await b.post('production', qb)).headers.get('x-cache')).toBe('MISS');
  });

  it('a key revoked with the CLI is refused by both instances at once, and the CLI says 2 of 2', async () => {
    const cli = async (args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runKeysCli(
        args,
        { KEYS_FILE: keysFile, REDIS_URL: cluster.url },
        { out: (l) => out.push(l), err: (l) => err.push(l) },
      );
      return { code, out: out.join('\n'), err: err.join('\n'), last: out.at(-1)! };
    };
    const issued = await cli(['issue', '--env', 'production', '--partner', 'CLUSTER']);
    expect(issued.err).toMatch(/key change applied by 2 of 2 live instance\(s\)/);
    const key = issued.last;
    expect((await a.post('production', UTILS('60601'), undefined, { key })).status).toBe(200);
    expect((await b.post('production', UTILS('60601'), undefined, { key })).status).toBe(200);
    const id = /Issued key (key_[0-9a-f]{16})/.exec(issued.err)![1]!;
    const revoked = await cli(['revoke', id]);
    expect(revoked.code).toBe(0);
    expect(revoked.out).toMatch(/key change applied by 2 of 2 live instance\(s\)/);
    expect((await a.post('production', UTILS('60601'), undefined, { key })).status).toBe(403);
    expect((await b.post('production', UTILS('60601'), undefined, { key })).status).toBe(403);
  });

  it('replay records written by either instance are found through the cluster', async () => {
    const ids = [`cl-a-${Date.now()}`, `cl-b-${Date.now()}`];
    await a.post('production', UTILS('60601'), undefined, { headers: { 'x-request-id': ids[0]! } });
    await b.post('production', UTILS('60601'), undefined, { headers: { 'x-request-id': ids[1]! } });
    const store = createReplayStore({ redis: reader, dataDir: a.dataDir, settings: loadConfig({}).cacheReplay.replay });
    for (const id of ids) expect(await eventually(() => store.get(id))).toMatchObject({ id, status: 200 });
  });

  it('a master killed under load: readiness names it, playground fails closed, keyed answers; recovery without a restart', async () => {
    // The master holding the replay keys: its loss is the worst case (replay writes wait and retry).
    const masterOf = slotOwners(cluster);
    const lost = masterOf(REPLAY_KEYS.index);
    const ips = Array.from({ length: 40 }, (_, i) => `203.0.113.${i + 1}`);
    const onLost = ips.filter((ip) => masterOf(allowanceKey(ip)) === lost);
    const onOthers = ips.filter((ip) => masterOf(allowanceKey(ip)) !== lost);
    expect(onLost.length).toBeGreaterThan(0);
    expect(onOthers.length).toBeGreaterThan(0);

    await cluster.kill(lost);
    const ids: string[] = [];
    try {
      // Load during the outage: keyed cache misses (fresh zips) and counted playground calls.
      let n = 0;
      const keyedDuring = async () => {
        const id = `kill-${Date.now()}-${n}`;
        ids.push(id);
        const r = await a.post('production', UTILS(String(10000 + n++)), undefined, { headers: { 'x-request-id': id } });
        return r.status;
      };
      const first = await Promise.all(Array.from({ length: 10 }, keyedDuring));
      // Keyed requests answer from the feeds (how long they may wait is bounded by deadlines, tested
      // in test/unit/redis-cluster-health.test.ts; speed is for the benchmark).
      expect(first).toEqual(Array(10).fill(200));

      const h = await eventually(async () => {
        const r = await readyz(a);
        return r.status === 503 && r.body;
      });
      expect(h.redis).toBe('partial: 1 of 3 masters not answering');
      expect(h.allowance).toMatchObject({ ok: false, degraded: expect.stringContaining('unreachable master') });
      expect(h.replay.degraded).toMatch(/retried/);
      const metrics = await (await fetch(`http://127.0.0.1:${opsA}/metrics`)).text();
      expect(metrics).toMatch(/^gateway_redis_up 0$/m);

      // Once known, a counted call on the lost slots is refused at once (503, fail closed); the rest are counted.
      for (const ip of onLost.slice(0, 3)) {
        const r = await play(b, ip);
        expect(r.status).toBe(503);
        expect(r.headers.get('retry-after')).toBeTruthy();
      }
      const counted = await play(a, onOthers[0]!);
      expect(counted.status).toBe(200);
      expect(counted.headers.get('x-ratelimit-remaining')).toBe(String(ALLOWANCE - 1));
      expect(await Promise.all(Array.from({ length: 10 }, keyedDuring))).toEqual(Array(10).fill(200));

      // A gateway starts while a seed node is down (the lost node listed first), within a bound,
      // answers keyed requests and says what is degraded.
      const seeds = [cluster.ports[lost]!, ...cluster.ports.filter((_, i) => i !== lost)];
      const t0 = Date.now();
      c = await startTestGateway({ ...env(), REDIS_URL: `redis-cluster://${seeds.map((p) => `127.0.0.1:${p}`).join(',')}` });
      expect(Date.now() - t0).toBeLessThan(20_000);
      expect((await c.post('production', UTILS('60601'))).status).toBe(200);
      const hc = await eventually(async () => {
        const r = await readyz(c!);
        return r.status === 503 && r.body.redis.startsWith('partial') && r.body;
      });
      expect(hc.redis).toBe('partial: 1 of 3 masters not answering');
      expect(hc.allowance.degraded).toMatch(/unreachable master/);
    } finally {
      await cluster.start(lost);
    }
    await cluster.ready();
    // Recovery without a restart: readiness, the allowance on the lost slots, and the replay
    // records written during the outage (retried, not dropped).
    await eventually(
      async () => (await readyz(a)).status === 200 && (await readyz(b)).status === 200 && (await readyz(c!)).status === 200,
      15_000,
    );
    // The gateway started during the outage takes purges like the others (its subscription held or was retried).
    await eventually(
      async () => {
        const out: string[] = [];
        await runCacheCli(
          ['purge', '--all'],
          { ...process.env, REDIS_URL: cluster.url },
          { out: (l) => out.push(l), err: (l) => out.push(l) },
        );
        return /3 of 3 live instance\(s\) confirmed/.test(out.join('\n'));
      },
      15_000,
      500,
    );
    const back = await play(a, onLost[0]!);
    expect(back.status).toBe(200);
    expect(back.headers.get('x-ratelimit-remaining')).toBe(String(ALLOWANCE - 1));
    const store = createReplayStore({ redis: reader, dataDir: a.dataDir, settings: loadConfig({}).cacheReplay.replay });
    await eventually(async () => {
      const found = await Promise.all(ids.map((id) => store.get(id)));
      return found.every(Boolean);
    }, 15_000);
  }, 120_000);
});
