// WORKERS=N: the real entry point as a cluster of N workers sharing each listener's port, on a real
// Redis. What one address may do stays exact across workers, a dead worker is started again in its
// slot without losing shared state, /metrics sums every worker, and SIGTERM drains them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { issueKey } from '../../stores/key-store.js';
import { alive, spawnMain, type Spawned } from '../support/main-process.js';

const WORKERS = 4;

describe(`WORKERS=${WORKERS} on Redis`, () => {
  let redis: TestRedis;
  let s: Spawned;
  let key: string;
  const ports = { production: 0, playground: 0, ops: 0 };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-workers-'));

  const post = (environment: 'production' | 'playground', headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${ports[environment]}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(environment === 'production' ? { 'x-api-key': key } : {}), ...headers },
      body: JSON.stringify({ query: '{ utilities(zipCode: "75001") { id } }' }),
    });
  const workerStarts = () => s.lines.filter((l) => l.msg === 'worker started') as { worker: number; pid: number }[];
  const metric = async (name: string, labels = '') => {
    const text = await (await fetch(`http://127.0.0.1:${ports.ops}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
    return line ? Number(line.split(' ').at(-1)) : null;
  };

  beforeAll(async () => {
    redis = await startTestRedis();
    const keysFile = path.join(dataDir, 'keys.json');
    key = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
    Object.assign(ports, { production: await freePort(), playground: await freePort(), ops: await freePort() });
    s = spawnMain({
      WORKERS: String(WORKERS),
      REDIS_URL: redis.url,
      DATA_DIR: dataDir,
      KEYS_FILE: keysFile,
      LOG_LEVEL: 'info',
      PLAYGROUND_PROCESS: 'off',
      PRODUCTION_PORT: String(ports.production),
      CERTIFICATION_PORT: String(await freePort()),
      PLAYGROUND_PORT: String(ports.playground),
      UPSTREAM_PORT: String(await freePort()),
      OPS_PORT: String(ports.ops),
      // Each test is its own client address behind one proxy; no per-address socket cap.
      TRUST_PROXY: '1',
      PLAYGROUND_MAX_CONNECTIONS_PER_IP: '0',
      SHUTDOWN_GRACE_MS: '2000',
      // The restart test sends thousands of keyed requests a second: no partner quota in the way.
      PARTNER_QUOTA_DEFAULT: 'unlimited',
    });
    await eventually(async () => s.lines.some((l) => l.msg === 'workers ready') || s.proc.exitCode !== null, 180_000, 250);
    if (s.proc.exitCode !== null) throw new Error(`the gateway exited: ${s.stderr()}`);
  }, 200_000);

  afterAll(async () => {
    if (s?.proc.exitCode === null) s.proc.kill('SIGKILL');
    for (const w of workerStarts()) if (alive(w.pid)) process.kill(w.pid, 'SIGKILL');
    await redis?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts one worker per slot, each a process of its own', async () => {
    const starts = workerStarts();
    expect(starts.map((w) => w.worker).sort()).toEqual([1, 2, 3, 4]);
    expect(new Set(starts.map((w) => w.pid)).size).toBe(WORKERS);
    expect(starts.every((w) => w.pid !== s.proc.pid)).toBe(true);
    const health = (await (await fetch(`http://127.0.0.1:${ports.ops}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', workers: WORKERS, workersConfigured: WORKERS });
  });

  it('40 concurrent playground calls from one address across the workers: 10 answered, 30 refused', async () => {
    const ip = '203.0.113.7';
    const answers = await Promise.all(Array.from({ length: 40 }, () => post('playground', { 'x-forwarded-for': ip })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((x) => x === 200)).toHaveLength(10);
    expect(statuses.filter((x) => x === 429)).toHaveLength(30);
    // They were spread over the workers (each request line names the worker that answered it).
    await eventually(async () => s.lines.filter((l) => l.msg === 'request' && l.clientIp === ip).length === 40, 5000);
    const answeredBy = new Set(s.lines.filter((l) => l.msg === 'request' && l.clientIp === ip).map((l) => l.worker));
    expect(answeredBy.size).toBeGreaterThan(1);
  });

  it('/metrics on the ops port sums every worker', async () => {
    const before = (await metric('gateway_requests_total', '{environment="production",status="200"}')) ?? 0;
    for (let i = 0; i < 12; i++) expect((await post('production')).status).toBe(200);
    await eventually(async () => (await metric('gateway_requests_total', '{environment="production",status="200"}')) === before + 12, 5000);
    expect(await metric('gateway_workers')).toBe(WORKERS);
  });

  it('a killed worker is started again in its slot; shared state survives, only its in-flight requests fail', async () => {
    const victim = workerStarts().find((w) => w.worker === 2)!;
    // Spend another address's allowance first: the restart must not refill it.
    const ip = '203.0.113.8';
    for (let i = 0; i < 10; i++) expect((await post('playground', { 'x-forwarded-for': ip })).status).toBe(200);
    let stop = false;
    const outcomes: (number | 'connection lost')[] = [];
    const traffic = (async () => {
      while (!stop)
        outcomes.push(
          await post('production').then(
            (r) => r.status,
            () => 'connection lost' as const,
          ),
        );
    })();
    await new Promise((r) => setTimeout(r, 300));
    process.kill(victim.pid, 'SIGKILL');
    await eventually(async () => workerStarts().filter((w) => w.worker === 2).length === 2, 60_000, 100);
    await eventually(async () => (await metric('gateway_workers')) === WORKERS, 120_000, 250);
    stop = true;
    await traffic;
    const restarted = workerStarts().filter((w) => w.worker === 2)[1]!;
    expect(restarted.pid).not.toBe(victim.pid);
    expect(s.lines.some((l) => l.msg === 'worker exited: starting it again' && l.pid === victim.pid)).toBe(true);
    // Every request got an answer but those the dead worker held when it died.
    expect(outcomes.filter((o) => o !== 200 && o !== 'connection lost')).toEqual([]);
    expect(outcomes.filter((o) => o === 'connection lost').length).toBeLessThanOrEqual(2);
    expect(outcomes.filter((o) => o === 200).length).toBeGreaterThan(10);
    // The allowance lives in Redis: still used up, on whichever worker answers.
    for (let i = 0; i < 8; i++) expect((await post('playground', { 'x-forwarded-for': ip })).status).toBe(429);
    expect(await metric('gateway_worker_restarts_total')).toBe(1);
  }, 180_000);

  it('SIGTERM drains every worker and the primary exits 0', async () => {
    const workers = workerStarts().map((w) => w.pid);
    // On a connection of its own, accepted before the signal: a pooled keep-alive connection that
    // a worker closes as idle at the moment the request goes out is the client's race (RFC 9112
    // section 9.3.1), not a request the drain dropped.
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: ports.production, path: '/graphql', method: 'POST', agent: false }, (res) =>
        res.resume().on('end', () => resolve(res.statusCode!)),
      );
      req.setHeader('content-type', 'application/json');
      req.setHeader('x-api-key', key);
      req.on('error', reject);
      req.on('socket', (socket) => socket.once('connect', () => setTimeout(() => s.proc.kill('SIGTERM'), 20)));
      req.end(JSON.stringify({ query: '{ utilities(zipCode: "75001") { id } }' }));
    });
    expect(await inFlight).toBe(200);
    expect(await s.exited).toBe(0);
    await eventually(async () => workers.every((pid) => !alive(pid)), 20_000, 100);
    expect(s.lines.filter((l) => l.msg === 'shut down cleanly').length).toBeGreaterThanOrEqual(WORKERS + 1);
  }, 60_000);
});

describe('WORKERS without Redis', () => {
  it('is refused at start with a message naming REDIS_URL', async () => {
    const s = spawnMain({ WORKERS: '2', LOG_LEVEL: 'silent', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'epg-workers-')) });
    // 78 (EX_CONFIG): a start refused by its settings, which a supervisor should not retry.
    expect(await s.exited).toBe(78);
    expect(s.stderr()).toMatch(/WORKERS=2 needs REDIS_URL/);
    expect(s.stderr()).not.toMatch(/\n\s+at /);
  }, 60_000);
});
