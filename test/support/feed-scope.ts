// Fetch-layer calls with a feed scope on their context, as the resolvers make them, for the upstream unit tests.
import { withFeedScope, type FeedScope } from '../../sources/upstream/feed-scope.js';

export const scope = (feed = 'Voltify', timeoutMs = 2000): FeedScope => ({ feed, timeoutMs, calls: [], stale: [] });
export const inScope = <T>(s: FeedScope, fn: (context: object) => Promise<T>) => fn(withFeedScope({}, s));

/** A promise's outcome as a value, so a test can assert on rejections without try/catch. */
export async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: Error }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error: error as Error };
  }
}
