// The one way the resolvers reach a feed: a declared feed (its mapping, from transforms/) with the
// call the Mesh adapter built for it (gateway-mesh.ts: sourceCall). The resolvers see this type
// only; the call runs down from here to the upstream transport (sources/upstream/).
import type { FeedBinding, FeedKind } from '../transforms/mapping/types.js';

/** Calls the feed's operation on its source's schema with the feed's own arguments; resolves to the payload (one page). */
export type FeedCall = (args: Record<string, unknown>, context: object) => Promise<unknown>;

/** A declared feed and its call; `execute` is undefined when the source has no such operation. */
export type CallableFeed<K extends FeedKind = FeedKind> = FeedBinding<K> & { readonly execute?: FeedCall };
