// Partner quotas on the keyed environments: a token bucket per partner and environment (sustained
// requests a second, and a burst), kept as GCRA's one number, the bucket's "theoretical arrival
// time" (when it will be full again).
//
// - Redis (REDIS_URL set): one Lua script per request checks and moves that time on, atomically,
//   with Redis' own clock, so every instance and worker sharing the Redis counts against one bucket
//   exactly. A refusal moves nothing: a refused request costs no quota. The key expires when the
//   bucket is full again.
// - In process (no REDIS_URL: one process, see operations.md): the same arithmetic in a Map.
//
// A refusal is remembered in memory until the next request may pass (no request can pass before
// that time anywhere, since only time refills a bucket), so a flood of refused requests costs no
// Redis round trip. When Redis cannot answer, this process counts in memory meanwhile (fail open:
// keyed partners keep being served, each instance holding them to the quota on its own).
import { LRUCache } from 'lru-cache';
import { canReach, noteRedisFailure, redisDeadline, type RedisClient } from './redis-health.js';
import { defineScripts } from './redis-scripts.js';

/** A bucket's size and refill (the partner record's quota, stores/partner-quota.ts). */
export interface RateQuota {
  /** Sustained requests a second. */
  requestsPerSecond: number;
  /** Requests that may arrive at once (the bucket's size). */
  burst: number;
}

export interface QuotaVerdict {
  allowed: boolean;
  /** Requests that may still be sent at once after this one. */
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit's t). */
  resetSeconds: number;
  /** When refused: seconds until one request may pass (Retry-After), at least 1. */
  retryAfterSeconds: number;
  /** When refused: milliseconds until one request may pass (0 when allowed). */
  waitMs: number;
  /** Counted in memory because Redis did not answer. */
  degraded?: boolean;
}

export interface QuotaCounter {
  /** Takes one request from the bucket of `subject` (environment and partner), or refuses it. */
  take(subject: string, quota: RateQuota): Promise<QuotaVerdict>;
  readonly mode: 'redis' | 'memory';
}

export const QUOTA_KEY_PREFIX = 'epg:quota:v1:';
/** The longest a request waits for Redis before this process counts it in memory. */
const QUOTA_DEADLINE_MS = 250;

// KEYS[1] the bucket; ARGV[1] µs between requests (1e6 / rate), ARGV[2] the burst. Returns
// { allowed 1|0, µs until full after this request (allowed) or until one may pass (refused) }.
const TAKE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local span = interval * tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local after = tat + interval
if after - now > span then
  return {0, string.format('%.0f', after - span - now)}
end
redis.call('SET', KEYS[1], string.format('%.0f', after), 'PX', math.ceil((after - now) / 1000) + 1)
return {1, string.format('%.0f', after - now)}
`;

type TakeScript = (key: string, intervalUs: number, burst: number) => Promise<[number, string]>;

function verdict(allowed: boolean, us: number, quota: RateQuota, intervalUs: number): QuotaVerdict {
  if (!allowed)
    return {
      allowed,
      remaining: 0,
      resetSeconds: Math.ceil((us + intervalUs * quota.burst) / 1e6),
      retryAfterSeconds: Math.max(1, Math.ceil(us / 1e6)),
      waitMs: us / 1000,
    };
  // `us` is how far the bucket is from full: whole requests left are what the rest of the span holds.
  return {
    allowed,
    remaining: Math.max(0, Math.floor((intervalUs * quota.burst - us) / intervalUs)),
    resetSeconds: Math.ceil(us / 1e6),
    retryAfterSeconds: 0,
    waitMs: 0,
  };
}

const intervalOf = (q: RateQuota) => Math.round(1e6 / q.requestsPerSecond);

/** Buckets in one process's memory (also Redis' stand-in while it does not answer). */
export class MemoryQuotaCounter implements QuotaCounter {
  readonly mode = 'memory' as const;
  /** Subject -> theoretical arrival time, µs. Partners are few; bounded all the same. */
  private readonly tats = new LRUCache<string, number>({ max: 10_000 });

  constructor(private readonly nowUs: () => number = () => performance.timeOrigin * 1000 + performance.now() * 1000) {}

  async take(subject: string, quota: RateQuota): Promise<QuotaVerdict> {
    return this.takeNow(subject, quota);
  }

  takeNow(subject: string, quota: RateQuota): QuotaVerdict {
    const now = this.nowUs();
    const interval = intervalOf(quota);
    // Keyed by the quota too, as in Redis: a changed quota starts a new bucket, full, rather than read
    // a time set at another rate (up to a whole slow burst ahead).
    const key = `${subject}:${quota.requestsPerSecond}:${quota.burst}`;
    const tat = Math.max(this.tats.get(key) ?? 0, now);
    const after = tat + interval;
    if (after - now > interval * quota.burst) return verdict(false, after - interval * quota.burst - now, quota, interval);
    this.tats.set(key, after);
    return verdict(true, after - now, quota, interval);
  }
}

class RedisQuotaCounter implements QuotaCounter {
  readonly mode = 'redis' as const;
  private readonly script: TakeScript;
  private readonly fallback = new MemoryQuotaCounter();

  constructor(
    private readonly redis: RedisClient,
    private readonly onDegraded: (err: unknown) => void = () => {},
  ) {
    const client = defineScripts<{ epgPartnerQuotaTake: TakeScript }>(redis, { epgPartnerQuotaTake: { keys: 1, lua: TAKE_LUA } });
    this.script = client.epgPartnerQuotaTake.bind(redis);
  }

  async take(subject: string, quota: RateQuota): Promise<QuotaVerdict> {
    // The quota is part of the key: a changed quota starts a new bucket, full, rather than read
    // the old one's time against a different rate.
    const key = `${QUOTA_KEY_PREFIX}${subject}:${quota.requestsPerSecond}:${quota.burst}`;
    if (canReach(this.redis, key)) {
      try {
        const interval = intervalOf(quota);
        const [allowed, us] = await redisDeadline(this.script(key, interval, quota.burst), QUOTA_DEADLINE_MS);
        return verdict(Number(allowed) === 1, Number(us), quota, interval);
      } catch (err) {
        noteRedisFailure(this.redis, key, err);
        this.onDegraded(err);
      }
    }
    return { ...this.fallback.takeNow(subject, quota), degraded: true };
  }
}

/** Remembers refusals until their Retry-After, so a flood of refused requests is answered from memory. */
export class RefusalMemo {
  private readonly until = new LRUCache<string, { untilMs: number; atMs: number; verdict: QuotaVerdict }>({ max: 10_000 });

  refusedNow(subject: string, nowMs = Date.now()): QuotaVerdict | null {
    const m = this.until.get(subject);
    if (!m) return null;
    if (m.untilMs <= nowMs) {
      this.until.delete(subject);
      return null;
    }
    const left = m.untilMs - nowMs;
    const resetSeconds = Math.max(1, Math.ceil(m.verdict.resetSeconds - (nowMs - m.atMs) / 1000));
    return { ...m.verdict, resetSeconds, retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)), waitMs: left };
  }

  remember(subject: string, v: QuotaVerdict, msUntilNext: number, nowMs = Date.now()): void {
    this.until.set(subject, { untilMs: nowMs + msUntilNext, atMs: nowMs, verdict: v });
  }
}

export function createQuotaCounter(redis: RedisClient | null, onDegraded?: (err: unknown) => void): QuotaCounter {
  return redis ? new RedisQuotaCounter(redis, onDegraded) : new MemoryQuotaCounter();
}
