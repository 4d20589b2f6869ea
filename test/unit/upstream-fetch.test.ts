// The upstream fetch layer against nock: retries (new signal per attempt, idempotent only, inside
// the feed budget), deduplication, stale-if-error, edge validation, call records and stats.
// The layer runs over global fetch here (nock intercepts it; undici's fetch with a dispatcher is
// not intercepted); production uses undici with a keep-alive pool, covered end to end.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import nock from 'nock';
import { createUpstreamFetch, upstreamStats, UpstreamError, type UpstreamFetchOptions } from '../../sources/upstream/fetch.js';
import { backoffDelay, withRetries } from '../../sources/upstream/retry.js';
import { validatePayload } from '../../sources/upstream/validate.js';
import { loadUpstreamSettings } from '../../sources/upstream/upstream-config.js';
import { ConfigError } from '../../start/config.js';
import { inScope, scope, settle } from '../support/feed-scope.js';
import { fetchTransport, sharedOf, takeParsed } from '../../sources/upstream/transport.js';

const BASE = 'http://feed.test';
const OFFERS = { offers: [{ offerId: 'VOL-1', price: 0.12 }] };

interface Seen {
  signals: AbortSignal[];
  urls: string[];
}

function makeFetch(opts: UpstreamFetchOptions = {}) {
  const seen: Seen = { signals: [], urls: [] };
  const f = createUpstreamFetch({
    env: {},
    retryBaseDelayMs: 10,
    retryMaxDelayMs: 20,
    breaker: { enabled: false },
    random: () => 0.5,
    ...opts,
    transport: fetchTransport((url, init) => {
      seen.signals.push(init.signal);
      seen.urls.push(url);
      return globalThis.fetch(url, init);
    }),
  });
  return Object.assign(f, { seen });
}

beforeAll(() => {
  nock.disableNetConnect();
});
afterAll(() => {
  nock.enableNetConnect();
});
beforeEach(() => upstreamStats.reset());
afterEach(() => {
  nock.cleanAll();
  vi.restoreAllMocks();
});

describe('retries', () => {
  it('retries a GET after a network error and a 503, with a new AbortSignal per attempt', async () => {
    nock(BASE).get('/offers').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    nock(BASE).get('/offers').reply(503, { error: 'busy' });
    nock(BASE).get('/offers').reply(200, OFFERS);
    const f = makeFetch();
    const s = scope();
    const res = await inScope(s, (c) => f(`${BASE}/offers`, undefined, c));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(OFFERS);
    expect(f.seen.signals).toHaveLength(3);
    expect(new Set(f.seen.signals).size).toBe(3);
    expect(f.seen.signals.every((sig) => !sig.aborted)).toBe(true);
    expect(upstreamStats.snapshot().Voltify).toMatchObject({ calls: 1, attempts: 3, retries: 2, errors: 0 });
    expect(s.calls).toEqual([expect.objectContaining({ feed: 'Voltify', url: `${BASE}/offers`, status: 200 })]);
    await f.close();
  });

  it('a timed-out attempt is retried on a fresh signal when the attempt cap leaves budget', async () => {
    nock(BASE).get('/slow').delay(400).reply(200, { late: true });
    nock(BASE).get('/slow').reply(200, OFFERS);
    const f = makeFetch({ attemptTimeoutMs: 100 });
    const res = await inScope(scope('Voltify', 1000), (c) => f(`${BASE}/slow`, undefined, c));
    expect(await res.json()).toEqual(OFFERS);
    const [first, second] = f.seen.signals;
    expect(first).not.toBe(second);
    expect(first!.aborted).toBe(true);
    expect((first!.reason as Error).name).toBe('TimeoutError');
    expect(second!.aborted).toBe(false);
    await f.close();
  });

  it('default: 2 retries, then the error; never beyond the feed budget', async () => {
    nock(BASE).get('/down').times(3).reply(502, 'bad gateway');
    const extra = nock(BASE).get('/down').reply(200, OFFERS);
    const f = makeFetch();
    const r = await settle(inScope(scope(), (c) => f(`${BASE}/down`, undefined, c)));
    expect(r.ok).toBe(false);
    expect((r as unknown as { error: UpstreamError }).error).toBeInstanceOf(UpstreamError);
    expect((r as { error: Error }).error.message).toBe('upstream answered with an error status (502)');
    expect(extra.isDone()).toBe(false);
    expect(f.seen.urls).toHaveLength(3);

    // A budget of 300 ms with 200 ms attempts: the first attempt times out at the deadline and
    // there is no time left for a second.
    nock.cleanAll();
    nock(BASE).get('/hang').times(5).delay(1000).reply(200, OFFERS);
    const g = makeFetch();
    const started = Date.now();
    const slow = await settle(inScope(scope('Voltify', 300), (c) => g(`${BASE}/hang`, undefined, c)));
    const took = Date.now() - started;
    expect(slow.ok).toBe(false);
    expect((slow as { error: Error }).error.message).toMatch(/timed out/);
    expect(took).toBeGreaterThanOrEqual(280);
    expect(took).toBeLessThan(1000);
    expect(g.seen.urls).toHaveLength(1);
    await f.close();
    await g.close();
  });

  it('a Retry-After longer than the remaining budget ends the call at once', async () => {
    nock(BASE).get('/busy').reply(503, { error: 'maintenance' }, { 'Retry-After': '30' });
    const f = makeFetch();
    const started = Date.now();
    const r = await settle(inScope(scope('Voltify', 2000), (c) => f(`${BASE}/busy`, undefined, c)));
    expect(r.ok).toBe(false);
    // Ended without waiting for the budget (nor the 30 s asked).
    expect(Date.now() - started).toBeLessThan(2000);
    expect(f.seen.urls).toHaveLength(1);
    await f.close();
  });

  it('only idempotent requests are retried: POST, PUT, DELETE fail after one attempt', async () => {
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      nock(BASE).intercept('/orders', method).reply(503, { error: 'busy' });
      const spare = nock(BASE).intercept('/orders', method).reply(200, { ok: true });
      const f = makeFetch();
      const r = await settle(
        inScope(scope(), (c) =>
          f(
            `${BASE}/orders`,
            { method, body: method === 'DELETE' ? undefined : '{"a":1}', headers: { 'content-type': 'application/json' } },
            c,
          ),
        ),
      );
      expect(r.ok, method).toBe(false);
      expect(f.seen.urls, method).toHaveLength(1);
      expect(spare.isDone(), method).toBe(false);
      nock.cleanAll();
      await f.close();
    }
    // HEAD is idempotent.
    nock(BASE).head('/offers').reply(503);
    nock(BASE).head('/offers').reply(200);
    const h = makeFetch();
    expect((await inScope(scope(), (c) => h(`${BASE}/offers`, { method: 'HEAD' }, c))).status).toBe(200);
    expect(h.seen.urls).toHaveLength(2);
    await h.close();
  });

  it('500, 429 and malformed payloads are failures but are not retried; 4xx is an answer', async () => {
    nock(BASE).get('/e500').reply(500, { error: 'boom' });
    nock(BASE).get('/e429').reply(429, { error: 'slow down' });
    nock(BASE).get('/e404').reply(404, { error: 'no such zip' });
    const f = makeFetch();
    const s = scope();
    expect((await settle(inScope(s, (c) => f(`${BASE}/e500`, undefined, c)))).ok).toBe(false);
    expect((await settle(inScope(s, (c) => f(`${BASE}/e429`, undefined, c)))).ok).toBe(false);
    const notFound = await inScope(s, (c) => f(`${BASE}/e404`, undefined, c));
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ error: 'no such zip' });
    expect(f.seen.urls).toHaveLength(3);
    expect(s.calls.map((c) => [c.status, c.error])).toEqual([
      [500, 'status 500'],
      [429, 'status 429'],
      [404, undefined],
    ]);
    expect(upstreamStats.snapshot().Voltify).toMatchObject({ calls: 3, errors: 2, retries: 0, errorsByKind: { status: 2 } });
    await f.close();
  });

  it('backoff is full jitter, capped', () => {
    expect(backoffDelay(0, 100, 1000, () => 0)).toBe(0);
    expect(backoffDelay(0, 100, 1000, () => 0.999)).toBe(99);
    expect(backoffDelay(3, 100, 1000, () => 0.5)).toBe(400);
    expect(backoffDelay(10, 100, 1000, () => 0.999)).toBe(999);
  });

  it('withRetries: the same deadline bounds attempts and waits', async () => {
    const signals: AbortSignal[] = [];
    const started = Date.now();
    const r = await settle(
      withRetries(
        { retries: 5, baseDelayMs: 50, maxDelayMs: 50, attemptTimeoutMs: 0, deadline: Date.now() + 250, random: () => 1 },
        async (signal) => {
          signals.push(signal);
          throw new UpstreamError('network', { retryable: true });
        },
      ),
    );
    expect(r.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(300);
    expect(signals.length).toBeGreaterThanOrEqual(3);
    expect(signals.length).toBeLessThanOrEqual(6);
    expect(new Set(signals).size).toBe(signals.length);
  });
});

describe('deduplication', () => {
  it('identical concurrent GETs make one upstream call; every caller gets its own Response', async () => {
    const upstream = nock(BASE)
      .get('/offers')
      .query({ zip: '75001' })
      .delay(50)
      .reply(200, OFFERS, { 'Cache-Control': 'public, max-age=900' });
    const f = makeFetch();
    const scopes = Array.from({ length: 10 }, () => scope());
    const responses = await Promise.all(
      scopes.map((s, i) =>
        inScope(s, (c) => f(`${BASE}/offers?zip=75001`, { headers: { accept: 'application/json', 'x-request-id': `req-${i}` } }, c)),
      ),
    );
    expect(upstream.isDone()).toBe(true);
    expect(f.seen.urls).toHaveLength(1);
    expect(new Set(responses).size).toBe(10);
    // Reading one body leaves the others intact.
    expect(await responses[0]!.json()).toEqual(OFFERS);
    for (const r of responses.slice(1)) expect(await r.text()).toBe(JSON.stringify(OFFERS));
    responses[1]!.headers.set('x-mutated', '1');
    expect(responses[2]!.headers.get('x-mutated')).toBeNull();
    // Each request's replay record lists the call it used.
    for (const s of scopes) expect(s.calls).toEqual([expect.objectContaining({ status: 200, maxAge: 900 })]);
    expect(upstreamStats.snapshot().Voltify).toMatchObject({ calls: 10, attempts: 1, dedupHits: 9 });
    await f.close();
  });

  it('different URLs or headers that matter are separate calls; sequential calls are not shared', async () => {
    nock(BASE).get('/offers').times(3).delay(20).reply(200, OFFERS);
    nock(BASE).head('/offers').delay(20).reply(200);
    const f = makeFetch();
    const s = scope();
    await Promise.all([
      inScope(s, (c) => f(`${BASE}/offers`, { headers: { accept: 'application/json' } }, c)),
      inScope(s, (c) => f(`${BASE}/offers`, { headers: { accept: 'application/json', authorization: 'Bearer other' } }, c)),
      inScope(s, (c) => f(`${BASE}/offers`, { method: 'HEAD' }, c)),
    ]);
    expect(f.seen.urls).toHaveLength(3);
    await inScope(s, (c) => f(`${BASE}/offers`, { headers: { accept: 'application/json' } }, c));
    expect(f.seen.urls).toHaveLength(4);
    await f.close();
  });

  it('POSTs are never shared', async () => {
    nock(BASE).post('/search').times(2).delay(20).reply(200, { ok: true });
    const f = makeFetch();
    await Promise.all([1, 2].map(() => inScope(scope(), (c) => f(`${BASE}/search`, { method: 'POST', body: '{}' }, c))));
    expect(f.seen.urls).toHaveLength(2);
    await f.close();
  });

  it('callers sharing an answer each read its text once (decoded by the edge validation), and a stale copy reads the same', async () => {
    nock(BASE).get('/offers').delay(20).reply(200, OFFERS);
    nock(BASE).get('/offers').times(3).reply(503, 'busy');
    const f = makeFetch({ staleIfErrorSeconds: 3600 });
    const rs = await Promise.all([1, 2, 3].map(() => inScope(scope(), (c) => f(`${BASE}/offers`, undefined, c))));
    expect(f.seen.urls).toHaveLength(1);
    const copies = rs.map((r) => r.clone());
    for (const r of rs) expect(await r.text()).toBe(JSON.stringify(OFFERS));
    for (const r of rs) await expect(r.text()).rejects.toThrow(TypeError);
    for (const c of copies) expect(await c.json()).toEqual(OFFERS);
    const stale = await inScope(scope(), (c) => f(`${BASE}/offers`, undefined, c));
    expect(await stale.text()).toBe(JSON.stringify(OFFERS));
    await f.close();
  });

  it("the edge validation's parse goes to the first caller that reads the text; the others and a stale copy parse their own", async () => {
    nock(BASE).get('/offers').delay(20).reply(200, OFFERS);
    nock(BASE).get('/offers').reply(503, 'busy');
    const f = makeFetch({ staleIfErrorSeconds: 3600 });
    const rs = await Promise.all([1, 2, 3].map(() => inScope(scope(), (c) => f(`${BASE}/offers`, undefined, c))));
    expect(f.seen.urls).toHaveLength(1);
    // Not before the body is read: the caller must take the answer as its own.
    expect(takeParsed(rs[1]!)).toBeUndefined();
    await rs[1]!.text();
    const first = takeParsed(rs[1]!) as typeof OFFERS;
    expect(first).toEqual(OFFERS);
    first.offers.length = 0; // the first caller's to change (the in-place completion patches it)
    for (const r of [rs[0]!, rs[2]!]) {
      expect(await r.text()).toBe(JSON.stringify(OFFERS));
      expect(takeParsed(r)).toBeUndefined();
    }
    const stale = await inScope(scope(), (c) => f(`${BASE}/offers`, undefined, c));
    expect(await stale.text()).toBe(JSON.stringify(OFFERS));
    expect(takeParsed(stale)).toBeUndefined();
    await f.close();
  });

  it('a failure is shared too, and each waiter may fall back to its own stale report', async () => {
    nock(BASE).get('/offers').reply(200, OFFERS);
    nock(BASE).get('/offers').times(3).delay(30).reply(503, 'busy');
    const f = makeFetch();
    await inScope(scope(), (c) => f(`${BASE}/offers`, undefined, c));
    const scopes = [scope(), scope(), scope()];
    const rs = await Promise.all(scopes.map((s) => inScope(s, (c) => f(`${BASE}/offers`, undefined, c))));
    for (const r of rs) expect(await r.json()).toEqual(OFFERS);
    for (const s of scopes) expect(s.stale).toEqual([{ feed: 'Voltify', ageSeconds: 0 }]);
    expect(f.seen.urls).toHaveLength(4); // 1 fill + 3 attempts of one shared call
    await f.close();
  });
});

describe('the same bytes again', () => {
  // What a caller derives from an answer (its payload, its mapped records): counted per derivation.
  const deriveFrom = (r: Response, deriver: object, derivations: string[]) =>
    sharedOf(r, deriver, (text, parsed) => {
      derivations.push(text);
      return { parsed: parsed ?? JSON.parse(text) };
    });

  it('sequential calls answered with the same bytes each call the feed and share one derivation; other bytes derive anew', async () => {
    const OTHER = { offers: [{ offerId: 'VOL-2', price: 0.13 }] };
    nock(BASE).get('/offers').times(3).reply(200, OFFERS);
    nock(BASE).get('/offers').reply(200, OTHER);
    nock(BASE).get('/offers').reply(200, OFFERS);
    const f = makeFetch({ dedup: false });
    const deriver = {};
    const derivations: string[] = [];
    const values = [];
    for (let i = 0; i < 5; i++) {
      const r = await inScope(scope(), (c) => f(`${BASE}/offers`, undefined, c));
      values.push(deriveFrom(r, deriver, derivations));
      // Each caller still reads its own body.
      expect(await r.text()).toBe(JSON.stringify(i === 3 ? OTHER : OFFERS));
    }
    expect(f.seen.urls).toHaveLength(5);
    expect(values[1]).toBe(values[0]);
    expect(values[2]).toBe(values[0]);
    expect(values[3]).toEqual({ parsed: OTHER });
    expect(values[4]).not.toBe(values[0]);
    expect(values[4]).toEqual({ parsed: OFFERS });
    expect(derivations).toHaveLength(3);
    expect(upstreamStats.snapshot().Voltify).toMatchObject({ calls: 5, attempts: 5 });
    await f.close();
  });

  it('another request, another status or an answer a shared cache may not keep (personal data) is derived on its own', async () => {
    nock(BASE).get('/offers').query({ zip: '75001' }).reply(200, OFFERS);
    nock(BASE).get('/offers').query({ zip: '75002' }).reply(200, OFFERS);
    nock(BASE).get('/offers').query({ zip: '75002' }).reply(203, OFFERS);
    nock(BASE).get('/premises').times(2).reply(200, OFFERS, { 'Cache-Control': 'private, no-store' });
    const f = makeFetch({ dedup: false });
    const deriver = {};
    const derivations: string[] = [];
    for (const path of ['/offers?zip=75001', '/offers?zip=75002', '/offers?zip=75002', '/premises', '/premises']) {
      const r = await inScope(scope(), (c) => f(`${BASE}${path}`, undefined, c));
      deriveFrom(r, deriver, derivations);
    }
    expect(derivations).toHaveLength(5);
    await f.close();
  });

  it('a malformed answer is refused every time, whatever came before', async () => {
    nock(BASE).get('/offers').reply(200, OFFERS);
    nock(BASE).get('/offers').times(2).reply(200, 'null');
    const f = makeFetch({ dedup: false, retries: 0, staleIfErrorSeconds: 0 });
    await inScope(scope(), (c) => f(`${BASE}/offers`, undefined, c));
    for (let i = 0; i < 2; i++) {
      const r = await settle(inScope(scope(), (c) => f(`${BASE}/offers`, undefined, c)));
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error.message).toMatch(/malformed/);
    }
    await f.close();
  });
});

describe('stale-if-error', () => {
  it('serves the last good copy when the feed fails, and reports feed and age', async () => {
    nock(BASE).get('/plans/75001').reply(200, OFFERS, { 'Cache-Control': 'public, max-age=900' });
    nock(BASE).get('/plans/75001').times(3).reply(503, 'down');
    const f = makeFetch({ staleIfErrorSeconds: 3600 });
    await inScope(scope('Brightgrid'), (c) => f(`${BASE}/plans/75001`, undefined, c));
    const realNow = Date.now;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 125_000);
    const s = scope('Brightgrid');
    const res = await inScope(s, (c) => f(`${BASE}/plans/75001`, undefined, c));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(OFFERS);
    expect(res.headers.get('age')).toBe('125');
    expect(s.stale).toEqual([{ feed: 'Brightgrid', ageSeconds: 125 }]);
    expect(s.calls).toEqual([expect.objectContaining({ status: 200, maxAge: 0, error: 'status 503 (served a 125 s old copy)' })]);
    expect(upstreamStats.snapshot().Brightgrid).toMatchObject({ errors: 1, staleServed: 1 });
    await f.close();
  });

  it('a copy older than the bound is not served', async () => {
    nock(BASE).get('/plans/75002').reply(200, OFFERS);
    nock(BASE).get('/plans/75002').times(3).replyWithError({ code: 'ECONNREFUSED', message: 'refused' });
    const f = makeFetch({ staleIfErrorSeconds: 60 });
    await inScope(scope('Brightgrid'), (c) => f(`${BASE}/plans/75002`, undefined, c));
    const realNow = Date.now;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 61_000);
    const s = scope('Brightgrid');
    const r = await settle(inScope(s, (c) => f(`${BASE}/plans/75002`, undefined, c)));
    expect(r.ok).toBe(false);
    expect((r as { error: Error }).error.message).toMatch(/network/);
    expect(s.stale).toEqual([]);
    await f.close();
  });

  it('disabled with STALE_IF_ERROR_SECONDS=0; no-store answers (personal data) are never kept', async () => {
    nock(BASE).get('/a').reply(200, OFFERS);
    nock(BASE).get('/a').reply(500, 'x');
    const off = makeFetch({ env: { STALE_IF_ERROR_SECONDS: '0' } });
    expect(off.settings.staleIfErrorSeconds).toBe(0);
    await inScope(scope(), (c) => off(`${BASE}/a`, undefined, c));
    expect((await settle(inScope(scope(), (c) => off(`${BASE}/a`, undefined, c)))).ok).toBe(false);

    nock(BASE)
      .get('/premises')
      .reply(200, { accounts: [{ id: 1 }] }, { 'Cache-Control': 'no-store' });
    nock(BASE).get('/premises').reply(500, 'x');
    const on = makeFetch();
    await inScope(scope('Premises'), (c) => on(`${BASE}/premises`, undefined, c));
    const s = scope('Premises');
    expect((await settle(inScope(s, (c) => on(`${BASE}/premises`, undefined, c)))).ok).toBe(false);
    expect(s.stale).toEqual([]);
    await off.close();
    await on.close();
  });

  it('a 4xx answer is passed on, not replaced by the stale copy', async () => {
    nock(BASE).get('/b').reply(200, OFFERS);
    nock(BASE).get('/b').reply(404, { error: 'gone' });
    const f = makeFetch();
    await inScope(scope(), (c) => f(`${BASE}/b`, undefined, c));
    const s = scope();
    expect((await inScope(s, (c) => f(`${BASE}/b`, undefined, c))).status).toBe(404);
    expect(s.stale).toEqual([]);
    await f.close();
  });
});

describe('edge validation', () => {
  const bodies: [string, string][] = [
    ['garbage', '{"offers": [{"offerId": "VOL-\u0000\u00ff<html><body>502 Bad Gateway</body></html>'],
    ['JSON null', 'null'],
    ['empty', ''],
    ['a JSON string', '"ok"'],
    ['a number', '42'],
    ['HTML', '<html>maintenance</html>'],
  ];
  for (const [name, body] of bodies) {
    it(`a 200 with ${name} becomes a failure before Mesh, without retries`, async () => {
      nock(BASE).get('/x').reply(200, body, { 'Content-Type': 'application/json' });
      const spare = nock(BASE).get('/x').reply(200, OFFERS);
      const f = makeFetch();
      const s = scope();
      const r = await settle(inScope(s, (c) => f(`${BASE}/x`, undefined, c)));
      expect(r.ok).toBe(false);
      expect((r as { error: Error }).error.message).toMatch(/^upstream answered with a malformed payload/);
      expect((r as { error: Error }).error.message).not.toContain('feed.test');
      expect(spare.isDone()).toBe(false);
      expect(s.calls[0]!.error).toBe('malformed');
      await f.close();
    });
  }

  it('objects and arrays pass; invalid UTF-8 does not', () => {
    const b = (text: string | Uint8Array, status = 200) => ({
      status,
      statusText: '',
      headers: [],
      body: typeof text === 'string' ? new TextEncoder().encode(text) : text,
      receivedAt: 0,
    });
    expect(validatePayload(b('{"a":null}'))).toEqual({ text: '{"a":null}', json: { a: null } });
    expect(() => validatePayload(b('[]'))).not.toThrow();
    expect(validatePayload(b('garbage', 404))).toBeUndefined();
    expect(() => validatePayload(b(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])))).toThrow(/malformed payload: not UTF-8/);
  });

  it('a body above the size bound is refused', async () => {
    nock(BASE)
      .get('/huge')
      .reply(200, JSON.stringify({ blob: 'x'.repeat(5000) }));
    const f = makeFetch({ maxBodyBytes: 2048 });
    const r = await settle(inScope(scope(), (c) => f(`${BASE}/huge`, undefined, c)));
    expect((r as { error: Error }).error.message).toMatch(/too large/);
    await f.close();
  });
});

describe('settings', () => {
  it('defaults, env overrides, and a bad value names the variable', () => {
    const d = loadUpstreamSettings({});
    expect(d).toMatchObject({
      retries: 2,
      staleIfErrorSeconds: 3600,
      dedup: true,
      breaker: { enabled: true, errorThresholdPercentage: 50 },
    });
    expect(loadUpstreamSettings({ UPSTREAM_RETRIES: '0', STALE_IF_ERROR_SECONDS: '60', UPSTREAM_BREAKER: 'off' })).toMatchObject({
      retries: 0,
      staleIfErrorSeconds: 60,
      breaker: { enabled: false },
    });
    expect(() => loadUpstreamSettings({ UPSTREAM_RETRIES: '9', STALE_IF_ERROR_SECONDS: 'soon' })).toThrow(ConfigError);
    try {
      loadUpstreamSettings({ UPSTREAM_RETRIES: '9', STALE_IF_ERROR_SECONDS: 'soon' });
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        'UPSTREAM_RETRIES must be an integer from 0 to 5, got "9"',
        'STALE_IF_ERROR_SECONDS must be an integer from 0 to 604800, got "soon"',
      ]);
    }
  });

  it('calls outside a feed scope use the default timeout and the feed name "unknown"', async () => {
    nock(BASE).get('/free').reply(200, OFFERS);
    const f = makeFetch();
    expect((await f(`${BASE}/free`)).status).toBe(200);
    expect(upstreamStats.snapshot().unknown).toMatchObject({ calls: 1, attempts: 1 });
    await f.close();
  });

  it('records redact credentials in URLs', async () => {
    nock(BASE).get('/q').query(true).reply(200, OFFERS);
    const f = makeFetch();
    const s = scope();
    await inScope(s, (c) => f(`${BASE}/q?zip=75001&api_key=secret123`, undefined, c));
    expect(s.calls[0]!.url).toBe(`${BASE}/q?zip=75001&api_key=REDACTED`);
    await f.close();
  });
});

describe('redactUrl', () => {
  it('leaves credentials and secret parameters out, the same on every call (URLs are remembered)', async () => {
    const { redactUrl } = await import('../../sources/upstream/fetch.js');
    for (let i = 0; i < 3; i++) {
      expect(redactUrl('https://user:pw@feeds.example/v1/offers?zip=75001&api_key=abc&token=t')).toBe(
        'https://feeds.example/v1/offers?zip=75001&api_key=REDACTED&token=REDACTED',
      );
      expect(redactUrl('not a url')).toBe('invalid-url');
    }
  });
});
