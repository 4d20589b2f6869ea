// The tracing plugin with the real SDK (in-memory exporter) and the feed transport against nock:
// a feed call's span with its page and attempts, one client span per attempt whose traceparent the
// feed receives, dedup, no query string in any span; and an unsampled request left untraced.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import type { IncomingMessage } from 'node:http';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { tracingPlugin } from '../../server/plugins/tracing.js';
import type { RequestState } from '../../server/http/plugin.js';
import type { PreparedOperation } from '../../server/graphql/prepare.js';
import { createUpstreamFetch } from '../../sources/upstream/fetch.js';
import { fetchTransport } from '../../sources/upstream/transport.js';
import { inScope, scope } from '../support/feed-scope.js';

const BASE = 'http://feed.test';
const OP = {
  operation: { operation: 'query' },
  rootFields: ['utilityAccounts'],
  operationName: 'Accounts',
} as unknown as PreparedOperation;

function setup(sampler: Sampler = new AlwaysOnSampler()) {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const plugin = tracingPlugin({
    tracer: provider.getTracer('test'),
    propagator: new W3CTraceContextPropagator(),
    environment: 'production',
    incomingParent: 'link',
    scheme: 'http',
  });
  const state: RequestState = {
    environment: 'production',
    requestId: 'unit-trace-0001',
    clientIp: '203.0.113.9',
    receivedAt: Date.now(),
    req: { method: 'POST', url: '/graphql', headers: {}, httpVersion: '1.1' } as IncomingMessage,
    partnerCode: 'ACME',
    cache: 'BYPASS',
    upstreamCalls: [],
    headers: {},
    notes: {},
  };
  void plugin.onRequest!(state); // synchronous: the trace is set when it returns
  return { exporter, state };
}

const fetchFn = () =>
  createUpstreamFetch({
    env: {},
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 2,
    breaker: { enabled: false },
    random: () => 0.5,
    transport: fetchTransport((url, init) => globalThis.fetch(url, init)),
  });

beforeAll(() => {
  nock.disableNetConnect();
});
afterAll(() => {
  nock.enableNetConnect();
});
afterEach(() => nock.cleanAll());

describe('feed call spans', () => {
  it('one span per call (page, attempts), one client span per attempt, its traceparent sent to the feed', async () => {
    const { exporter, state } = setup();
    const trace = state.trace!;
    expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    const sent: string[] = [];
    const record = function (this: { req: { headers: Record<string, string> } }) {
      sent.push(this.req.headers.traceparent!);
    };
    nock(BASE)
      .get('/premises/v1/search')
      .query(true)
      .reply(function () {
        record.call(this as never);
        return [503, { error: 'busy' }];
      });
    nock(BASE)
      .get('/premises/v1/search')
      .query(true)
      .reply(function () {
        record.call(this as never);
        return [200, { results: [] }];
      });
    const s = { ...scope('Premises'), trace: trace.startExecute(OP), page: 2 };
    const f = fetchFn();
    const res = await inScope(s, (c) => f(`${BASE}/premises/v1/search?address=1500%20MARILLA%20ST&zip=75201`, undefined, c));
    expect(res.status).toBe(200);
    trace.endExecute(false);
    trace.end({ status: 200, headers: {}, body: '{}' });
    await f.close();

    const spans = exporter.getFinishedSpans();
    const byName = (n: string) => spans.filter((x) => x.name === n);
    const [request] = byName('POST /graphql');
    const [execute] = byName('graphql.execute');
    const [feed] = byName('feed Premises');
    const attempts = byName('GET');
    expect(execute!.parentSpanContext?.spanId).toBe(request!.spanContext().spanId);
    expect(feed!.parentSpanContext?.spanId).toBe(execute!.spanContext().spanId);
    expect(feed!.attributes).toMatchObject({
      'gateway.feed.name': 'Premises',
      'gateway.feed.page': 2,
      'gateway.feed.attempts': 2,
      'gateway.feed.breaker_state': 'closed',
      'http.response.status_code': 200,
      'url.full': `${BASE}/premises/v1/search`,
    });
    expect(attempts).toHaveLength(2);
    expect(attempts.map((a) => a.attributes['http.response.status_code'])).toEqual([503, 200]);
    expect(attempts.map((a) => a.attributes['http.request.resend_count'])).toEqual([undefined, 1]);
    expect(attempts[0]!.attributes['error.type']).toBe('status 503');
    for (const a of attempts) expect(a.parentSpanContext?.spanId).toBe(feed!.spanContext().spanId);
    expect(sent).toEqual(attempts.map((a) => `00-${trace.traceId}-${a.spanContext().spanId}-01`));
    // The address went to the feed, never into a span.
    expect(JSON.stringify(spans.map((x) => x.attributes))).not.toMatch(/MARILLA|address=/i);
  });

  it('marks a call that shared an identical one as deduplicated, without attempts of its own', async () => {
    const { exporter, state } = setup();
    nock(BASE).get('/offers').delay(30).reply(200, { offers: [] });
    const s = { ...scope('Voltify'), trace: state.trace!.startExecute(OP) };
    const f = fetchFn();
    await Promise.all([inScope(s, (c) => f(`${BASE}/offers`, undefined, c)), inScope(s, (c) => f(`${BASE}/offers`, undefined, c))]);
    await f.close();
    const feeds = exporter.getFinishedSpans().filter((x) => x.name === 'feed Voltify');
    expect(feeds.map((x) => [x.attributes['gateway.feed.deduplicated'] ?? false, x.attributes['gateway.feed.attempts']]).sort()).toEqual([
      [false, 1],
      [true, 0],
    ]);
  });

  it('leaves an unsampled request untraced: no trace on its state, nothing exported', () => {
    const { exporter, state } = setup(new AlwaysOffSampler());
    expect(state.trace).toBeUndefined();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
