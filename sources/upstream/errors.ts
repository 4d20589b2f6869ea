// What can go wrong with one upstream call, as one error type the layers agree on. Messages are
// short and never carry the URL, headers or body (they end up in logs; resolvers map them to
// partner-facing wording in resolvers/feed-client.ts: "timed out", "circuit", "malformed").
export type UpstreamErrorKind =
  | 'timeout' // the attempt or the feed's budget ran out
  | 'network' // connection refused/reset, DNS, TLS, socket closed mid-body
  | 'status' // 5xx or 429 from the feed
  | 'malformed' // 2xx with a body that is not a JSON object/array (incl. JSON null, empty)
  | 'too_large' // body above UPSTREAM_MAX_BODY_BYTES
  | 'circuit_open' // the feed's breaker is open: refused without calling
  | 'aborted'; // the caller cancelled (not a feed failure)

const MESSAGES: Record<UpstreamErrorKind, string> = {
  timeout: 'upstream timed out',
  network: 'upstream network error',
  status: 'upstream answered with an error status',
  malformed: 'upstream answered with a malformed payload',
  too_large: 'upstream answered with a body that is too large',
  circuit_open: 'upstream circuit open: feed temporarily disabled after repeated failures',
  aborted: 'upstream call aborted by the caller',
};

export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  readonly status: number | null;
  /** Worth another attempt (network errors, timeouts, 502/503/504) if the budget allows. */
  readonly retryable: boolean;
  /** Retry-After of a 503/429, in ms, when the feed sent one. */
  readonly retryAfterMs: number | null;

  constructor(
    kind: UpstreamErrorKind,
    opts: { status?: number; retryable?: boolean; retryAfterMs?: number | null; detail?: string; cause?: unknown } = {},
  ) {
    const base = kind === 'status' && opts.status ? `${MESSAGES.status} (${opts.status})` : MESSAGES[kind];
    super(opts.detail ? `${base}: ${opts.detail}` : base, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'UpstreamError';
    this.kind = kind;
    this.status = opts.status ?? null;
    this.retryable = opts.retryable ?? false;
    this.retryAfterMs = opts.retryAfterMs ?? null;
  }
}

export const RETRYABLE_STATUS = new Set([502, 503, 504]);

/** Maps whatever a transport threw (undici TypeError 'fetch failed', DOMException, ...) to an UpstreamError. */
export function classifyError(err: unknown, signal?: AbortSignal): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const reason = signal?.aborted ? signal.reason : undefined;
  const name = (err as { name?: string })?.name;
  if (name === 'TimeoutError' || (reason as { name?: string })?.name === 'TimeoutError') {
    return new UpstreamError('timeout', { retryable: true });
  }
  if (name === 'AbortError' || signal?.aborted) return new UpstreamError('aborted');
  // Node/undici: TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' | 'UND_ERR_SOCKET' | ... } }).
  const code = (err as { cause?: { code?: string } })?.cause?.code ?? (err as { code?: string })?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new UpstreamError('timeout', { retryable: true });
  }
  return new UpstreamError('network', { retryable: true, detail: typeof code === 'string' && /^[A-Z_]+$/.test(code) ? code : undefined });
}

/** Retry-After as ms (delta-seconds or HTTP date); null when absent or unparsable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
