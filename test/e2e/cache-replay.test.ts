// Response cache and replay log end to end: real gateways (keys, allowance, cache, replay), a real
// redis-server shared by two instances, the reference upstream with fault injection, the CLIs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { launchGateway as startGateway } from '../../start/launch.js';
import type { GatewayHandle } from '../../start/app.js';
import { issueKey } from '../../stores/key-store.js';
import { runReplayCli } from '../../cli/replay.js';
import { runCacheCli } from '../../cli/cache.js';
import { connectRedis, type RedisClient } from '../../cache/redis-connection.js';
import { createReplayStore, type ReplayRecord, type ReplayStore } from '../../stores/replay-store.js';
import { loadConfig } from '../../start/config.js';
import { cacheReplayCapability } from '../../server/wiring/cache-replay.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { bundled } from '../support/bundles.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';

const PLANS =
  'query Plans($zip: String!, $usage: Int) { residentialPlans(zipCode: $zip, monthlyUsage: $usage) { id title price rates { usageKwh allInRateUsdPerKwh } } }';
const UTILS = (zip: string) => `{ utilities(zipCode: "${zip}") { id name } }`;
const STATE = '{ energyInfoByState(state: "TX") { state name averageResidentialRateUsdPerKwh } }';

interface Res {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function gql(
  url: string,
  query: string,
  opts: { key?: string; variables?: Record<string, unknown>; requestId?: string } = {},
): Promise<Res> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.requestId) headers['x-request-id'] = opts.requestId;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables: opts.variables }) });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, text, json };
}

function run(
  command: 'cache' | 'replay',
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bundled(command), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function replayCli(args: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  let raw = '';
  const code = await runReplayCli(
    args,
    { ...process.env, LOG_LEVEL: 'silent', ...env },
    { out: (l) => out.push(l), err: (l) => err.push(l), raw: (t) => (raw += t) },
  );
  return { code, out: out.join('\n'), err: err.join('\n'), raw };
}

async function cacheCli(args: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCacheCli(args, { ...process.env, ...env }, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function fault(upstreamUrl: string, feed: string, f: unknown) {
  const res = await fetch(`${upstreamUrl}/__faults/${feed}`, { method: 'POST', body: JSON.stringify(f) });
  expect(res.status).toBe(200);
}

let tmp: string;
let redis: TestRedis;
let reader: RedisClient;
let store: ReplayStore;
let gwA: GatewayHandle;
let gwB: GatewayHandle;
let adminUrl: string;
let prodKey: string;
let certKey: string;
let baseEnv: Record<string, string>;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cache-replay-'));
  redis = await startTestRedis();
  const keysFile = path.join(tmp, 'keys.json');
  prodKey = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
  certKey = (await issueKey(keysFile, { environment: 'certification', partnerCode: 'ACME' })).key;
  // Short TTL for state statistics, to see entries expire.
  const cacheConfig = path.join(tmp, 'cache.config.json');
  fs.writeFileSync(cacheConfig, JSON.stringify({ ttl: { utilities: '24h', residentialPlans: '15m', energyInfoByState: '1500ms' } }));
  baseEnv = {
    PRODUCTION_PORT: '0',
    CERTIFICATION_PORT: '0',
    PLAYGROUND_PORT: '0',
    UPSTREAM_PORT: '0',
    OPS_PORT: '0',
    LOG_LEVEL: 'silent',
    DATA_DIR: path.join(tmp, 'data'),
    REDIS_URL: redis.url,
    KEYS_FILE: keysFile,
    CACHE_CONFIG: cacheConfig,
    PLAYGROUND_ALLOWANCE: '4',
    // Drops are what this file checks; retrying through an outage is test/e2e/scale-out.test.ts'.
    REPLAY_WRITE_RETRY_MS: '0',
  };
  const adminPort = await freePort();
  adminUrl = `http://127.0.0.1:${adminPort}`;
  gwA = await startGateway({ env: { ...baseEnv, ADMIN_TOKEN, ADMIN_PORT: String(adminPort) } });
  gwB = await startGateway({ env: baseEnv });
  reader = await connectRedis(redis.url);
  store = createReplayStore({ redis: reader, dataDir: tmp, settings: loadConfig(baseEnv).cacheReplay.replay });
});

afterAll(async () => {
  for (const g of [gwA, gwB]) await g?.close().catch(() => {});
  await store?.close().catch(() => {});
  reader?.disconnect();
  await redis?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const record = (id: string) => eventually(() => store.get(id));

describe('response cache', () => {
  it('MISS then HIT per environment, with x-cache and age; identical bodies', async () => {
    const q = UTILS('75001');
    const miss = await gql(gwA.urls.production!, q, { key: prodKey });
    expect(miss.status).toBe(200);
    expect(miss.json.data.utilities[0].id).toBe('ONCOR');
    expect(miss.headers.get('x-cache')).toBe('MISS');
    expect(miss.headers.get('age')).toBeNull();
    const hit = await gql(gwA.urls.production!, q, { key: prodKey });
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.headers.get('age')).toMatch(/^\d+$/);
    expect(hit.text).toBe(miss.text);

    // Certification is its own key space (other feeds in real deployments).
    expect((await gql(gwA.urls.certification!, q, { key: certKey })).headers.get('x-cache')).toBe('MISS');
    expect((await gql(gwA.urls.certification!, q, { key: certKey })).headers.get('x-cache')).toBe('HIT');
  });

  it('no cross-environment leak: the same query on the playground is a MISS; a hit there still counts', async () => {
    const q = UTILS('75201');
    expect((await gql(gwA.urls.production!, q, { key: prodKey })).headers.get('x-cache')).toBe('MISS');
    expect((await gql(gwA.urls.production!, q, { key: prodKey })).headers.get('x-cache')).toBe('HIT');
    const first = await gql(gwA.urls.playground!, q);
    expect(first.headers.get('x-cache')).toBe('MISS');
    const left = Number(first.headers.get('x-ratelimit-remaining'));
    const second = await gql(gwA.urls.playground!, q);
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(left - 1);

    // utilityAccounts (personal data, hidden on the playground) is never cached...
    const accounts = '{ utilityAccounts(address: "1500 Marilla St", zipCode: "75201") { accountId } }';
    const a1 = await gql(gwA.urls.production!, accounts, { key: prodKey });
    expect(a1.headers.get('x-cache')).toBe('BYPASS');
    expect((await gql(gwA.urls.production!, accounts, { key: prodKey })).headers.get('x-cache')).toBe('BYPASS');
    // ...and the playground refuses it at validation whatever the keyed listener served.
    const p = await gql(gwA.urls.playground!, accounts);
    expect(p.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(p.json.data).toBeUndefined();
  });

  it('is shared by instances through Redis', async () => {
    const vars = { zip: '75001', usage: 1100 };
    const a = await gql(gwA.urls.production!, PLANS, { key: prodKey, variables: vars });
    expect(a.headers.get('x-cache')).toBe('MISS');
    expect(a.json.data.residentialPlans.length).toBeGreaterThan(0);
    const b = await eventually(async () => {
      const r = await gql(gwB.urls.production!, PLANS, { key: prodKey, variables: { usage: 1100, zip: '75001' } });
      return r.headers.get('x-cache') === 'HIT' && r;
    });
    expect(b.text).toBe(a.text);
  });

  it('entries expire at their TTL (config file)', async () => {
    expect((await gql(gwA.urls.production!, STATE, { key: prodKey })).headers.get('x-cache')).toBe('MISS');
    expect((await gql(gwA.urls.production!, STATE, { key: prodKey })).headers.get('x-cache')).toBe('HIT');
    await new Promise((r) => setTimeout(r, 1700));
    expect((await gql(gwA.urls.production!, STATE, { key: prodKey })).headers.get('x-cache')).toBe('MISS');
  });

  it('answers with errors are never cached', async () => {
    await fault(gwA.upstreamUrl, 'brightgrid', { kind: 'status', status: 500 });
    try {
      // A ZIP this gateway has not fetched yet: no stale copy to fall back on.
      const vars = { zip: '19103', usage: 1777 };
      const r1 = await gql(gwA.urls.production!, PLANS, { key: prodKey, variables: vars });
      expect(r1.json.errors?.length).toBeGreaterThan(0);
      expect(r1.headers.get('x-cache')).toBe('MISS');
      expect((await gql(gwA.urls.production!, PLANS, { key: prodKey, variables: vars })).headers.get('x-cache')).toBe('MISS');
    } finally {
      await fault(gwA.upstreamUrl, 'brightgrid', null);
    }
  });

  it('`npm run cache -- purge --field` empties that field on every instance; --all everything', async () => {
    const v1 = { zip: '75001', usage: 2100 };
    const v2 = { zip: '75001', usage: 2200 };
    const util = UTILS('77001');
    for (const q of [
      [PLANS, v1],
      [PLANS, v2],
      [util, undefined],
    ] as const) {
      await gql(gwA.urls.production!, q[0], { key: prodKey, variables: q[1] });
      expect(
        (
          await eventually(async () => {
            const r = await gql(gwB.urls.production!, q[0], { key: prodKey, variables: q[1] });
            return r.headers.get('x-cache') === 'HIT' && r;
          })
        ).status,
      ).toBe(200);
      expect((await gql(gwA.urls.production!, q[0], { key: prodKey, variables: q[1] })).headers.get('x-cache')).toBe('HIT');
    }
    const purge = await run('cache', ['purge', '--field', 'residentialPlans'], { REDIS_URL: redis.url });
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.stdout).toMatch(/2 instance\(s\) notified/);
    await new Promise((r) => setTimeout(r, 200));
    // Each instance checked with a query the other has not re-cached since.
    expect((await gql(gwA.urls.production!, PLANS, { key: prodKey, variables: v1 })).headers.get('x-cache')).toBe('MISS');
    expect((await gql(gwB.urls.production!, PLANS, { key: prodKey, variables: v2 })).headers.get('x-cache')).toBe('MISS');
    expect((await gql(gwA.urls.production!, util, { key: prodKey })).headers.get('x-cache')).toBe('HIT');
    expect((await gql(gwB.urls.production!, util, { key: prodKey })).headers.get('x-cache')).toBe('HIT');

    const all = await cacheCli(['purge', '--all'], { REDIS_URL: redis.url });
    expect(all.code, all.err).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect((await gql(gwB.urls.production!, util, { key: prodKey })).headers.get('x-cache')).toBe('MISS');

    const usage = await cacheCli(['purge', '--field', 'nope'], { REDIS_URL: redis.url });
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/unknown root field/);
    const noRedis = await cacheCli(['purge', '--all'], { REDIS_URL: '', ADMIN_TOKEN: '' });
    expect(noRedis.code).toBe(1);
    expect(noRedis.err).toMatch(/cannot reach it/);
  });
});

describe('replay', () => {
  let planId: string;
  let planBody: string;

  it('records every request exactly as sent, never the key; show prints it', async () => {
    planId = `support-case-${Date.now()}`;
    const r = await gql(gwA.urls.production!, PLANS, { key: prodKey, variables: { zip: '75001', usage: 1234 }, requestId: planId });
    expect(r.headers.get('x-request-id')).toBe(planId);
    planBody = r.text;
    const rec = await record(planId);
    expect(rec).toMatchObject({
      id: planId,
      environment: 'production',
      partnerCode: 'ACME',
      clientIp: '127.0.0.1',
      operationName: 'Plans',
      query: PLANS,
      variables: { zip: '75001', usage: 1234 },
      status: 200,
      responseBody: r.text,
      fromCache: false,
      cache: 'MISS',
    });
    expect(rec.responseHeaders).toMatchObject({ 'x-request-id': planId, 'x-cache': 'MISS' });
    expect(rec.upstreamCalls.length).toBeGreaterThan(0);
    expect(rec.upstreamCalls[0]).toMatchObject({ feed: expect.any(String), url: expect.stringMatching(/^http/), status: 200 });
    expect(JSON.stringify(rec)).not.toContain(prodKey);

    const body = await replayCli(['show', planId, '--body'], { REDIS_URL: redis.url });
    expect(body.code).toBe(0);
    expect(body.raw).toBe(r.text);
    const shown = await replayCli(['show', planId], { REDIS_URL: redis.url });
    expect(JSON.parse(shown.out)).toEqual(rec);
    expect((await replayCli(['show', 'no-such-request'], { REDIS_URL: redis.url })).code).toBe(1);

    // The script itself, as support runs it.
    const script = await run('replay', ['show', planId, '--body'], { REDIS_URL: redis.url });
    expect(script.code, script.stderr).toBe(0);
    expect(script.stdout).toBe(r.text);
  });

  it('records refusals and playground 429s; list filters by partner, status, environment, time', async () => {
    const refused = await gql(gwA.urls.production!, UTILS('75001'), { requestId: `no-key-${Date.now()}` });
    expect(refused.status).toBe(403);
    let last: Res;
    do last = await gql(gwA.urls.playground!, UTILS('75001'));
    while (last.status === 200);
    expect(last.status).toBe(429);
    const id429 = last.headers.get('x-request-id')!;
    const rec429 = await record(id429);
    expect(rec429).toMatchObject({ environment: 'playground', status: 429, partnerCode: null, responseBody: last.text });
    expect(rec429.responseHeaders).toMatchObject({ 'X-RateLimit-Limit': '4', 'X-RateLimit-Remaining': '0' });
    await record(refused.headers.get('x-request-id')!);

    const acme = await replayCli(['list', '--partner', 'ACME', '--since', '1h', '--json'], { REDIS_URL: redis.url });
    const acmeRecs = acme.out.split('\n').map((l) => JSON.parse(l) as ReplayRecord);
    expect(acmeRecs.every((r) => r.partnerCode === 'ACME')).toBe(true);
    expect(acmeRecs.map((r) => r.id)).toContain(planId);
    const times = acmeRecs.map((r) => Date.parse(r.time));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const tooMany = await replayCli(['list', '--env', 'playground', '--status', '429', '--since', '10m'], { REDIS_URL: redis.url });
    expect(tooMany.code).toBe(0);
    expect(tooMany.out.split('\n')[0]).toMatch(/^TIME\s+ID\s+ENV/);
    expect(tooMany.out).toContain(id429);
    const clientErrors = await replayCli(['list', '--status', '4xx', '--limit', '50', '--json'], { REDIS_URL: redis.url });
    const statuses = clientErrors.out.split('\n').map((l) => (JSON.parse(l) as ReplayRecord).status);
    expect(statuses).toContain(403);
    expect(statuses).toContain(429);
    expect(statuses.every((s) => s >= 400 && s < 500)).toBe(true);
    expect((await replayCli(['list', '--since', 'yesterday'], { REDIS_URL: redis.url })).code).toBe(2);
    const typo = await replayCli(['list', '--cursor', 'eyJwcm9kdWN0aW9uIjp'], { REDIS_URL: redis.url });
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(/--cursor must be the cursor an earlier `list` printed/);
  });

  it('rerun: identical now -> exit 0; after a feed change -> plans diff and exit 1', async () => {
    const env = { REDIS_URL: redis.url, UPSTREAM_URL: gwA.upstreamUrl };
    const same = await replayCli(['rerun', planId], env);
    expect(same.code, same.err + same.out).toBe(0);
    expect(same.out).toContain('identical');

    await fault(gwA.upstreamUrl, 'brightgrid', { kind: 'status', status: 503 });
    try {
      const changed = await replayCli(['rerun', planId, '--json'], env);
      expect(changed.code, changed.err).toBe(1);
      const report = JSON.parse(changed.out);
      const list = report.diff.lists.find((l: { path: string }) => l.path === 'data.residentialPlans');
      const before = JSON.parse(planBody).data.residentialPlans.length;
      expect(list.removed.length).toBeGreaterThan(0);
      expect(list.removed.length).toBeLessThan(before);
      expect(report.diff.changes.some((c: { path: string; kind: string }) => c.path === 'errors' && c.kind === 'added')).toBe(true);
      const text = await replayCli(['rerun', planId], env);
      expect(text.out).toMatch(/data\.residentialPlans \(by id\): 0 added, \d+ removed/);
    } finally {
      await fault(gwA.upstreamUrl, 'brightgrid', null);
    }
    expect((await replayCli(['rerun', 'no-such-request'], env)).code).toBe(2);
  });

  it('admin endpoint: bearer token required; replay lookups and cache purge', async () => {
    expect((await fetch(`${adminUrl}/replay/${planId}`)).status).toBe(401);
    expect((await fetch(`${adminUrl}/replay/${planId}`, { headers: { authorization: `Bearer ${prodKey}` } })).status).toBe(401);
    expect((await fetch(`${adminUrl}/replay/${planId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } })).status).toBe(401);
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const one = await fetch(`${adminUrl}/replay/${planId}`, { headers: auth });
    expect(one.status).toBe(200);
    expect((await one.json()).responseBody).toBe(planBody);
    const list = await (
      await fetch(`${adminUrl}/replay?partner=ACME&since=1h&status=2xx&env=production&limit=5`, { headers: auth })
    ).json();
    expect(list.count).toBeGreaterThan(0);
    expect(list.count).toBeLessThanOrEqual(5);
    expect(list.records.every((r: ReplayRecord) => r.partnerCode === 'ACME' && r.status === 200)).toBe(true);
    expect(list.complete).toBe(true);
    expect((await fetch(`${adminUrl}/replay/nope-nope`, { headers: auth })).status).toBe(404);
    const purge = await fetch(`${adminUrl}/cache/purge?field=utilities`, { method: 'POST', headers: auth });
    expect(await purge.json()).toMatchObject({ purged: ['utilities'], reach: 'all instances' });
    expect((await fetch(`${adminUrl}/cache/purge`, { method: 'POST', headers: auth })).status).toBe(400);
  });
});

describe('bounds and outages', () => {
  it('embedded store: total size and retention bounds, oldest first', async () => {
    const dataDir = path.join(tmp, 'embedded');
    const adminPort = String(await freePort());
    const gw = await startGateway({
      env: {
        ...baseEnv,
        REDIS_URL: '',
        DATA_DIR: dataDir,
        REPLAY_MAX_BYTES: '24KiB',
        REPLAY_SEGMENT_BYTES: '4KiB',
        REPLAY_RETENTION: '3s',
        ADMIN_TOKEN,
        ADMIN_PORT: adminPort,
      },
      // Cache and replay only (no key check): this instance stands for a single-process deployment.
      capabilities: [cacheReplayCapability],
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        const r = await gql(gw.urls.production!, UTILS(String(75001 + i)));
        ids.push(r.headers.get('x-request-id')!);
      }
      const env = { REDIS_URL: '', DATA_DIR: dataDir, REPLAY_MAX_BYTES: '24KiB', REPLAY_RETENTION: '3s' };
      const newest = await eventually(async () => (await replayCli(['show', ids[39]!], env)).code === 0);
      expect(newest).toBe(true);
      const dir = path.join(dataDir, 'replay');
      const total = fs.readdirSync(dir).reduce((s, f) => s + fs.statSync(path.join(dir, f)).size, 0);
      expect(total).toBeLessThanOrEqual(24 * 1024);
      expect((await replayCli(['show', ids[0]!], env)).code).toBe(1);

      // Without Redis the purge command goes through the admin endpoint of the local gateway.
      expect((await gql(gw.urls.production!, UTILS('75001'))).headers.get('x-cache')).toBe('HIT');
      const purge = await cacheCli(['purge', '--field', 'utilities'], { REDIS_URL: '', ADMIN_TOKEN, ADMIN_PORT: adminPort });
      expect(purge.code, purge.err).toBe(0);
      expect(purge.out).toMatch(/this instance only/);
      expect((await gql(gw.urls.production!, UTILS('75001'))).headers.get('x-cache')).toBe('MISS');

      await new Promise((r) => setTimeout(r, 3100));
      expect((await replayCli(['show', ids[39]!], env)).code).toBe(1);
    } finally {
      await gw.close();
    }
  });

  it('Redis stopped mid-run: answers still 200 and correct, replay drops counted, recovery after restart', async () => {
    const q = UTILS('60601');
    // Cached on B only (Redis + B's LRU): A has to compute it during the outage.
    const reference = await gql(gwB.urls.production!, q, { key: prodKey });
    expect(reference.status).toBe(200);
    const warm = UTILS('19103');
    await gql(gwA.urls.production!, warm, { key: prodKey });

    await redis.stop();
    try {
      // The gateway has seen Redis go (its connection closed) before the outage's requests: they then
      // meet a Redis known to be down, not one whose socket is closing under a command.
      await eventually(async () => (await (await fetch(gwA.urls.production!.replace('/graphql', '/readyz'))).json()).redis === 'down');
      const during = await gql(gwA.urls.production!, q, { key: prodKey, requestId: `outage-${Date.now()}` });
      expect(during.status).toBe(200);
      expect(during.text).toBe(reference.text);
      expect(during.headers.get('x-cache')).toBe('MISS');
      // In-process entries still serve.
      expect((await gql(gwA.urls.production!, warm, { key: prodKey })).headers.get('x-cache')).toBe('HIT');
      const health = await eventually(async () => {
        const h = await (await fetch(gwA.urls.production!.replace('/graphql', '/readyz'))).json();
        return h.replay.dropped > 0 && h;
      });
      expect(health.redis).toBe('down');
      expect(health.cache.readErrors).toBeGreaterThan(0);
    } finally {
      await redis.start();
    }
    const id = `after-${Date.now()}`;
    await eventually(async () => (await fetch(gwA.urls.production!.replace('/graphql', '/readyz'))).status === 200, 10_000);
    // The test reads the record through a connection of its own, which reconnects on its own
    // schedule: without an offline queue a read before that fails ("Stream isn't writeable").
    await eventually(async () => reader.status === 'ready', 10_000);
    await gql(gwA.urls.production!, q, { key: prodKey, requestId: id });
    expect((await record(id)).status).toBe(200);
  });
});
