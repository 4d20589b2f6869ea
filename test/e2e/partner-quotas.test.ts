// Partner quotas end to end: two gateway processes (start/main.ts, as `npm start` runs it) sharing
// one real redis-server, one keys file and one partners file; the quota set and changed with
// `npm run partners -- quota` while they run. Then the fair share of uncached executions on one
// gateway whose supplier feed is slowed (fault injection), so a partner's burst overlaps for certain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { issueKey } from '../../stores/key-store.js';
import { readPartnersFile, savePartner } from '../../stores/partners.js';
import { runPartnersCli } from '../../cli/partners.js';
import { Redis } from 'ioredis';
import { QUOTA_KEY_PREFIX } from '../../cache/partner-quota.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { scrape } from '../../scripts/harness/metrics-text.js';
import { startMain, up, type Started } from '../support/main-process.js';
import { startReferenceUpstream, type ReferenceUpstream } from '../../sources/reference-upstream/server.js';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';

const UTILITIES = '{ utilities(zipCode: "75001") { id } }';
const PLANS = 'query P($u: Int!) { residentialPlans(zipCode: "75001", monthlyUsage: $u) { id } }';

async function post(port: number, key: string, query: string, variables?: Record<string, unknown>) {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text) };
}

function cli(args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  return runPartnersCli(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) }).then((code) => ({ code, out, err }));
}

describe('partner quotas across two gateway processes on one Redis', () => {
  let redis: TestRedis;
  let dir: string;
  let env: Record<string, string>;
  let acme: string;
  let beta: string;
  const gateways: Started[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-quota-'));
    const keysFile = path.join(dir, 'keys.json');
    env = { KEYS_FILE: keysFile, PARTNERS_FILE: path.join(dir, 'partners.json'), DATA_DIR: dir };
    acme = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
    beta = (await issueKey(keysFile, { environment: 'production', partnerCode: 'BETA' })).key;
    await savePartner(env.PARTNERS_FILE!, { code: 'ACME', name: 'Acme', contact: 'ops@acme.example' }, { actor: 'test' });
    expect((await cli(['quota', '--partner', 'acme', '--env', 'production', '--rate', '1', '--burst', '10'], env)).code).toBe(0);
    for (let i = 0; i < 2; i++) {
      gateways.push(
        await startMain({
          ...env,
          DATA_DIR: path.join(dir, `gw${i}`),
          REDIS_URL: redis.url,
          ENVIRONMENTS: 'production',
          PLAYGROUND_PROCESS: 'off',
          ADMIN_PROCESS: 'off',
          LOG_LEVEL: 'warn',
        }),
      );
    }
    for (const g of gateways) await eventually(() => up(g.ports.production), 120_000, 250);
  }, 180_000);

  afterAll(async () => {
    for (const g of gateways) {
      g.proc.kill('SIGTERM');
      await g.exited;
    }
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is exact across the two: a burst of 10, then 1 a second, refusals counted once and costing nothing', async () => {
    const [a, b] = gateways.map((g) => g.ports.production) as [number, number];
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => post(i % 2 ? a : b, acme, UTILITIES)));
    const seconds = (Date.now() - started) / 1000;
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    expect(ok.length + refused.length).toBe(30);
    // The burst, plus what the rate refilled while the 30 were answered: never more.
    expect(ok.length).toBeGreaterThanOrEqual(10);
    expect(ok.length).toBeLessThanOrEqual(10 + Math.ceil(seconds));
    for (const r of answers) expect(r.headers.get('ratelimit-policy')).toBe('"default";q=10;w=10');
    for (const r of refused) {
      expect(r.json.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', reason: 'PARTNER_QUOTA' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
    }
    // Each refusal once in the metrics of the instance that answered it, each allowed request once.
    const metrics = await Promise.all(gateways.map((g) => scrape(`http://127.0.0.1:${g.ports.ops}/metrics`)));
    const sum = (result: string) =>
      metrics.reduce((n, m) => n + m('gateway_partner_requests_total', { environment: 'production', partner: 'ACME', result }), 0);
    expect(sum('refused_quota')).toBe(refused.length);
    expect(sum('allowed')).toBe(ok.length);
    // Another partner (the default quota) is not touched by ACME's.
    const other = await post(a, beta, UTILITIES);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-policy')).toBe('"default";q=200;w=4');
    // Refused requests took nothing: after Retry-After, the refilled quota lets requests through.
    const wait = Math.max(...refused.map((r) => Number(r.headers.get('retry-after'))));
    await new Promise((r) => setTimeout(r, wait * 1000 + 100));
    expect((await post(b, acme, UTILITIES)).status).toBe(200);
  });

  it('applies a changed quota without a restart, on both', async () => {
    const ports = gateways.map((g) => g.ports.production);
    expect((await cli(['quota', '--partner', 'ACME', '--env', 'production', '--unlimited'], env)).code).toBe(0);
    for (const port of ports)
      await eventually(async () => {
        const r = await post(port, acme, UTILITIES);
        return r.status === 200 && r.headers.get('ratelimit-policy') === null;
      });
    expect((await cli(['quota', '--partner', 'ACME', '--env', 'production', '--rate', '2', '--burst', '3'], env)).code).toBe(0);
    for (const port of ports)
      await eventually(async () => (await post(port, acme, UTILITIES)).headers.get('ratelimit-policy') === '"default";q=3;w=2');
  });

  it('refuses bad values with a clear error and leaves the record as it was', async () => {
    const before = await readPartnersFile(env.PARTNERS_FILE!);
    const cases: [string[], RegExp][] = [
      [['--rate=-1', '--burst', '5'], /whole number from 1 to 10,000, not "-1"/],
      [['--rate', '0', '--burst', '5'], /at least 1 \(use "unlimited"/],
      [['--rate', '5', '--burst', '0'], /burst must be at least 1/],
      [['--rate', '99999999999', '--burst', '5'], /at most 10,000/],
      [['--rate', '5', '--burst', '1000000'], /burst is at most 100,000/],
      [['--rate', 'fast', '--burst', '5'], /not "fast"/],
      [['--rate', '2.5', '--burst', '5'], /not "2.5"/],
      [['--rate', '1e3', '--burst', '5'], /not "1e3"/],
      [['--rate', '5'], /burst is required/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(['quota', '--partner', 'ACME', '--env', 'production', ...args], env);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.err.join('\n')).toMatch(message);
      expect(r.err.join('\n')).not.toMatch(/\n\s+at /);
    }
    const usage = [
      [['--env', 'staging', '--unlimited'], 1, /production or certification/],
      [['--env', 'production', '--unlimited', '--rate', '3', '--burst', '3'], 2, /either --rate and --burst, or --unlimited, or --default/],
      [['--rate', '3', '--burst', '3'], 2, /needs --env/],
    ] as const;
    for (const [args, code, message] of usage) {
      const r = await cli(['quota', '--partner', 'ACME', ...args], env);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.err.join('\n')).toMatch(message);
    }
    expect((await cli(['quota', '--partner', 'NOPE', '--env', 'production', '--unlimited'], env)).err.join('\n')).toMatch(
      /no partner NOPE/,
    );
    expect(await readPartnersFile(env.PARTNERS_FILE!)).toEqual(before);
  });

  it('fails open while Redis is down: each process counts in its own memory, partners are answered, and Redis counts again once back', async () => {
    const [a, b] = gateways.map((g) => g.ports.production) as [number, number];
    // ACME's quota is 2 a second with a burst of 3 (the test before left it so).
    await redis.stop();
    try {
      for (const port of [a, b]) {
        const started = Date.now();
        const answers = [];
        for (let i = 0; i < 8; i++) answers.push(await post(port, acme, UTILITIES));
        const seconds = (Date.now() - started) / 1000;
        const ok = answers.filter((r) => r.status === 200);
        // Never a server error: the partner is answered, by data or by its own quota.
        for (const r of answers) expect([200, 429]).toContain(r.status);
        for (const r of ok) expect(r.json.data.utilities.length).toBeGreaterThan(0);
        for (const r of answers.filter((x) => x.status === 429))
          expect(r.json.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', reason: 'PARTNER_QUOTA' });
        // This process's own bucket: the burst, plus what the rate refilled meanwhile.
        expect(ok.length).toBeGreaterThanOrEqual(3);
        expect(ok.length).toBeLessThanOrEqual(3 + Math.ceil(2 * seconds));
      }
    } finally {
      await redis.start();
    }
    const client = new Redis(redis.url);
    try {
      await eventually(
        async () => {
          await post(a, acme, UTILITIES);
          return (await client.keys(`${QUOTA_KEY_PREFIX}*`)).length > 0;
        },
        30_000,
        250,
      );
    } finally {
      client.disconnect();
    }
  });
});

describe('fair share of uncached executions', () => {
  let upstream: ReferenceUpstream;
  let gw: TestGateway;
  let beta: string;

  beforeAll(async () => {
    upstream = await startReferenceUpstream({ port: 0, host: '127.0.0.1' });
    gw = await startTestGateway({
      UPSTREAM_URL: upstream.url,
      START_REFERENCE_UPSTREAM: 'false',
      PARTNER_EXECUTIONS: '4',
      PARTNER_EXECUTION_SHARE: '2',
      PARTNER_QUEUE: '3',
    });
    beta = (await issueKey(path.join(gw.dataDir, 'keys.json'), { environment: 'production', partnerCode: 'BETA' })).key;
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  it("queues a partner's burst behind its own executions, refuses it past its queue, and lets another partner and cache hits through", async () => {
    const port = Number(new URL(gw.g.urls.production!).port);
    expect((await post(port, gw.keys.production, UTILITIES)).status).toBe(200); // now cached
    upstream.setFault('voltify', { kind: 'slow', ms: 1500 });
    try {
      const burst = Promise.all(Array.from({ length: 12 }, (_, i) => post(port, gw.keys.production, PLANS, { u: 700 + i })));
      await new Promise((r) => setTimeout(r, 300));
      const [other, hit] = await Promise.all([post(port, beta, PLANS, { u: 999 }), post(port, gw.keys.production, UTILITIES)]);
      expect(other.status).toBe(200);
      expect(hit.status).toBe(200);
      expect(hit.headers.get('x-cache')).toBe('HIT');
      const answers = await burst;
      // 2 running and 3 waiting at most: the other 7 refused at once.
      const refused = answers.filter((r) => r.status === 429);
      expect(refused).toHaveLength(7);
      expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
      for (const r of refused) {
        expect(r.json.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', reason: 'PARTNER_CONCURRENCY', retryAfterSeconds: 1 });
        expect(r.headers.get('retry-after')).toBe('1');
        expect(r.headers.get('ratelimit-policy')).toBe('"default";q=200;w=4');
      }
    } finally {
      upstream.setFault('voltify', null);
    }
  });
});
