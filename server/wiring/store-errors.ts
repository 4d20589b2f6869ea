// How a store failure is logged while Redis (or a part of it) is down: at most one line per kind of
// failure per 10 s, saying what it costs (a failing store is never a failed request).
import type { Logger } from '../../lib/logger.js';

type StoreErrorLog = (err: unknown, what: string) => void;

export function storeErrorLog(logger: Logger, consequence: string, everyMs = 10_000): StoreErrorLog {
  const lastLog = new Map<string, number>();
  return (err, what) => {
    const t = Date.now();
    if (t - (lastLog.get(what) ?? 0) < everyMs) return;
    lastLog.set(what, t);
    logger.warn({ error: (err as Error)?.message ?? String(err) }, `${what} failed (${consequence})`);
  };
}
