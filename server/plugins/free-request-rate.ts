// Free is not unlimited: playground requests that do not count against the allowance (page loads,
// introspection, invalid queries, requests after the allowance is spent) are rate-limited per client
// IP (IPv6 per /64, like the allowance) with rate-limiter-flexible: `points` requests per `windowSeconds`,
// shared through Redis when REDIS_URL is set (an in-memory limiter stands in while Redis is down or hung),
// in memory otherwise (entries expire with their window, so the state is bounded by the IPs seen in
// one window).
//
// Every playground request takes a point in onRequest, before its body is read, so a flood is
// refused at the cost of a counter; a call the allowance counted gets its point back. Once an IP is
// over, it is refused from memory until the window ends (no store round trip per request). The
// refusal: HTTP 429, code RATE_LIMITED, extensions.reason FREE_REQUEST_RATE (the spent allowance
// is ALLOWANCE_USED_UP), Retry-After, and the allowance headers as usual. While refused, an IP's
// counted calls are refused too: a person using GraphiQL never gets there (it sends two free requests
// per page load and one per schema refresh).
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { isRedisUp, type RedisClient } from '../stores/redis-connection.js';
import type { HttpPlugin, Reply, RequestState } from '../http/plugin.js';
import { errorReply } from '../http/plugin.js';
import { allowanceSubject } from '../http/client-ip.js';
import { throttledWarning } from '../../lib/throttled-warning.js';

export const FREE_REQUEST_RATE = 'FREE_REQUEST_RATE';

export interface FreeRequestRateOptions {
  /** Free requests per IP per window; 0 turns the limit off. */
  points: number;
  windowSeconds: number;
  redis: RedisClient | null;
  logger?: { warn(obj: object, msg?: string): void };
}

export function freeRequestRatePlugin(opts: FreeRequestRateOptions): HttpPlugin {
  const { points, windowSeconds } = opts;
  if (points <= 0) return { name: 'free-request-rate' };
  const base = { points, duration: windowSeconds, keyPrefix: 'epg:free-rate:v1' };
  const memory = new RateLimiterMemory(base);
  // Blocked IPs are answered from memory (inMemoryBlockOnConsumed) without asking Redis; a Redis
  // that fails a command hands over to the memory limiter (insuranceLimiter), and one known to be
  // down or hung (watchRedis) is not asked at all, so no request waits for a command timeout.
  const redis = opts.redis;
  const shared = redis
    ? new RateLimiterRedis({ ...base, storeClient: redis, inMemoryBlockOnConsumed: points + 1, rejectIfRedisNotReady: true, insuranceLimiter: memory })
    : null;
  const limiter = (): RateLimiterAbstract => (shared && isRedisUp(redis!) ? shared : memory);
  const warn = throttledWarning((obj, msg) => opts.logger?.warn(obj, msg));
  const message = `Too many free playground requests (introspection, invalid queries, page loads, calls after the allowance is spent) from your IP address: at most ${points} per ${windowSeconds} s. Try again later.`;

  return {
    name: 'free-request-rate',
    async onRequest(state: RequestState): Promise<Reply | void> {
      try {
        await limiter().consume(allowanceSubject(state.clientIp));
        return undefined;
      } catch (res) {
        // An outage of every store serves the request: the allowance still guards counted calls.
        if (!(res instanceof RateLimiterRes)) return undefined;
        const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
        state.notes.allowance = { ...(state.notes.allowance as object | undefined), counted: false, reason: 'free_request_rate' };
        warn({ requestId: state.requestId, clientIp: state.clientIp }, 'request refused: playground free-request rate');
        const reply = errorReply(429, message, 'RATE_LIMITED', { reason: FREE_REQUEST_RATE, retryAfterSeconds: retryAfter });
        reply.headers['Retry-After'] = String(retryAfter);
        return reply;
      }
    },
    onOperation(state: RequestState): void {
      // Set by the allowance plugin, which runs before this one: a counted call was not free.
      if ((state.notes.allowance as { counted?: boolean } | undefined)?.counted === true) {
        limiter().reward(allowanceSubject(state.clientIp), 1).catch(() => {});
      }
    },
  };
}
