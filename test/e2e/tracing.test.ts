// OpenTelemetry traces end to end: a real gateway (Redis, keys, allowance, cache, replay) exporting
// to a real OTLP/HTTP receiver started here, its feeds behind a recording proxy in front of the
// reference upstream (to see the traceparent each feed receives). Checks the span tree and its
// attributes, the partner's trace linked (default) or continued, the trace id in the log line and
// the replay record, and that no street address or account id is in anything exported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startGateway, type GatewayHandle } from '../../start/app.js';
import { loadConfig } from '../../start/config.js';
import { issueKey } from '../../stores/key-store.js';
import { listen } from '../../server/http/listen.js';
import { connectRedis, type RedisClient } from '../../cache/redis-connection.js';
import { createReplayStore, type ReplayStore } from '../../stores/replay-store.js';
import { startReferenceUpstream, type ReferenceUpstream } from '../../sources/reference-upstream/server.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../scripts/harness/otlp-receiver.js';
import { eventually } from '../../scripts/harness/eventually.js';

const PLANS = 'query Plans($zip: String!) { residentialPlans(zipCode: $zip) { title price supplier { name } } }';
const ACCOUNTS =
  'query Accounts($address: String!, $zip: String!) { utilityAccounts(address: $address, zipCode: $zip) { accountId serviceAddress { line1 } } }';
const ADDRESS = '1500 MARILLA ST';
const PARTNER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARTNER_SPAN = '00f067aa0ba902b7';
const PARTNER_TRACEPARENT = `00-${PARTNER_TRACE}-${PARTNER_SPAN}-01`;

interface Recorded {
  url: string;
  traceparent: string | undefined;
}

/** A proxy in front of the reference upstream that records each feed request's traceparent. */
async function recordingProxy(upstream: string): Promise<{ url: string; seen: Recorded[]; close(): Promise<void> }> {
  const seen: Recorded[] = [];
  const server = http.createServer(async (req, res) => {
    seen.push({ url: req.url ?? '', traceparent: req.headers.traceparent as string | undefined });
    try {
      const r = await fetch(`${upstream}${req.url}`, { method: req.method, headers: { accept: 'application/json' } });
      const headers: Record<string, string> = { 'content-type': r.headers.get('content-type') ?? 'application/json' };
      const cc = r.headers.get('cache-control');
      if (cc) headers['cache-control'] = cc;
      res.writeHead(r.status, headers).end(await r.text());
    } catch {
      res.writeHead(502).end();
    }
  });
  const l = await listen(server, 0, '127.0.0.1');
  return { url: l.url, seen, close: l.close };
}

function memoryLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function post(url: string, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, any> };
}

/** The request span of a request id, once the receiver has it, and every span of its trace. */
async function traceOf(receiver: OtlpReceiver, requestId: string): Promise<{ root: ReceivedSpan; spans: ReceivedSpan[] }> {
  const root = await eventually(async () => receiver.spans.find((s) => s.kind === 2 && s.attributes['gateway.request.id'] === requestId));
  // The request span ends last: its children were exported with it or before.
  const spans = receiver.spans.filter((s) => s.traceId === root.traceId);
  return { root, spans };
}

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);

describe('OpenTelemetry traces', () => {
  let redis: TestRedis;
  let receiver: OtlpReceiver;
  let upstream: ReferenceUpstream;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let g: GatewayHandle;
  let continuing: GatewayHandle;
  let logLines: Record<string, unknown>[];
  let reader: RedisClient;
  let store: ReplayStore;
  let key: string;
  let tmp: string;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-tracing-'));
    [redis, receiver, upstream] = await Promise.all([
      startTestRedis(),
      startOtlpReceiver(),
      startReferenceUpstream({ port: 0, host: '127.0.0.1', loadZipDatabase: true }),
    ]);
    proxy = await recordingProxy(upstream.url);
    const keysFile = path.join(tmp, 'keys.json');
    key = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
    const env = {
      PRODUCTION_PORT: '0',
      CERTIFICATION_PORT: '0',
      PLAYGROUND_PORT: '0',
      OPS_PORT: '0',
      DATA_DIR: path.join(tmp, 'data'),
      KEYS_FILE: keysFile,
      REDIS_URL: redis.url,
      UPSTREAM_URL: proxy.url,
      PLAYGROUND_PROCESS: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'gateway-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test,team=energy%20plans',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    };
    const mem = memoryLogger();
    logLines = mem.lines;
    g = await startGateway({ env, logger: mem.logger });
    continuing = await startGateway({
      env: {
        ...env,
        ENVIRONMENTS: 'production',
        TRACE_INCOMING_PARENT: 'continue',
        DATA_DIR: path.join(tmp, 'data2'),
        LOG_LEVEL: 'silent',
      },
    });
    reader = await connectRedis(redis.url);
    store = createReplayStore({ redis: reader, dataDir: tmp, settings: loadConfig(env).cacheReplay.replay });
  }, 60_000);

  afterAll(async () => {
    for (const x of [g, continuing]) await x?.close().catch(() => {});
    await store?.close().catch(() => {});
    reader?.disconnect();
    await Promise.all([proxy?.close(), upstream?.close(), receiver?.close(), redis?.stop()]);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('exports the request, GraphQL, cache and feed spans with their parents, and sends traceparent to the feeds', async () => {
    const r = await post(g.urls.production!, PLANS, { zip: '75001' }, { 'x-api-key': key, 'x-request-id': 'trace-miss-0001' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBe('MISS');
    const { root, spans } = await traceOf(receiver, 'trace-miss-0001');

    expect(root.name).toBe('POST /graphql');
    expect(root.parentSpanId).toBe('');
    expect(root.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/graphql',
      'url.path': '/graphql',
      'url.scheme': 'http',
      'http.response.status_code': 200,
      'gateway.environment': 'production',
      'gateway.partner.code': 'ACME',
      'graphql.operation.name': 'Plans',
      'graphql.operation.type': 'query',
      'gateway.graphql.root_fields': ['residentialPlans'],
      'gateway.cache.result': 'miss',
    });
    expect(root.resource).toMatchObject({
      'service.name': 'gateway-under-test',
      'deployment.environment.name': 'test',
      team: 'energy plans',
    });

    const direct = childrenOf(spans, root).map((s) => s.name);
    expect(direct).toEqual(
      expect.arrayContaining(['graphql.parse', 'graphql.validate', 'gateway.cache.lookup', 'graphql.execute', 'gateway.replay.record']),
    );
    const lookup = spans.find((s) => s.name === 'gateway.cache.lookup')!;
    expect(lookup.attributes['gateway.cache.result']).toBe('miss');
    const execute = spans.find((s) => s.name === 'graphql.execute')!;
    expect(execute.attributes).toMatchObject({ 'graphql.operation.name': 'Plans', 'gateway.graphql.has_errors': false });

    // Feed calls: children of execute (itself a child of the request span), one client span per attempt.
    const feeds = spans.filter((s) => s.name.startsWith('feed '));
    expect(feeds.length).toBeGreaterThanOrEqual(3);
    for (const f of feeds) {
      expect(f.parentSpanId).toBe(execute.spanId);
      expect(f.attributes).toMatchObject({
        'gateway.feed.breaker_state': 'closed',
        'gateway.feed.attempts': 1,
        'http.response.status_code': 200,
      });
      expect(f.attributes['gateway.feed.name']).toBe(f.name.slice('feed '.length));
      const [attempt, ...more] = childrenOf(spans, f);
      expect(more).toEqual([]);
      expect(attempt!.kind).toBe(3);
      expect(attempt!.name).toBe('GET');
      expect(attempt!.attributes).toMatchObject({
        'http.request.method': 'GET',
        'server.address': '127.0.0.1',
        'http.response.status_code': 200,
      });
      expect(String(attempt!.attributes['url.full'])).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[^?]*$/);
      // The feed received a traceparent naming this very attempt span.
      expect(proxy.seen.map((s) => s.traceparent)).toContain(`00-${root.traceId}-${attempt!.spanId}-01`);
    }
    expect(new Set(feeds.map((f) => f.attributes['gateway.feed.name']))).toEqual(new Set(['Territories', 'Voltify', 'Brightgrid']));
    // Every span of the trace ends within its parent's trace and names no one.
    for (const s of spans) expect(s.endNs).toBeGreaterThanOrEqual(s.startNs);

    // The log line and the replay record carry the trace id.
    const line = await eventually(async () => logLines.find((l) => l.msg === 'request' && l.requestId === 'trace-miss-0001'));
    expect(line.traceId).toBe(root.traceId);
    const record = await eventually(() => store.get('trace-miss-0001'));
    expect(record.traceId).toBe(root.traceId);
  });

  it('shows a cache hit as a lookup without execution or feed calls', async () => {
    const r = await post(g.urls.production!, PLANS, { zip: '75001' }, { 'x-api-key': key, 'x-request-id': 'trace-hit-00001' });
    expect(r.headers.get('x-cache')).toBe('HIT');
    const { root, spans } = await traceOf(receiver, 'trace-hit-00001');
    expect(root.attributes['gateway.cache.result']).toBe('hit');
    expect(spans.find((s) => s.name === 'gateway.cache.lookup')?.attributes).toMatchObject({ 'gateway.cache.result': 'hit' });
    expect(spans.some((s) => s.name === 'graphql.execute' || s.name.startsWith('feed '))).toBe(false);
  });

  it("links a partner's traceparent by default: a new root of our own, the partner's span as a link", async () => {
    const r = await post(
      g.urls.production!,
      PLANS,
      { zip: '75002' },
      { 'x-api-key': key, 'x-request-id': 'trace-link-0001', traceparent: PARTNER_TRACEPARENT },
    );
    expect(r.status).toBe(200);
    const { root } = await traceOf(receiver, 'trace-link-0001');
    expect(root.traceId).not.toBe(PARTNER_TRACE);
    expect(root.parentSpanId).toBe('');
    expect(root.links).toEqual([
      { traceId: PARTNER_TRACE, spanId: PARTNER_SPAN, attributes: { 'gateway.link.reason': 'partner traceparent' } },
    ]);
  });

  it("continues the partner's trace with TRACE_INCOMING_PARENT=continue", async () => {
    const r = await post(
      continuing.urls.production!,
      PLANS,
      { zip: '75003' },
      {
        'x-api-key': key,
        'x-request-id': 'trace-continue-1',
        traceparent: PARTNER_TRACEPARENT,
      },
    );
    expect(r.status).toBe(200);
    const { root, spans } = await traceOf(receiver, 'trace-continue-1');
    expect(root.traceId).toBe(PARTNER_TRACE);
    expect(root.parentSpanId).toBe(PARTNER_SPAN);
    expect(root.links).toEqual([]);
    // The feeds see the partner's trace id too.
    const attempt = spans.find((s) => s.kind === 3)!;
    expect(proxy.seen.map((s) => s.traceparent)).toContain(`00-${PARTNER_TRACE}-${attempt.spanId}-01`);
  });

  it('counts the playground allowance in a span of its own', async () => {
    const r = await post(g.urls.playground!, PLANS, { zip: '75004' }, { 'x-request-id': 'trace-playground1' });
    expect(r.status).toBe(200);
    const { root, spans } = await traceOf(receiver, 'trace-playground1');
    expect(root.attributes['gateway.environment']).toBe('playground');
    expect(spans.find((s) => s.name === 'gateway.allowance.admit')?.parentSpanId).toBe(root.spanId);
    const count = spans.find((s) => s.name === 'gateway.allowance.count')!;
    expect(count.parentSpanId).toBe(root.spanId);
    expect(count.attributes['gateway.allowance.counted']).toBe(true);
    expect(typeof count.attributes['gateway.allowance.remaining']).toBe('number');
  });

  it('never exports a street address or an account id', async () => {
    const r = await post(
      g.urls.production!,
      ACCOUNTS,
      { address: ADDRESS, zip: '75201' },
      { 'x-api-key': key, 'x-request-id': 'trace-address-01' },
    );
    expect(r.status).toBe(200);
    const accounts = r.json.data.utilityAccounts as { accountId: string; serviceAddress: { line1: string } }[];
    expect(accounts.length).toBeGreaterThan(0);
    const { spans } = await traceOf(receiver, 'trace-address-01');
    // The premises feed was called (with the address in its query string) and traced without it.
    const premises = spans.find((s) => s.name === 'feed Premises')!;
    expect(premises).toBeDefined();
    expect(proxy.seen.some((s) => s.url.includes('MARILLA'))).toBe(true);
    await g.close();
    const everything = receiver.bodies.join('\n').toUpperCase();
    const secrets = [ADDRESS, 'MARILLA', ...accounts.map((a) => a.accountId), ...accounts.map((a) => a.serviceAddress.line1)];
    for (const s of secrets) expect(everything).not.toContain(s.toUpperCase());
    // Nor the query text or its variables.
    expect(everything).not.toContain('UTILITYACCOUNTS(ADDRESS');
  });
});
