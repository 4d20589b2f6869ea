// Refused console sign-ins are limited per client address: after CONSOLE_SIGN_IN_FAILURES refusals
// within CONSOLE_SIGN_IN_WINDOW, a sign-in from that address answers 429 with Retry-After until the
// window ends, without checking the token. Counted in Redis when the gateway has it (shared by
// every instance; memory stands in while Redis is down), else in memory. Wraps the console, whose
// sign-in answers 401 on a refusal; a limited attempt is audited as sign-in.limited (aggregated).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClient } from '../cache/redis-connection.js';
import type { AuditLog } from './audit/audit-log.js';
import { clientIp, type TrustProxy } from '../server/http/client-ip.js';
import type { SupportConsole } from './console/console.js';
import { sendRetryPage } from './retry-page.js';

interface SignInLimitOptions {
  failures: number;
  windowMs: number;
  redis: RedisClient | null;
  audit: AuditLog;
  trustProxy: TrustProxy;
}

export function limitSignIns(inner: SupportConsole, opts: SignInLimitOptions): SupportConsole {
  const duration = Math.max(1, Math.ceil(opts.windowMs / 1000));
  const keyPrefix = 'console:sign-in-refused';
  const memory = new RateLimiterMemory({ points: opts.failures, duration, keyPrefix });
  const limiter: RateLimiterAbstract = opts.redis
    ? new RateLimiterRedis({ storeClient: opts.redis, points: opts.failures, duration, keyPrefix, insuranceLimiter: memory })
    : memory;

  return {
    async handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL) {
      if (path !== '/console/sign-in' || req.method !== 'POST') return inner.handle(req, res, path, url);
      const from = clientIp(req, opts.trustProxy);
      const seen = await limiter.get(from).catch(() => memory.get(from));
      if (seen && seen.consumedPoints >= opts.failures) {
        const retry = Math.max(1, Math.ceil(seen.msBeforeNext / 1000));
        await opts.audit.write({ actor: 'anonymous', action: 'sign-in.limited', target: null, from });
        req.resume();
        return sendRetryPage(
          res,
          429,
          { title: 'Too many sign-ins', heading: 'Too many refused sign-ins', text: 'Too many refused sign-ins from this address.' },
          retry,
        );
      }
      await inner.handle(req, res, path, url);
      if (res.statusCode === 401) await limiter.penalty(from, 1).catch(() => memory.penalty(from, 1));
    },
  };
}
