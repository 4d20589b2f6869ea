// The one HTTP client every Mesh source uses. Per call, in this order:
//
//   1. feed scope: which feed this is and its time budget (feed-scope.ts, set by the resolver).
//   2. dedup (GET/HEAD): identical concurrent requests share one upstream call (dedup.ts).
//   3. circuit breaker per feed and origin: an open breaker refuses in microseconds (breaker.ts).
//   4. retries (GET/HEAD only) with full jitter, a NEW AbortSignal per attempt, all attempts and
//      waits inside one deadline = the feed's timeout (retry.ts). Retried: network errors,
//      timeouts, 502/503/504 (honouring Retry-After when it fits the budget). Never retried:
//      POST & co, other statuses, malformed payloads.
//   5. transport + edge validation: the body is read under a size bound; a 2xx that is not a JSON
//      object/array (garbage, empty, JSON null) becomes a failure before Mesh sees it
//      (validate.ts); 5xx and 429 are failures too. Other 4xx are answers and go to Mesh. A GET
//      answered with the same bytes as last time takes that answer's validation, parse and
//      mapping instead (answer-memo.ts).
//   6. stale-if-error (GET): a good answer is kept (stale-cache.ts); when the call fails (after
//      retries, or breaker open) and a copy younger than STALE_IF_ERROR_SECONDS exists, that copy
//      answers and `{ feed, ageSeconds }` goes to the scope's `stale` list -> `extensions.stale`.
//
// Each call is recorded in the scope's `calls` (replay record, logs) and counted in
// `upstreamStats` (stats.ts). Errors thrown to Mesh are UpstreamErrors with short messages: no
// URL, header or body of the feed ever reaches a partner or a log line through them.
import { feedScopeOf, type FeedScope } from './feed-scope.js';
import { createFeedBreakers, type BreakerLogger } from './breaker.js';
import { createAnswerMemo, type AnswerMemo } from './answer-memo.js';
import { createInFlight, requestKey } from './dedup.js';
import { RETRYABLE_STATUS, UpstreamError, classifyError, parseRetryAfter } from './errors.js';
import { withRetries } from './retry.js';
import { createStaleCache } from './stale-cache.js';
import { upstreamStats } from './stats.js';
import { headerOf, toResponse, undiciTransport, type BufferedResponse, type Transport } from './transport.js';
import { loadUpstreamSettings, type UpstreamSettings } from './upstream-config.js';
import { validatePayload } from './validate.js';
import type { FeedCallSpan, UpstreamCall } from './feed-scope.js';

export { upstreamStats } from './stats.js';
export { UpstreamError } from './errors.js';

export interface UpstreamFetchOptions extends Partial<Omit<UpstreamSettings, 'breaker'>> {
  breaker?: Partial<UpstreamSettings['breaker']>;
  /** Where settings not given here come from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** HTTP client; default undici with a keep-alive pool. Tests pass fetchTransport(global fetch) (nock). */
  transport?: Transport;
  logger?: BreakerLogger;
  random?: () => number;
}

export type MeshFetch = (url: string, init?: RequestInit, context?: unknown, info?: unknown) => Promise<Response>;

export interface UpstreamFetch extends MeshFetch {
  close(): Promise<void>;
  readonly settings: UpstreamSettings;
}

/** `fn` remembering its last `max` or so answers: the same URLs come back call after call. */
function memoized(fn: (url: string) => string, max = 1000): (url: string) => string {
  const seen = new Map<string, string>();
  return (url) => {
    let v = seen.get(url);
    if (v === undefined) {
      v = fn(url);
      if (seen.size >= max) seen.clear();
      seen.set(url, v);
    }
    return v;
  };
}

/** The URL as logged: each upstream call's URL is, so redacted ones are remembered. */
export const redactUrl = memoized(redactUrlNow);

function redactUrlNow(raw: string): string {
  try {
    const u = new URL(raw);
    u.username = '';
    u.password = '';
    for (const key of [...u.searchParams.keys()]) {
      if (/key|token|secret|password|auth|sig/i.test(key)) u.searchParams.set(key, 'REDACTED');
    }
    return u.toString();
  } catch {
    return 'invalid-url';
  }
}

const IDEMPOTENT = new Set(['GET', 'HEAD']);

/** Answers kept to recognise the same bytes again (answer-memo.ts): a few per feed and ZIP in use. */
const ANSWER_MEMO_ENTRIES = 500;
export const ANSWER_MEMO_BYTES = 24 * 1024 * 1024;

export function createUpstreamFetch(opts: UpstreamFetchOptions = {}): UpstreamFetch {
  const fromEnv = loadUpstreamSettings(opts.env ?? process.env);
  const { env: _env, transport: customTransport, logger, random, breaker: breakerOverrides, ...overrides } = opts;
  const settings: UpstreamSettings = {
    ...fromEnv,
    ...(Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as Partial<UpstreamSettings>),
    breaker: { ...fromEnv.breaker, ...breakerOverrides },
  };
  const owned = customTransport ? null : undiciTransport(settings.connections);
  const transport: Transport = customTransport ?? owned!;
  const breakers = createFeedBreakers(settings.breaker, logger);
  const inFlight = createInFlight();
  const answers = createAnswerMemo({ maxEntries: ANSWER_MEMO_ENTRIES, maxBytes: ANSWER_MEMO_BYTES });
  const stale = createStaleCache({
    maxAgeSeconds: settings.staleIfErrorSeconds,
    maxEntries: settings.staleMaxEntries,
    maxBytes: settings.staleMaxBytes,
  });

  /** One logical exchange with the feed (breaker + retries); shared by deduplicated callers. */
  async function exchange(
    feed: string,
    url: string,
    method: string,
    init: RequestInit,
    timeoutMs: number,
    callerSignal: AbortSignal | undefined,
    key: string | null,
    span: FeedCallSpan | undefined,
  ): Promise<BufferedResponse> {
    const origin = originOf(url);
    const stats = upstreamStats.feed(feed);
    const deadline = Date.now() + timeoutMs;
    const result = await breakers.run(feed, origin, () =>
      withRetries(
        {
          retries: IDEMPOTENT.has(method) ? settings.retries : 0,
          baseDelayMs: settings.retryBaseDelayMs,
          maxDelayMs: settings.retryMaxDelayMs,
          attemptTimeoutMs: settings.attemptTimeoutMs,
          deadline,
          signal: callerSignal,
          random,
          onAttempt: () => void stats.attempts++,
          onRetry: () => void stats.retries++,
        },
        async (signal) => {
          // Traced: each attempt is a span of its own, named in the traceparent the feed receives.
          const attempt = span?.startAttempt();
          let b: BufferedResponse;
          try {
            b = await transport(
              url,
              attempt ? withHeaders(init, method, signal, attempt.headers) : { ...init, method, signal },
              settings.maxBodyBytes,
            );
          } catch (err) {
            const error = classifyError(err, signal);
            attempt?.end(null, error.kind);
            throw error;
          }
          attempt?.end(b.status, b.status >= 500 || b.status === 429 ? `status ${b.status}` : null);
          if (b.status >= 500 || b.status === 429) {
            throw new UpstreamError('status', {
              status: b.status,
              retryable: RETRYABLE_STATUS.has(b.status),
              retryAfterMs: parseRetryAfter(headerOf(b, 'retry-after')),
            });
          }
          return method === 'HEAD' ? b : validated(b, key, answers);
        },
      ),
    );
    // Once per upstream answer, however many callers share it. A non-storable answer (no-store,
    // 4xx) also forgets an older copy.
    if (key && method === 'GET') stale.remember(key, withoutText(result));
    return result;
  }

  const fetchFn = async (url: string, init: RequestInit = {}, context?: unknown): Promise<Response> => {
    const scope = feedScopeOf(context);
    const feed = scope?.feed ?? 'unknown';
    const timeoutMs = scope?.timeoutMs ?? settings.defaultTimeoutMs;
    const method = (init.method ?? 'GET').toUpperCase();
    const idempotent = IDEMPOTENT.has(method) && init.body == null;
    const headers = new Headers(init.headers as HeadersInit | undefined);
    const callerSignal = init.signal ?? undefined;
    const started = performance.now();
    const stats = upstreamStats.feed(feed);
    stats.calls++;
    const call: UpstreamCall = { feed, url: redactUrl(url), status: null, durationMs: 0, maxAge: null };
    const key = idempotent ? requestKey(method, url, headers) : null;
    const plainInit: RequestInit = { ...init, headers };
    delete plainInit.signal;
    const span = scope?.trace?.startCall({
      feed,
      method,
      url: spanUrl(url),
      page: scope.page,
      breaker: breakers.state(feed, originOf(url)),
    });
    let deduplicated = false;
    let staleSeconds: number | null = null;
    try {
      let result: BufferedResponse;
      try {
        if (key && settings.dedup) {
          // The shared call is not tied to any one caller's signal; each caller may stop waiting.
          const { promise, joined } = inFlight.run(key, () => exchange(feed, url, method, plainInit, timeoutMs, undefined, key, span));
          if (joined) {
            stats.dedupHits++;
            deduplicated = true;
          }
          result = await raceAbort(promise, callerSignal);
        } else {
          result = await exchange(feed, url, method, plainInit, timeoutMs, callerSignal, key, span);
        }
      } catch (err) {
        const error = classifyError(err, callerSignal);
        upstreamStats.recordError(feed, error.kind);
        call.error = error.kind === 'status' ? `status ${error.status}` : error.kind;
        call.status = error.status;
        const copy = key && error.kind !== 'aborted' ? stale.lookup(key) : null;
        if (!copy) throw error;
        stats.staleServed++;
        staleSeconds = copy.ageSeconds;
        reportStale(scope, feed, copy.ageSeconds);
        call.error += ` (served a ${copy.ageSeconds} s old copy)`;
        call.status = copy.response.status;
        // Never a reason to store the answer longer: stale data is already past its freshness.
        call.maxAge = 0;
        return toResponse(copy.response, { age: String(copy.ageSeconds) });
      }
      call.status = result.status;
      call.maxAge = cacheControlMaxAge(headerOf(result, 'cache-control'));
      return toResponse(result);
    } finally {
      const ms = performance.now() - started;
      call.durationMs = Math.round(ms * 100) / 100;
      upstreamStats.recordLatency(feed, ms);
      scope?.calls.push(call);
      span?.end({ status: call.status, error: call.error ?? null, deduplicated, staleSeconds });
    }
  };

  return Object.assign(fetchFn as MeshFetch, {
    settings,
    async close() {
      breakers.shutdown();
      stale.clear();
      answers.clear();
      await owned?.close();
    },
  });
}

/**
 * The answer after the edge validation, its text and parse kept for its callers; the bytes the feed
 * sent last time for this request take that answer's (validated, parsed and mapped then).
 */
function validated(b: BufferedResponse, key: string | null, answers: AnswerMemo): BufferedResponse {
  const same = key ? answers.match(key, b) : undefined;
  if (same) return same;
  const valid = validatePayload(b);
  if (valid === undefined) return b;
  const answer = { ...b, text: valid.text, parsed: { value: valid.json }, derived: new Map() };
  if (key) answers.remember(key, answer);
  return answer;
}

/** The answer as a stale copy keeps it: its bytes, not their decoded text, parse and what callers derived. */
function withoutText(b: BufferedResponse): BufferedResponse {
  if (b.text === undefined && b.parsed === undefined && b.derived === undefined) return b;
  const { text: _text, parsed: _parsed, derived: _derived, ...plain } = b;
  return plain;
}

/** One entry per feed per request; the oldest copy used wins. */
function reportStale(scope: FeedScope | undefined, feed: string, ageSeconds: number): void {
  if (!scope) return;
  scope.stale ??= [];
  const existing = scope.stale.find((s) => s.feed === feed);
  if (existing) existing.ageSeconds = Math.max(existing.ageSeconds, ageSeconds);
  else scope.stale.push({ feed, ageSeconds });
}

/** A traced attempt's request: the call's headers plus the trace context (the dedup key was made without it). */
function withHeaders(
  init: RequestInit,
  method: string,
  signal: AbortSignal,
  extra: Record<string, string>,
): RequestInit & { signal: AbortSignal } {
  const headers = new Headers(init.headers as HeadersInit | undefined);
  for (const name in extra) headers.set(name, extra[name]!);
  return { ...init, headers, method, signal };
}

/** The URL a span may hold: no credentials, no query string (the premises feed carries the address there). */
function spanUrl(url: string): string {
  const redacted = redactUrl(url);
  const cut = redacted.search(/[?#]/);
  return cut < 0 ? redacted : redacted.slice(0, cut);
}

/** Origins by URL without query or fragment (the part an origin is read from; a premises query holds an address). */
const originOfBase = memoized((base) => {
  try {
    return new URL(base).origin;
  } catch {
    return 'invalid-url';
  }
});

/** The breaker's origin of an exchange's URL. */
function originOf(url: string): string {
  const q = url.indexOf('?');
  const h = url.indexOf('#');
  const cut = q < 0 ? h : h < 0 ? q : Math.min(q, h);
  return originOfBase(cut < 0 ? url : url.slice(0, cut));
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new UpstreamError('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new UpstreamError('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** max-age (or s-maxage) of a Cache-Control header; 0 for no-store/no-cache/private; null when absent. */
function cacheControlMaxAge(header: string | null): number | null {
  if (!header) return null;
  if (/(?:^|,)\s*(?:no-store|no-cache|private)\s*(?:,|$)/i.test(header)) return 0;
  const m = /(?:^|,)\s*s-maxage\s*=\s*(\d+)/i.exec(header) ?? /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(header);
  return m ? Number(m[1]) : null;
}
