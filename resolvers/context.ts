// What our resolvers expect in the GraphQL context; the gateway builds it per request.
import type { GraphQLError } from 'graphql';
import type { FeedKind } from '../transforms/mapping/types.js';
import type { CallableFeed } from '../mesh/feed-call.js';
import type { FeedTracer, UpstreamCall } from '../sources/upstream/feed-scope.js';
import type { FeedEvents } from '../transforms/feed-events.js';
import type { FeedMemo } from '../transforms/feed-memo.js';

export type { UpstreamCall };

export interface ResolverSettings {
  enrollmentBaseUrl: string;
  utmSource: string;
  /** Put the caller's partner code into the enrollment URL's `ref` (off by default). */
  fillPartnerRef: boolean;
}

export interface FeedRegistry {
  byKind<K extends FeedKind>(kind: K): CallableFeed<K>[];
  /** Truncated pages, implausible records: counted and logged (throttled). */
  events?: FeedEvents;
  /** Utility-scoped answers shared across the ZIPs of a territory. */
  memo?: FeedMemo;
}

export interface ResolverContext {
  environment: string;
  partnerCode: string | null;
  requestId: string;
  feeds: FeedRegistry;
  settings: ResolverSettings;
  /** Upstream calls made for this request (replay records, logs). */
  upstreamCalls: UpstreamCall[];
  /** Errors to report next to partial data (a failing feed among several). */
  extraErrors: GraphQLError[];
  /** Feeds answered from a stale copy for this request (reported in `extensions`). */
  staleFeeds: { feed: string; ageSeconds: number }[];
  now(): Date;
  /** Spans of this request's feed calls, when the request is traced (server/plugins/tracing.ts). */
  trace?: FeedTracer;
  /** In-context SDK of each Mesh source, by source name. */
  [source: string]: unknown;
}
