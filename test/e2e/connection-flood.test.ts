// Partners are served through a connection flood: one address holding thousands of silent sockets
// on a keyed listener (reconnecting each one that is closed) leaves another address's keyed
// requests all answered, whether the flood meets the per-address cap (the default, where the sockets
// over it are held unread rather than closed and reconnected) or, with that cap off, the listener's
// own cap, where never-requested sockets are shed oldest first. Either defence is counted on
// /metrics and logged at warn, throttled, with the flooding address.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { captureLog } from '../../scripts/harness/log-capture.js';
import { scrape } from '../../scripts/harness/metrics-text.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { startSocketFlood } from '../../scripts/harness/socket-flood.js';

const PLANS = '{ residentialPlans(zipCode: "75001", monthlyUsage: 1000) { id } }';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** One keyed request on a new connection from 127.0.0.2: the status, or the socket error's code. */
function partnerRequest(url: string, key: string): Promise<number | string> {
  const u = new URL(url);
  const body = JSON.stringify({ query: PLANS });
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        localAddress: '127.0.0.2',
        agent: false,
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'content-length': Buffer.byteLength(body) },
        timeout: 15_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end(body);
  });
}

async function partnerRun(t: TestGateway, n: number): Promise<Record<string, number>> {
  const outcomes: Record<string, number> = {};
  for (let i = 0; i < n; i += 4) {
    const batch = await Promise.all(Array.from({ length: 4 }, () => partnerRequest(t.g.urls.production!, t.keys.production)));
    for (const o of batch) outcomes[o] = (outcomes[o] ?? 0) + 1;
  }
  return outcomes;
}

async function floodAndServe(env: Record<string, string>, count: number, reason: string) {
  const log = captureLog('warn');
  const ops = await freePort();
  const t = await startTestGateway({ REDIS_URL: redis.url, OPS_PORT: String(ops), ...env }, { logger: log.logger });
  const u = new URL(t.g.urls.production!);
  // Each closed socket reconnects after 500 ms: the flood shares this process (and 2 cores) with the gateway.
  const flood = startSocketFlood({ host: u.hostname, port: Number(u.port), count, localAddress: '127.0.0.3', reconnectMs: 500 });
  try {
    // Every flood socket was accepted or refused once before partners start.
    await eventually(async () => flood.open + flood.closedByServer >= count, 30_000, 100);
    const outcomes = await partnerRun(t, 140);
    const refused = (await scrape(`http://127.0.0.1:${ops}/metrics`))('gateway_connections_refused_total', {
      environment: 'production',
      reason,
    });
    const warnings = log.lines.filter((l) => l.reason === reason && l.environment === 'production');
    return { outcomes, closedByServer: flood.closedByServer, refused, warnings };
  } finally {
    flood.stop();
    await t.close();
  }
}

describe('keyed listener under a silent-socket flood', () => {
  it('default per-address cap: 4,200 silent sockets from one address, partner requests from another all answered', async () => {
    const { outcomes, closedByServer, refused, warnings } = await floodAndServe({}, 4200, 'per_ip_cap');
    expect(outcomes).toEqual({ 200: 140 });
    expect(refused).toBeGreaterThanOrEqual(4200 - 512);
    // The 3,688 over the cap are held unread (at least the 10 s headers timeout), not closed and
    // reconnected over and over: closed at once, each would have come back every 500 ms.
    expect(closedByServer).toBeLessThan(100);
    // Thousands of refusals, a handful of lines: each names the address and the cap.
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.length).toBeLessThan(refused / 10);
    expect(warnings[0]).toMatchObject({ level: 40, remoteAddress: '127.0.0.3', maxConnectionsPerIp: 512 });
  }, 120_000);

  it('per-address cap off: at the listener cap, never-requested sockets are shed oldest first and partners get in', async () => {
    const { outcomes, closedByServer, refused, warnings } = await floodAndServe(
      { KEYED_MAX_CONNECTIONS_PER_IP: '0', KEYED_MAX_CONNECTIONS: '300' },
      400,
      'silent_shed',
    );
    expect(outcomes).toEqual({ 200: 140 });
    expect(closedByServer).toBeGreaterThanOrEqual(100);
    expect(refused).toBeGreaterThanOrEqual(100);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatchObject({ level: 40, remoteAddress: '127.0.0.3', maxConnections: 300 });
  }, 120_000);
});
