// Identical concurrent GETs share one upstream call. "Identical" = same method, URL and the request
// headers that can change the answer (everything except per-request tracing noise). The first
// caller starts the call; later callers with the same key join it until it settles. Every caller
// then builds its own Response from the buffered body (see transport.ts toResponse), so one
// caller reading or cancelling its body cannot affect another.
import { hash } from 'node:crypto';

/** Request headers that never change an upstream answer and differ per request. */
const IGNORED_HEADERS = new Set([
  'x-request-id',
  'x-correlation-id',
  'traceparent',
  'tracestate',
  'baggage',
  'sentry-trace',
  'x-b3-traceid',
  'x-b3-spanid',
  'x-b3-parentspanid',
  'x-b3-sampled',
  'b3',
  'user-agent',
  'connection',
  'keep-alive',
  'content-length',
]);

/**
 * A fixed-size key for a request. Hashed, so credentials in headers are not kept in map keys
 * (the same key indexes the stale-if-error copies).
 */
export function requestKey(method: string, url: string, headers: Headers): string {
  const kept: string[] = [];
  headers.forEach((value, name) => {
    if (!IGNORED_HEADERS.has(name)) kept.push(`${name}:${value}`);
  });
  kept.sort();
  // One-shot: no Hash object per call (a feed call made one for each request).
  return hash('sha256', `${method.toUpperCase()} ${url}\n${kept.join('\n')}`, 'base64url');
}

interface InFlight {
  /** Runs `start` unless a call with this key is in flight; `joined` tells which happened. */
  run<T>(key: string, start: () => Promise<T>): { promise: Promise<T>; joined: boolean };
  readonly size: number;
}

export function createInFlight(): InFlight {
  const pending = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, start: () => Promise<T>) {
      const existing = pending.get(key);
      if (existing) return { promise: existing as Promise<T>, joined: true };
      const promise = start().finally(() => pending.delete(key));
      pending.set(key, promise);
      // The joiners and the starter all await it; this copy only keeps the map tidy.
      promise.catch(() => {});
      return { promise, joined: false };
    },
    get size() {
      return pending.size;
    },
  };
}
