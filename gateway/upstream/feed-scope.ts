// Carries "which feed is this upstream call for" from the resolver into the fetch layer, through
// Mesh's delegation, without putting gateway-only headers into the YAML.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { UpstreamCall } from '../../resolvers/context.js';

export interface FeedScope {
  feed: string;
  timeoutMs: number;
  /** Where the fetch layer reports the calls it made (the request's replay record). */
  calls: UpstreamCall[];
  /** Set by the fetch layer when it answered from a stale copy because the feed failed. */
  stale?: { feed: string; ageSeconds: number }[];
}

export const feedScope = new AsyncLocalStorage<FeedScope>();
