// Calls a declared feed on its Mesh source (server/mesh.ts: sourceCall) and maps its payload to
// canonical records.
import { GraphQLError } from 'graphql';
import type { CanonicalByKind, FeedBinding, FeedInput, FeedKind } from '../feeds/mapping/types.js';
import { FeedPayloadError } from '../feeds/mapping/types.js';
import type { ResolverContext } from './context.js';
import { upstreamUnavailable } from './errors.js';
import { withFeedScope } from '../feeds/upstream/feed-scope.js';

export async function fetchFeed<K extends FeedKind>(
  ctx: ResolverContext,
  binding: FeedBinding<K>,
  input: FeedInput,
): Promise<CanonicalByKind[K][]> {
  const execute = binding.execute;
  if (!execute) throw upstreamUnavailable(binding.source, 'is not configured');
  let payload: unknown;
  try {
    const scope = { feed: binding.source, timeoutMs: binding.timeoutMs, calls: ctx.upstreamCalls, stale: ctx.staleFeeds };
    const args = binding.args(input);
    payload = await execute(args, withFeedScope(ctx, scope));
  } catch (err) {
    throw upstreamUnavailable(binding.source, describe(err));
  }
  if (payload instanceof Error) throw upstreamUnavailable(binding.source, describe(payload));
  try {
    const { records, rejected } = binding.map(payload);
    if (rejected.length) noteRejections(ctx, binding.source, rejected);
    return records;
  } catch (err) {
    if (err instanceof FeedPayloadError) throw upstreamUnavailable(binding.source, 'answered with a malformed payload');
    throw err;
  }
}

/** The single feed of a kind (territories, state statistics, premises): the first declared. */
export function soleFeed<K extends FeedKind>(ctx: ResolverContext, kind: K): FeedBinding<K> {
  const [binding] = ctx.feeds.byKind(kind);
  if (!binding) throw new GraphQLError(`No ${kind} feed is configured.`, { extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
  return binding;
}

/** Fans out to every feed of a kind in parallel; a failing feed adds an error and leaves the others' records. */
export async function fetchAllFeeds<K extends FeedKind>(
  ctx: ResolverContext,
  kind: K,
  input: FeedInput,
  path: ReadonlyArray<string | number>,
): Promise<CanonicalByKind[K][]> {
  const bindings = ctx.feeds.byKind(kind);
  const settled = await Promise.allSettled(bindings.map((b) => fetchFeed(ctx, b, input)));
  const records: CanonicalByKind[K][] = [];
  const failures: GraphQLError[] = [];
  settled.forEach((s, i) => {
    if (s.status === 'fulfilled') records.push(...s.value);
    else failures.push(asFeedError(s.reason, bindings[i]!.source, path));
  });
  if (failures.length === bindings.length && bindings.length > 0) {
    // Nothing to show: the field fails as a whole with the first feed's error; others are listed too.
    ctx.extraErrors.push(...failures.slice(1));
    throw failures[0];
  }
  ctx.extraErrors.push(...failures);
  return records;
}

function asFeedError(reason: unknown, feed: string, path: ReadonlyArray<string | number>): GraphQLError {
  const base = reason instanceof GraphQLError ? reason : upstreamUnavailable(feed);
  return new GraphQLError(base.message, { path, extensions: base.extensions });
}

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/timed? ?out|abort/i.test(message)) return 'did not answer in time';
  if (/circuit|breaker/i.test(message)) return 'is temporarily disabled after repeated failures';
  if (/malformed|too large/i.test(message)) return 'answered with a malformed payload';
  if (/network/i.test(message)) return 'could not be reached';
  return 'answered with an error';
}

/** Records a feed sent that did not map are skipped; the request's upstream call says how many and why (logs, replay). */
function noteRejections(ctx: ResolverContext, feed: string, rejected: { index: number; reason: string }[]) {
  const call = [...ctx.upstreamCalls].reverse().find((c) => c.feed === feed);
  if (call) {
    call.rejectedRecords = (call.rejectedRecords ?? 0) + rejected.length;
    call.rejectedExample ??= rejected[0]!.reason.slice(0, 200);
  }
}
