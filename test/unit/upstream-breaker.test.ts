// The per-feed circuit breaker of the upstream fetch layer, against nock: opens on failures over
// the minimum volume, refuses in microseconds without touching the network, half-opens after the
// reset time with a single trial, and lets stale-if-error answer while open.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import nock from 'nock';
import { createUpstreamFetch, upstreamStats, type UpstreamFetchOptions } from '../../sources/upstream/fetch.js';
import { inScope, scope, settle } from '../support/feed-scope.js';
import { fetchTransport } from '../../sources/upstream/transport.js';

const BASE = 'http://feed.test';
const OTHER = 'http://sandbox.feed.test';
const OFFERS = { offers: [{ offerId: 'VOL-1' }] };

function makeFetch(opts: UpstreamFetchOptions = {}) {
  let sent = 0;
  const f = createUpstreamFetch({
    env: {},
    retries: 0,
    staleIfErrorSeconds: 0,
    random: () => 0.5,
    ...opts,
    breaker: { volumeThreshold: 4, errorThresholdPercentage: 50, resetTimeoutMs: 150, rollingWindowMs: 10_000, ...opts.breaker },
    transport: fetchTransport((url, init) => {
      sent++;
      return globalThis.fetch(url, init);
    }),
  });
  return Object.assign(f, { sent: () => sent });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
beforeEach(() => upstreamStats.reset());
afterEach(() => nock.cleanAll());

describe('circuit breaker', () => {
  it('a hanging feed: after the minimum volume of timeouts it opens, and a call is refused without a request', async () => {
    nock(BASE).get('/offers').times(4).delay(5000).reply(200, OFFERS);
    const f = makeFetch();
    const budget = 150;
    const t0 = performance.now();
    for (let i = 0; i < 4; i++) {
      const r = await settle(inScope(scope('Voltify', budget), (c) => f(`${BASE}/offers`, undefined, c)));
      expect((r as { error: Error }).error.message).toMatch(/timed out/);
    }
    expect(performance.now() - t0).toBeGreaterThanOrEqual(4 * budget - 10);
    expect(upstreamStats.snapshot().Voltify!.breaker).toBe('open');
    expect(f.sent()).toBe(4);

    // Open: refused without a socket or a timer.
    const N = 2000;
    const s = scope('Voltify', budget);
    for (let i = 0; i < N; i++) {
      const r = await settle(inScope(s, (c) => f(`${BASE}/offers`, undefined, c)));
      if (i === 0) {
        expect((r as { error: Error }).error.message).toMatch(/circuit/);
      }
    }
    expect(f.sent()).toBe(4);
    expect(s.calls[0]).toMatchObject({ feed: 'Voltify', status: null, error: 'circuit_open' });
    expect(upstreamStats.snapshot().Voltify).toMatchObject({ shortCircuits: N, breakerOpens: 1 });
    await f.close();
  });

  it('below the minimum volume it stays closed; at or under 50% failures it stays closed', async () => {
    nock(BASE).get('/a').times(3).reply(503, 'busy');
    const f = makeFetch();
    for (let i = 0; i < 3; i++) await settle(inScope(scope(), (c) => f(`${BASE}/a`, undefined, c)));
    expect(upstreamStats.snapshot().Voltify!.breaker).toBe('closed');
    await f.close();

    nock.cleanAll();
    upstreamStats.reset();
    const g = makeFetch();
    for (let i = 0; i < 10; i++) {
      // ok, fail, ok, fail...: never more than 50% failed.
      if (i % 2) nock(BASE).get('/b').reply(500, 'boom');
      else nock(BASE).get('/b').reply(200, OFFERS);
      await settle(inScope(scope(), (c) => g(`${BASE}/b`, undefined, c)));
    }
    expect(upstreamStats.snapshot().Voltify!.breaker).toBe('closed');
    await g.close();
  });

  it('half-open after the reset time: one trial call; success closes, failure reopens', async () => {
    nock(BASE).get('/c').times(4).reply(502, 'bad gateway');
    const f = makeFetch();
    for (let i = 0; i < 4; i++) await settle(inScope(scope(), (c) => f(`${BASE}/c`, undefined, c)));
    expect(upstreamStats.snapshot().Voltify!.breaker).toBe('open');

    await sleep(200);
    expect(upstreamStats.snapshot().Voltify!.breaker).toBe('halfOpen');
    // The trial fails: open again at once.
    nock(BASE).get('/c').reply(500, 'still broken');
    expect((await settle(inScope(scope(), (c) => f(`${BASE}/c`, undefined, c)))).ok).toBe(false);
    expect(upstreamStats.snapshot().Voltify!.breaker).toBe('open');
    expect((await settle(inScope(scope(), (c) => f(`${BASE}/c`, undefined, c)))).ok).toBe(false);
    expect(f.sent()).toBe(5);

    await sleep(200);
    // Trial succeeds; a concurrent call during the trial is still refused.
    nock(BASE).get('/c').delay(30).reply(200, OFFERS);
    const trial = inScope(scope(), (c) => f(`${BASE}/c`, undefined, c));
    const during = await settle(inScope(scope(), (c) => f(`${BASE}/c?other=1`, undefined, c)));
    expect((during as { error: Error }).error.message).toMatch(/circuit/);
    expect((await trial).status).toBe(200);
    expect(upstreamStats.snapshot().Voltify).toMatchObject({ breaker: 'closed', breakerOpens: 2 });
    nock(BASE).get('/c').reply(200, OFFERS);
    expect((await inScope(scope(), (c) => f(`${BASE}/c`, undefined, c))).status).toBe(200);
    await f.close();
  });

  it('per feed and origin: one feed open does not refuse another feed or another origin', async () => {
    nock(BASE).get('/v').times(4).reply(503, 'busy');
    const f = makeFetch();
    for (let i = 0; i < 4; i++) await settle(inScope(scope('Voltify'), (c) => f(`${BASE}/v`, undefined, c)));
    expect((await settle(inScope(scope('Voltify'), (c) => f(`${BASE}/v`, undefined, c)))).ok).toBe(false);
    nock(BASE).get('/b').reply(200, OFFERS);
    expect((await inScope(scope('Brightgrid'), (c) => f(`${BASE}/b`, undefined, c))).status).toBe(200);
    nock(OTHER).get('/v').reply(200, OFFERS);
    expect((await inScope(scope('Voltify'), (c) => f(`${OTHER}/v`, undefined, c))).status).toBe(200);
    await f.close();
  });

  it('while open, a stale copy answers and is reported', async () => {
    nock(BASE).get('/plans').reply(200, OFFERS);
    nock(BASE).get('/plans').times(3).replyWithError({ code: 'ECONNRESET', message: 'reset' });
    const f = makeFetch({ staleIfErrorSeconds: 3600 });
    await inScope(scope('Brightgrid'), (c) => f(`${BASE}/plans`, undefined, c));
    // 1 success + 3 failures: 75% of 4 calls -> open. Each failure was already answered stale.
    for (let i = 0; i < 3; i++) await inScope(scope('Brightgrid'), (c) => f(`${BASE}/plans`, undefined, c));
    expect(upstreamStats.snapshot().Brightgrid!.breaker).toBe('open');
    const s = scope('Brightgrid');
    const sent = f.sent();
    const res = await inScope(s, (c) => f(`${BASE}/plans`, undefined, c));
    expect(f.sent()).toBe(sent);
    expect(await res.json()).toEqual(OFFERS);
    expect(s.stale).toEqual([{ feed: 'Brightgrid', ageSeconds: 0 }]);
    expect(s.calls[0]!.error).toMatch(/^circuit_open \(served a 0 s old copy\)$/);
    expect(upstreamStats.snapshot().Brightgrid).toMatchObject({
      staleServed: 4,
      shortCircuits: 1,
      errorsByKind: { network: 3, circuit_open: 1 },
    });
    await f.close();
  });

  it('4xx answers are successes for the breaker', async () => {
    nock(BASE).get('/nf').times(10).reply(404, { error: 'no such zip' });
    const f = makeFetch();
    for (let i = 0; i < 10; i++) expect((await inScope(scope(), (c) => f(`${BASE}/nf`, undefined, c))).status).toBe(404);
    expect(upstreamStats.snapshot().Voltify!.breaker).toBe('closed');
    await f.close();
  });

  it('UPSTREAM_BREAKER=false turns it off', async () => {
    nock(BASE).get('/x').times(8).reply(503, 'busy');
    const f = makeFetch({ env: { UPSTREAM_BREAKER: 'false' }, breaker: {} });
    expect(f.settings.breaker.enabled).toBe(false);
    for (let i = 0; i < 8; i++) await settle(inScope(scope(), (c) => f(`${BASE}/x`, undefined, c)));
    expect(f.sent()).toBe(8);
    await f.close();
  });
});
