// Partners isolated from each other on the keyed environments, in two steps:
//
// 1. The request quota (onRequest, once the key named the partner, before the body is read): one
//    request from the partner's bucket for this environment (cache/partner-quota.ts; the quota is
//    in its partner record, stores/partner-quota.ts). Every answer to a keyed request carries
//    the IETF RateLimit-Policy and RateLimit headers (structured fields: the policy's burst `q` in
//    a window `w` of seconds to refill it; `r` requests left now, `t` seconds until the bucket is
//    full); none under "unlimited". Over the quota: 429 RATE_LIMITED, reason PARTNER_QUOTA, with
//    Retry-After.
// 2. Fair share of the expensive work (onBeforeExecute, so after the response cache and request
//    coalescing answered what they could: a hit never waits here): an uncached execution takes one
//    of the process's execution slots (lib/fair-share.ts), at most a share of them per partner and
//    environment, cut while the event loop is busy and another partner active (any request of a
//    partner marks it active); past it the request waits behind its own partner's, in a bounded queue. A full
//    queue or a wait past its bound: 429 RATE_LIMITED, reason PARTNER_CONCURRENCY, Retry-After 1.
//
// What happened is noted for the log line, the replay record and the metrics (state.notes.quota).
import type { PreparedOperation } from '../graphql/prepare.js';
import type { HttpPlugin, Reply, RequestState } from '../http/plugin.js';
import { errorReply } from '../http/plugin.js';
import type { QuotaCounter, QuotaVerdict } from '../../cache/partner-quota.js';
import { RefusalMemo } from '../../cache/partner-quota.js';
import type { FairShare, Slot } from '../../lib/fair-share.js';
import type { KeyedEnvironment, QuotaSetting, RateQuota } from '../../stores/partner-quota.js';
import { throttledWarning, type Warn } from '../../lib/throttled-warning.js';

/** extensions.reason of a 429 for a partner over its request quota. */
export const PARTNER_QUOTA = 'PARTNER_QUOTA';
/** extensions.reason of a 429 for a partner with too many uncached requests waiting. */
export const PARTNER_CONCURRENCY = 'PARTNER_CONCURRENCY';

export interface QuotaNote {
  partner: string;
  /** "50/s burst 200" or "unlimited". */
  policy: string;
  result: 'allowed' | 'refused';
  reason?: typeof PARTNER_QUOTA | typeof PARTNER_CONCURRENCY;
  remaining?: number;
  retryAfterSeconds?: number;
  /** Milliseconds waited for an execution slot (uncached executions only). */
  queuedMs?: number;
  /** Counted in this process's memory: Redis did not answer. */
  degraded?: boolean;
}

interface PartnerQuotaPluginOptions {
  environment: KeyedEnvironment;
  counter: QuotaCounter;
  /** The quota of a partner in this environment, as its record says now. */
  quotaOf(partner: string, environment: KeyedEnvironment): QuotaSetting;
  share: FairShare;
  logger?: { warn: Warn } | null;
}

export function policyHeader(q: RateQuota): string {
  return `"default";q=${q.burst};w=${Math.max(1, Math.ceil(q.burst / q.requestsPerSecond))}`;
}

export function partnerQuotaPlugin(opts: PartnerQuotaPluginOptions): HttpPlugin {
  const { environment, counter, share } = opts;
  const memo = new RefusalMemo();
  const slots = new WeakMap<RequestState, Slot>();
  const warn = throttledWarning((obj, msg) => opts.logger?.warn(obj, msg));
  const release = (state: RequestState) => slots.get(state)?.release();

  const refuse = (state: RequestState, note: QuotaNote, message: string, retryAfter: number): Reply => {
    state.notes.quota = note;
    warn({ requestId: state.requestId, environment, partner: note.partner, reason: note.reason }, 'request refused: partner quota');
    const reply = errorReply(429, message, 'RATE_LIMITED', { reason: note.reason, retryAfterSeconds: retryAfter });
    reply.headers['Retry-After'] = String(retryAfter);
    return reply;
  };

  const answer = (state: RequestState, partner: string, quota: RateQuota, v: QuotaVerdict): Reply | void => {
    state.headers['RateLimit-Policy'] = policyHeader(quota);
    state.headers['RateLimit'] = `"default";r=${v.remaining};t=${v.resetSeconds}`;
    const policy = `${quota.requestsPerSecond}/s burst ${quota.burst}`;
    const degraded = v.degraded ? { degraded: true } : {};
    if (v.allowed) {
      state.notes.quota = { partner, policy, result: 'allowed', remaining: v.remaining, ...degraded } satisfies QuotaNote;
      return undefined;
    }
    return refuse(
      state,
      { partner, policy, result: 'refused', reason: PARTNER_QUOTA, remaining: 0, retryAfterSeconds: v.retryAfterSeconds, ...degraded },
      `Partner ${partner} is over its request quota for ${environment} (${quota.requestsPerSecond} requests a second, bursts of ` +
        `${quota.burst}). Retry after the Retry-After header's seconds, and pace requests by the RateLimit header.`,
      v.retryAfterSeconds,
    );
  };

  return {
    name: 'partner-quota',
    onRequest(state: RequestState): Reply | void | Promise<Reply | void> {
      const partner = state.partnerCode;
      if (!partner) return undefined;
      // Any request, a cache hit too, makes the partner active for the adaptive share.
      share.seen(`${environment}:${partner}`);
      const quota = opts.quotaOf(partner, environment);
      if (quota === 'unlimited') {
        state.notes.quota = { partner, policy: 'unlimited', result: 'allowed' } satisfies QuotaNote;
        return undefined;
      }
      const subject = `${environment}:${partner}`;
      const memoKey = `${subject}:${quota.requestsPerSecond}:${quota.burst}`;
      const known = memo.refusedNow(memoKey);
      if (known) return answer(state, partner, quota, known);
      return counter.take(subject, quota).then((v) => {
        if (!v.allowed) memo.remember(memoKey, v, v.waitMs);
        return answer(state, partner, quota, v);
      });
    },

    onBeforeExecute(state: RequestState, op: PreparedOperation): Reply | void | Promise<Reply | void> {
      const partner = state.partnerCode;
      if (!partner || op.introspectionOnly) return undefined;
      const tenant = `${environment}:${partner}`;
      const admitted = share.admit(tenant);
      const decide = (a: Awaited<typeof admitted>): Reply | void => {
        const note = (state.notes.quota ?? { partner, policy: 'unlimited', result: 'allowed' }) as QuotaNote;
        if ('release' in a) {
          slots.set(state, a);
          state.notes.quota = { ...note, queuedMs: Math.round(a.queuedMs) };
          return undefined;
        }
        return refuse(
          state,
          { ...note, result: 'refused', reason: PARTNER_CONCURRENCY, queuedMs: Math.round(a.queuedMs), retryAfterSeconds: 1 },
          `Partner ${partner} has too many uncached requests waiting in ${environment} (at most ${share.shareOf(tenant)} run at ` +
            `once now, ${share.limits.queue} wait). Retry after the Retry-After header's seconds, with fewer requests at once.`,
          1,
        );
      };
      return admitted instanceof Promise ? admitted.then(decide) : decide(admitted);
    },

    onExecuted(state: RequestState): void {
      release(state);
    },

    // An execution that threw has no onExecuted: its slot is given back here.
    onResponse(state: RequestState): void {
      release(state);
    },
  };
}
