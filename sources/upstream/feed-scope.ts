// Carries "which feed is this upstream call for" from the resolver into the fetch layer, without
// putting gateway-only headers into the YAML: on the GraphQL context of the feed call, which Mesh's
// REST transport hands to fetch as its third argument. Not AsyncLocalStorage: once it runs, its
// promise hooks tax every promise of the process, cache hits included.
export interface UpstreamCall {
  feed: string;
  url: string;
  status: number | null;
  durationMs: number;
  error?: string;
  /** Seconds the upstream's Cache-Control allows (max-age / s-maxage; 0 for no-store). */
  maxAge?: number | null;
  /** Records of this answer that did not map onto canonical records and were skipped. */
  rejectedRecords?: number;
  rejectedExample?: string;
}

export interface FeedScope {
  feed: string;
  timeoutMs: number;
  /** Where the fetch layer reports the calls it made (the request's replay record). */
  calls: UpstreamCall[];
  /** Set by the fetch layer when it answered from a stale copy because the feed failed. */
  stale?: { feed: string; ageSeconds: number }[];
  /** The request's tracing, when it is traced (server/plugins/tracing.ts); absent otherwise. */
  trace?: FeedTracer;
  /** 1-based page of a paginated feed's call. */
  page?: number;
}

/** Spans of a traced request's feed calls (implemented by server/plugins/tracing.ts). */
export interface FeedTracer {
  /** One call of a feed as the resolver asked for it (retries and dedup inside). */
  startCall(call: { feed: string; method: string; url: string; page: number | undefined; breaker: string }): FeedCallSpan;
}

export interface FeedCallSpan {
  /** One HTTP exchange of the call (the first, or a retry): its span, and the headers naming it. */
  startAttempt(): FeedAttemptSpan;
  end(outcome: { status: number | null; error: string | null; deduplicated: boolean; staleSeconds: number | null }): void;
}

export interface FeedAttemptSpan {
  /** Headers to send with the attempt (W3C traceparent, and tracestate when there is one). */
  headers: Record<string, string>;
  end(status: number | null, error: string | null): void;
}

const FEED_SCOPE = Symbol('feed scope');

/** A copy of a feed call's context that carries its scope (a copy: one context per request is shared by parallel feed calls). */
export function withFeedScope<C extends object>(context: C, scope: FeedScope): C {
  return { ...context, [FEED_SCOPE]: scope };
}

/** The scope of the feed call a fetch belongs to, if any. */
export function feedScopeOf(context: unknown): FeedScope | undefined {
  return context !== null && typeof context === 'object' ? (context as { [FEED_SCOPE]?: FeedScope })[FEED_SCOPE] : undefined;
}
