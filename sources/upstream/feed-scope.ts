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
