// Free is not unlimited: the playground's free requests (page loads, introspection, invalid queries,
// calls after the allowance is spent) are limited per client to `points` per `windowSeconds`, a
// fixed window from the client's first free request. Every playground request is charged one
// point before its body is read, and a call the allowance counts gets its point back.
//
// The allowance stores (allowance.ts) keep this counter beside the allowance, so that a playground
// request costs one store round trip before its body is read and one more when it is counted (in
// Redis: one Lua script each, see allowance.ts). This module holds what both stores share: the
// in-memory limiter (rate-limiter-flexible) that counts without Redis and stands in while Redis is
// down, and the memo of clients known to be over the limit, which refuses them from memory until
// their window ends instead of asking the store on every request of a flood.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { LRUCache } from 'lru-cache';

export interface FreeRate {
  /** Free requests per client per window; 0 turns the limit off. */
  points: number;
  windowSeconds: number;
}

/** Clients remembered as over the limit: enough for a flood from many addresses, bounded in memory. */
const BLOCKED_MAX = 100_000;

export class FreeRateCounter {
  readonly windowMs: number;
  private readonly memory: RateLimiterMemory;
  /** Client -> when its refusal ends, and its remaining calls when it began (answered while refused). */
  private readonly blocked = new LRUCache<string, { until: number; remaining: number | null }>({ max: BLOCKED_MAX });

  constructor(readonly rate: FreeRate) {
    this.windowMs = rate.windowSeconds * 1000;
    this.memory = new RateLimiterMemory({ points: rate.points, duration: rate.windowSeconds, keyPrefix: 'epg:free-rate' });
  }

  get enabled(): boolean {
    return this.rate.points > 0;
  }

  /**
   * A client known to be over the limit: how long it stays refused, and the remaining calls read
   * when its refusal began (its counted calls are refused meanwhile, so they do not change here).
   */
  blockedFor(subject: string, now = Date.now()): { ms: number; remaining: number | null } | null {
    const b = this.blocked.get(subject);
    if (b === undefined) return null;
    if (b.until > now) return { ms: b.until - now, remaining: b.remaining };
    this.blocked.delete(subject);
    return null;
  }

  /** The verdict on a count of free requests in the current window (from a store): ms refused, 0 when within. */
  verdict(subject: string, count: number, msLeft: number, remaining: number | null, now = Date.now()): number {
    if (count <= this.rate.points) return 0;
    const ms = Math.max(1, msLeft);
    this.blocked.set(subject, { until: now + ms, remaining });
    return ms;
  }

  /** Charges one point in memory (no store, or the store is down): ms refused, 0 when within. */
  async charge(subject: string, remaining: number | null): Promise<number> {
    try {
      await this.memory.consume(subject);
      return 0;
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) return 0;
      return this.verdict(subject, res.consumedPoints, res.msBeforeNext, remaining);
    }
  }

  /** Gives a point charged in memory back. */
  refund(subject: string): void {
    this.memory.reward(subject, 1).catch(() => {});
  }
}
