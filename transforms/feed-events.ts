// What a feed's answers looked like beyond HTTP: pages left out (truncation), records dropped
// for an implausible value and offers dropped for breaking a market rule (domain/market-rules.ts).
// Counted process-wide per feed for metrics (like upstream/stats.ts) and logged as warnings at
// most once per feed, event and field per THROTTLE_MS.
import { isoTime } from '../lib/iso-time.js';

interface FeedEventCounts {
  /** Calls whose pages were cut off (maxPages or timeout). */
  truncated: number;
  /** Records dropped for a value outside its hard plausibility range, by canonical field. */
  implausible: Record<string, number>;
  /** Offers dropped for breaking a market rule, by rule id. */
  noncompliant: Record<string, number>;
  /** Records of every call: served, and dropped for any reason (did not map, implausible). */
  served: number;
  dropped: number;
  /** The feed's last call that answered (not one that failed or was served from a stale copy). */
  last: LastCall | null;
}

interface LastCall {
  at: string;
  served: number;
  dropped: number;
  /** One reason a record was dropped, when any was. */
  example?: string;
  /** Every record dropped for an implausible value: a unit mistake in the mapping, not bad data. */
  unitMistake: boolean;
}

/**
 * What /readyz says of each feed that has answered, by its last answer: `ok`, `some records
 * dropped`, or failing. States only: /readyz is public, so no counts (metrics have them) and no
 * record content (a premises feed's would be personal data; the warning log names the reason).
 */
export function feedHealth(): { ok: boolean; feeds: Record<string, string> } {
  let ok = true;
  const feeds: Record<string, string> = {};
  for (const [feed, c] of counts) {
    if (!c.last) continue;
    if (c.last.unitMistake) ok = false;
    feeds[feed] = c.last.unitMistake
      ? 'failing: every record of its last answer was dropped for an implausible value (a unit mistake in its mapping; npm run feeds:check names it)'
      : c.last.dropped > 0
        ? 'some records dropped'
        : 'ok';
  }
  return { ok, feeds };
}

const counts = new Map<string, FeedEventCounts>();

function countsOf(feed: string): FeedEventCounts {
  let c = counts.get(feed);
  if (!c) counts.set(feed, (c = { truncated: 0, implausible: {}, noncompliant: {}, served: 0, dropped: 0, last: null }));
  return c;
}

/** A deep copy, keyed by feed name. */
export function feedEventCounts(): Record<string, FeedEventCounts> {
  const out: Record<string, FeedEventCounts> = {};
  for (const [feed, c] of counts)
    out[feed] = { ...c, implausible: { ...c.implausible }, noncompliant: { ...c.noncompliant }, last: c.last && { ...c.last } };
  return out;
}

export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface FeedEvents {
  truncated(feed: string, detail: string): void;
  implausible(feed: string, field: string, reason: string): void;
  noncompliant(feed: string, rule: string, reason: string): void;
  /** One call answered: how many records were served and which were dropped. */
  answered(feed: string, served: number, rejected: readonly { reason: string; implausible?: string }[]): void;
}

/** Forgets every count (tests). */
export function resetFeedEvents(): void {
  counts.clear();
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
    answered(feed, served, rejected) {
      const c = countsOf(feed);
      c.served += served;
      c.dropped += rejected.length;
      c.last = {
        at: isoTime(now()),
        served,
        dropped: rejected.length,
        ...(rejected.length ? { example: rejected[0]!.reason.slice(0, 300) } : {}),
        unitMistake: served === 0 && rejected.length > 0 && rejected.every((r) => r.implausible),
      };
      if (c.last.unitMistake)
        warn(
          `failing\u0000${feed}`,
          { feed, example: c.last.example },
          `feed ${feed}: every record dropped for an implausible value; readiness fails`,
        );
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
