// Calls a declared feed through its FeedCall (mesh/feed-call.ts, built by the Mesh adapter), page by page when it is
// paginated, and maps its payload to canonical records. Offers feeds fan out by their call scope:
// a request-scoped feed once per request, a utility-scoped one once per served choice territory.
import { GraphQLError } from 'graphql';
import type { Territory } from '../domain/canonical.js';
import type { CanonicalByKind, FeedInput, FeedKind, Rejection } from '../transforms/mapping/types.js';
import type { CallableFeed } from '../mesh/feed-call.js';
import { FeedPayloadError } from '../transforms/mapping/types.js';
import { callPaged, type PagedResult } from '../transforms/paged-call.js';
import type { ResolverContext } from './context.js';
import { feedUnavailable, upstreamUnavailable } from './errors.js';
import { withFeedScope, type FeedScope } from '../sources/upstream/feed-scope.js';

export async function fetchFeed<K extends FeedKind>(
  ctx: ResolverContext,
  binding: CallableFeed<K>,
  input: FeedInput,
): Promise<CanonicalByKind[K][]> {
  if (binding.scope === 'utility' && binding.cacheSeconds > 0 && ctx.feeds.memo) {
    const key = `${binding.source}\u0000${JSON.stringify(binding.args(input))}`;
    const kept = { maxAge: Infinity as number };
    return ctx.feeds.memo.get(
      key,
      () => fetchLive(ctx, binding, input, kept),
      () => Math.min(binding.cacheSeconds, kept.maxAge),
    );
  }
  return fetchLive(ctx, binding, input);
}

/** `kept.maxAge`: the shortest Cache-Control max-age the feed's answers allowed (0 for no-store). */
async function fetchLive<K extends FeedKind>(
  ctx: ResolverContext,
  binding: CallableFeed<K>,
  input: FeedInput,
  kept?: { maxAge: number },
): Promise<CanonicalByKind[K][]> {
  const execute = binding.execute;
  if (!execute) throw upstreamUnavailable(binding.source, 'is not configured');
  let result: PagedResult<K>;
  try {
    let page = 0;
    result = await callPaged(binding, input, async (args, timeoutMs) => {
      page++;
      const scope: FeedScope = { feed: binding.source, timeoutMs, calls: ctx.upstreamCalls, stale: ctx.staleFeeds };
      // Only a traced request carries these: an untraced scope keeps its shape and size.
      if (ctx.trace) {
        scope.trace = ctx.trace;
        if (binding.pagination) scope.page = page;
      }
      const before = ctx.upstreamCalls.length;
      const payload = await execute(args, withFeedScope(ctx, scope));
      if (kept)
        for (const c of ctx.upstreamCalls.slice(before)) if (typeof c.maxAge === 'number') kept.maxAge = Math.min(kept.maxAge, c.maxAge);
      if (payload instanceof Error) throw payload;
      return payload;
    });
  } catch (err) {
    if (err instanceof FeedPayloadError) throw upstreamUnavailable(binding.source, 'answered with a malformed payload');
    throw upstreamUnavailable(binding.source, describe(err));
  }
  if (result.truncated) ctx.feeds.events?.truncated(binding.source, result.truncated);
  if (result.rejected.length) noteRejections(ctx, binding.source, result.rejected);
  ctx.feeds.events?.answered(binding.source, result.records.length, result.rejected);
  // Offers all dropped (an implausible value, a record that does not map): the plans are missing, and the answer says so.
  if (binding.kind === 'offers' && result.records.length === 0 && result.rejected.length > 0)
    throw feedUnavailable(binding.source, `every one of the ${result.rejected.length} offers it sent was dropped`);
  return result.records;
}

/** The single feed of a kind (territories, state statistics, premises): the first declared. */
export function soleFeed<K extends FeedKind>(ctx: ResolverContext, kind: K): CallableFeed<K> {
  const [binding] = ctx.feeds.byKind(kind);
  if (!binding) throw new GraphQLError(`No ${kind} feed is configured.`, { extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
  return binding;
}

interface OffersCall {
  binding: CallableFeed<'offers'>;
  input: FeedInput;
  /** Set for a utility-scoped call: the one territory it answers for. */
  utilityId?: string;
}

/** One call per request-scoped feed; one per served territory (deduplicated) per utility-scoped feed. */
function offersCalls(bindings: CallableFeed<'offers'>[], served: readonly Territory[], input: FeedInput): OffersCall[] {
  const utilities = [...new Set(served.map((t) => t.utilityId))];
  return bindings.flatMap((binding): OffersCall[] =>
    binding.scope === 'utility'
      ? utilities.map((utilityId) => ({ binding, utilityId, input: { utilityId, customerClass: input.customerClass } }))
      : [{ binding, input }],
  );
}

/**
 * Offers of every offers feed for the served territories, in parallel; a failing call adds an
 * error (naming the territory, for a utility-scoped feed) and leaves the others' records.
 */
export async function fetchOffers(
  ctx: ResolverContext,
  served: readonly Territory[],
  input: FeedInput,
  path: ReadonlyArray<string | number>,
): Promise<CanonicalByKind['offers'][]> {
  const calls = offersCalls(ctx.feeds.byKind('offers'), served, input);
  const settled = await Promise.allSettled(calls.map((c) => fetchFeed(ctx, c.binding, c.input)));
  const records: CanonicalByKind['offers'][] = [];
  const failures: GraphQLError[] = [];
  settled.forEach((s, i) => {
    const call = calls[i]!;
    if (s.status === 'fulfilled') {
      // A utility-scoped answer counts for its own territory only.
      records.push(...(call.utilityId ? s.value.filter((o) => o.utilityId === call.utilityId) : s.value));
    } else failures.push(asFeedError(s.reason, call, path));
  });
  if (failures.length === calls.length && calls.length > 0) {
    // Nothing to show: the field fails as a whole with the first feed's error; others are listed too.
    ctx.extraErrors.push(...failures.slice(1));
    throw failures[0];
  }
  ctx.extraErrors.push(...failures);
  return records;
}

function asFeedError(reason: unknown, call: OffersCall, path: ReadonlyArray<string | number>): GraphQLError {
  const base = reason instanceof GraphQLError ? reason : upstreamUnavailable(call.binding.source);
  if (!call.utilityId) return new GraphQLError(base.message, { path, extensions: base.extensions });
  const message = base.message.replace(/ is unavailable:/, ` is unavailable for utility ${call.utilityId}:`);
  return new GraphQLError(message, { path, extensions: { ...base.extensions, utilityId: call.utilityId } });
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
function noteRejections(ctx: ResolverContext, feed: string, rejected: Rejection[]) {
  for (const r of rejected) if (r.implausible) ctx.feeds.events?.implausible(feed, r.implausible, r.reason);
  const call = [...ctx.upstreamCalls].reverse().find((c) => c.feed === feed);
  if (call) {
    call.rejectedRecords = (call.rejectedRecords ?? 0) + rejected.length;
    call.rejectedExample ??= rejected[0]!.reason.slice(0, 200);
  }
}
