// Logs and metrics end to end: a real gateway (Redis, keys, allowance, cache, reference upstream)
// with its logs captured in memory, the ops endpoint scraped after a few requests; a second gateway
// in the same process to show the registries do not clash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { register as globalRegistry } from 'prom-client';
import { launchGateway as startGateway } from '../../start/launch.js';
import type { GatewayHandle } from '../../start/app.js';
import { issueKey } from '../../stores/key-store.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';

const PLANS = 'query Plans($zip: String!) { residentialPlans(zipCode: $zip) { title price supplier { name } } }';
const ACCOUNTS = 'query Accounts($address: String!, $zip: String!) { utilityAccounts(address: $address, zipCode: $zip) { utilityId } }';
const ADDRESS = '1500 MARILLA ST';

interface Captured {
  lines: Record<string, any>[];
  raw: string[];
}

function memoryLogger(level = 'debug'): { logger: pino.Logger; captured: Captured } {
  const captured: Captured = { lines: [], raw: [] };
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) {
        if (!l) continue;
        captured.raw.push(l);
        captured.lines.push(JSON.parse(l));
      }
      cb();
    },
  });
  return { logger: pino({ level }, stream), captured };
}

async function post(url: string, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Sum of a metric's samples whose labels include `match`. */
function sample(text: string, name: string, match: Record<string, string> = {}): number | null {
  let found: number | null = null;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const lm of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[lm[1]!] = lm[2]!;
    if (Object.entries(match).every(([k, v]) => labels[k] === v)) found = (found ?? 0) + Number(m[3]);
  }
  return found;
}

describe('observability', () => {
  let redis: TestRedis;
  let g: GatewayHandle;
  let g2: GatewayHandle;
  let captured: Captured;
  let opsUrl: string;
  let opsUrl2: string;
  let metricsText: string;
  let key: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-obs-'));
    dirs.push(dataDir);
    const keysFile = path.join(dataDir, 'keys.json');
    key = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
    const mem = memoryLogger();
    captured = mem.captured;
    g = await startGateway({
      logger: mem.logger,
      env: {
        PATH: process.env.PATH,
        PRODUCTION_PORT: '0',
        CERTIFICATION_PORT: '0',
        PLAYGROUND_PORT: '0',
        UPSTREAM_PORT: '0',
        OPS_PORT: '0',
        DATA_DIR: dataDir,
        KEYS_FILE: keysFile,
        REDIS_URL: redis.url,
        PLAYGROUND_ALLOWANCE: '2',
      },
    });
    const opsLine = captured.lines.find((l) => /ops endpoint/.test(l.msg));
    opsUrl = String(opsLine?.url ?? '').replace(/\/metrics$/, '');

    // A second gateway in the same process (no Redis): its own registry and ops port.
    const dataDir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-obs2-'));
    dirs.push(dataDir2);
    const mem2 = memoryLogger('info');
    g2 = await startGateway({
      logger: mem2.logger,
      env: {
        PATH: process.env.PATH,
        PRODUCTION_PORT: '0',
        CERTIFICATION_PORT: '0',
        PLAYGROUND_PORT: '0',
        UPSTREAM_PORT: '0',
        OPS_PORT: '0',
        DATA_DIR: dataDir2,
        KEYS_FILE: path.join(dataDir2, 'keys.json'),
      },
    });

    opsUrl2 = String(mem2.captured.lines.find((l) => /ops endpoint/.test(l.msg))?.url ?? '').replace(/\/metrics$/, '');

    const prod = g.urls.production!;
    const play = g.urls.playground!;
    const keyed = { 'x-api-key': key };
    expect((await post(prod, PLANS, { zip: '75001' }, { ...keyed, 'x-request-id': 'obs-test-miss-0001' })).headers.get('x-cache')).toBe(
      'MISS',
    );
    expect((await post(prod, PLANS, { zip: '75001' }, { ...keyed, 'x-request-id': 'obs-test-hit-00001' })).headers.get('x-cache')).toBe(
      'HIT',
    );
    expect(
      (await post(prod, ACCOUNTS, { address: ADDRESS, zip: '75201' }, { ...keyed, 'x-request-id': 'obs-test-address-1' })).status,
    ).toBe(200);
    expect(
      (
        await post(
          prod,
          PLANS,
          { zip: '75001' },
          { 'x-api-key': `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`, 'x-request-id': 'obs-test-refused-1' },
        )
      ).status,
    ).toBe(403);
    expect((await post(play, PLANS, { zip: '75001' }, { 'x-request-id': 'obs-test-play-0001' })).status).toBe(200);
    expect((await post(play, '{ __schema { queryType { name } } }', {})).status).toBe(200);
    expect((await post(play, PLANS, { zip: '19103' })).status).toBe(200);
    expect((await post(play, PLANS, { zip: '75001' }, { 'x-request-id': 'obs-test-play-0429' })).status).toBe(429);
    expect((await fetch(prod.replace('/graphql', '/healthz'))).status).toBe(200);
    metricsText = await (await fetch(`${opsUrl}/metrics`)).text();
  });

  afterAll(async () => {
    await g2?.close();
    await g?.close();
    await redis?.stop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  const requestLine = (id: string) => captured.lines.find((l) => l.msg === 'request' && l.requestId === id);

  it('logs the ops endpoint URL and serves /healthz there', async () => {
    expect(opsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${opsUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', redis: 'up' });
    expect((await fetch(`${opsUrl}/nope`)).status).toBe(404);
  });

  it('writes one log line per request with the documented fields', () => {
    const ids = [
      'obs-test-miss-0001',
      'obs-test-hit-00001',
      'obs-test-address-1',
      'obs-test-refused-1',
      'obs-test-play-0001',
      'obs-test-play-0429',
    ];
    for (const id of ids) expect(captured.lines.filter((l) => l.msg === 'request' && l.requestId === id)).toHaveLength(1);

    const miss = requestLine('obs-test-miss-0001')!;
    expect(miss).toMatchObject({
      level: 30,
      environment: 'production',
      partnerCode: 'ACME',
      clientIp: '127.0.0.1',
      method: 'POST',
      path: '/graphql',
      operationName: 'Plans',
      rootFields: ['residentialPlans'],
      status: 200,
      cache: 'MISS',
    });
    expect(typeof miss.durationMs).toBe('number');
    const feeds = (miss.upstream as { feed: string }[]).map((c) => c.feed).sort();
    expect(feeds).toEqual(['Brightgrid', 'Territories', 'Voltify']);
    for (const c of miss.upstream) {
      expect(c).toMatchObject({ status: 200 });
      expect(typeof c.ms).toBe('number');
      expect(c.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      expect(c.url).not.toContain('?');
    }

    const hit = requestLine('obs-test-hit-00001')!;
    expect(hit).toMatchObject({ cache: 'HIT', status: 200, partnerCode: 'ACME' });
    expect(hit.upstream).toBeUndefined();

    expect(requestLine('obs-test-refused-1')).toMatchObject({ status: 403, partnerCode: null, auth: 'unknown' });
    expect(requestLine('obs-test-play-0001')).toMatchObject({
      environment: 'playground',
      status: 200,
      allowance: { counted: true, remaining: 1 },
    });
    expect(requestLine('obs-test-play-0429')).toMatchObject({
      environment: 'playground',
      status: 429,
      allowance: { counted: false, reason: 'exhausted', remaining: 0 },
    });
    // Health probes: debug level, not info.
    expect(captured.lines.find((l) => l.msg === 'request' && l.path === '/healthz')).toMatchObject({ level: 20 });
  });

  it('never logs a key, an address, variables or a response body', () => {
    const all = captured.raw.join('\n');
    expect(all).not.toContain(key);
    expect(all).not.toContain(key.slice(9, 30));
    expect(all).not.toMatch(/MARILLA/i);
    expect(all).not.toContain('"variables"');
    expect(all).not.toContain('"data"');
    expect(all).not.toContain('supplier');
    const address = requestLine('obs-test-address-1')!;
    expect(address).toMatchObject({ addressGiven: true, rootFields: ['utilityAccounts'], status: 200 });
    for (const c of address.upstream ?? []) expect(c.url).not.toContain('?');
  });

  it('serves Prometheus metrics with the documented names and values', () => {
    const t = metricsText;
    // Three GraphQL answers and the /healthz probe.
    expect(sample(t, 'gateway_requests_total', { environment: 'production', status: '200' })).toBe(4);
    expect(sample(t, 'gateway_requests_total', { environment: 'production', status: '403' })).toBe(1);
    expect(sample(t, 'gateway_requests_total', { environment: 'playground', status: '429' })).toBe(1);
    expect(sample(t, 'gateway_request_duration_seconds_count', { environment: 'production' })).toBeGreaterThanOrEqual(4);
    expect(sample(t, 'gateway_request_duration_seconds_bucket', { environment: 'production', le: '+Inf' })).toBeGreaterThanOrEqual(4);
    expect(sample(t, 'gateway_cache_hits_total', { environment: 'production' })).toBe(1);
    expect(sample(t, 'gateway_cache_misses_total', { environment: 'production' })).toBe(1);
    expect(sample(t, 'gateway_cache_hit_ratio', { environment: 'production' })).toBe(0.5);
    expect(sample(t, 'gateway_upstream_request_duration_seconds_count', { feed: 'Voltify' })).toBeGreaterThanOrEqual(1);
    expect(sample(t, 'gateway_upstream_request_duration_seconds_bucket', { feed: 'Territories', le: '+Inf' })).toBeGreaterThanOrEqual(1);
    expect(t).toContain('# TYPE gateway_upstream_errors_total counter');
    expect(sample(t, 'gateway_upstream_circuit_breaker_state', { feed: 'Voltify' })).toBe(0);
    expect(sample(t, 'gateway_upstream_calls_total', { feed: 'Brightgrid' })).toBeGreaterThanOrEqual(1);
    expect(sample(t, 'gateway_playground_calls_total', { result: 'counted' })).toBe(2);
    expect(sample(t, 'gateway_playground_calls_total', { result: 'refused' })).toBe(1);
    expect(sample(t, 'gateway_playground_calls_total', { result: 'free' })).toBe(1);
    expect(sample(t, 'gateway_redis_up')).toBe(1);
    expect(sample(t, 'gateway_replay_records_total', { outcome: 'dropped' })).not.toBeNull();
    expect(sample(t, 'gateway_response_cache_events_total', { event: 'lru_hits' })).toBeGreaterThanOrEqual(1);
    // prom-client's default process metrics.
    expect(sample(t, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(t, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('keeps each gateway in its own registry', async () => {
    expect(globalRegistry.getSingleMetric('gateway_requests_total')).toBeUndefined();
    expect(opsUrl2).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(opsUrl2).not.toBe(opsUrl);
    expect((await post(g2.urls.playground!, '{ __typename }', {})).status).toBe(200);
    const second = await (await fetch(`${opsUrl2}/metrics`)).text();
    expect(sample(second, 'gateway_requests_total', { environment: 'playground', status: '200' })).toBe(1);
    // Without Redis there is no gateway_redis_up.
    expect(sample(second, 'gateway_redis_up')).toBeNull();
    // The first gateway's counters did not move with the second one's traffic.
    const first = await (await fetch(`${opsUrl}/metrics`)).text();
    expect(sample(first, 'gateway_requests_total', { environment: 'playground', status: '200' })).toBe(
      sample(metricsText, 'gateway_requests_total', { environment: 'playground', status: '200' }),
    );
  });
});
