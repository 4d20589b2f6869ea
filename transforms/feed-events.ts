// What a feed's answers looked like beyond HTTP: pages left out (truncation), records dropped
// for an implausible value and offers dropped for breaking a market rule (domain/market-rules.ts).
// Counted process-wide per feed for metrics (like upstream/stats.ts) and logged as warnings at
// most once per feed, event and field per THROTTLE_MS.
export interface FeedEventCounts {
  /** Calls whose pages were cut off (maxPages or timeout). */
  truncated: number;
  /** Records dropped for a value outside its hard plausibility range, by canonical field. */
  implausible: Record<string, number>;
  /** Offers dropped for breaking a market rule, by rule id. */
  noncompliant: Record<string, number>;
}

const counts = new Map<string, FeedEventCounts>();

function countsOf(feed: string): FeedEventCounts {
  let c = counts.get(feed);
  if (!c) counts.set(feed, (c = { truncated: 0, implausible: {}, noncompliant: {} }));
  return c;
}

/** A deep copy, keyed by feed name. */
export function feedEventCounts(): Record<string, FeedEventCounts> {
  const out: Record<string, FeedEventCounts> = {};
  for (const [feed, c] of counts)
    out[feed] = { truncated: c.truncated, implausible: { ...c.implausible }, noncompliant: { ...c.noncompliant } };
  return out;
}

export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface FeedEvents {
  truncated(feed: string, detail: string): void;
  implausible(feed: string, field: string, reason: string): void;
  noncompliant(feed: string, rule: string, reason: string): void;
}

export const THROTTLE_MS = 60_000;

export function createFeedEvents(logger: WarnLogger | undefined, now: () => number = Date.now): FeedEvents {
  const lastWarned = new Map<string, number>();
  const warn = (key: string, obj: object, msg: string) => {
    if (!logger) return;
    const t = now();
    const last = lastWarned.get(key);
    if (last !== undefined && t - last < THROTTLE_MS) return;
    lastWarned.set(key, t);
    logger.warn(obj, msg);
  };
  return {
    truncated(feed, detail) {
      countsOf(feed).truncated++;
      warn(`truncated\u0000${feed}`, { feed, detail }, `feed ${feed}: pages left out: ${detail}`);
    },
    implausible(feed, field, reason) {
      const c = countsOf(feed);
      c.implausible[field] = (c.implausible[field] ?? 0) + 1;
      warn(`implausible\u0000${feed}\u0000${field}`, { feed, field, reason }, `feed ${feed}: record dropped: ${reason}`);
    },
    noncompliant(feed, rule, reason) {
      const c = countsOf(feed);
      c.noncompliant[rule] = (c.noncompliant[rule] ?? 0) + 1;
      warn(
        `noncompliant\u0000${feed}\u0000${rule}`,
        { feed, rule, reason },
        `feed ${feed}: offer dropped by market rule ${rule}: ${reason}`,
      );
    },
  };
}
