// A unit mistake no single record shows: a price stated in cents declared as mills is 0.009 USD/kWh,
// inside the plausible range, and a fee in dollars declared as cents is $1.75. Each feed's median of
// a quantity is compared with the other feeds' medians for the same territory (or, for a feed alone
// there, with the market range of domain/plausibility.ts): off by a factor near 10, 100 or 1000 that
// another unit of the declared one's dimension explains, it is a unit mistake, named with the feed,
// the field and the unit that explains it. Zeros say nothing (a zero is the same in every unit).
import type { CanonicalOffer } from '../../domain/canonical.js';
import { describeQuantity, marketRange, plausibleRange } from '../../domain/plausibility.js';
import { UNITS, unitsOfDimension, type UnitName } from './units.js';

/** One feed's non-zero values of one canonical field (canonical units) in one territory. */
export interface FeedFieldValues {
  feed: string;
  kind: string;
  territory: string;
  /** Canonical field path as a mapping names it, e.g. `energyBlocks.price`. */
  field: string;
  /** The unit the mapping declares for the field. */
  unit: UnitName;
  values: number[];
}

export interface UnitMistake {
  feed: string;
  field: string;
  territory: string;
  declared: UnitName;
  /** Units whose reading of the feed's numbers agrees with the others (same size: USD/MWh and mills/kWh). */
  likely: UnitName[];
  /** The feed's median over the reference's. */
  ratio: number;
  /** What the feed was compared with: other feeds of the territory, or the market range. */
  basis: 'feeds' | 'market';
  message: string;
}

/** How far (in powers of ten) a ratio may be from 10, 100 or 1000 and still count as near it: within a factor of 2. */
const NEAR = Math.log10(2);
/** Medians closer than a factor of 3 agree. */
const AGREE = Math.log10(3);

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * The units of `declared`'s dimension that explain a reading `ratio` times the reference: the
 * feed's numbers were `ratio` times too large, so the unit they are really in is `ratio` times
 * smaller. Empty when the ratio is not near a power of ten (1 to 3) or no unit has that size.
 */
export function explainingUnits(declared: UnitName, ratio: number): UnitName[] {
  if (!(ratio > 0) || !Number.isFinite(ratio)) return [];
  const power = Math.round(Math.log10(ratio));
  if (power === 0 || Math.abs(power) > 3 || Math.abs(Math.log10(ratio) - power) > NEAR) return [];
  const scale = UNITS[declared].scale / 10 ** power;
  return unitsOfDimension(UNITS[declared].dimension).filter((u) => Math.abs(UNITS[u].scale / scale - 1) < 1e-9);
}

const inRange = (v: number, r: readonly [number, number]) => v >= r[0] && v <= r[1];
/** Distance in powers of ten from the range's middle (geometric). */
const offCentre = (v: number, r: readonly [number, number]) => Math.abs(Math.log10(v / Math.sqrt(Math.max(r[0], 1) * r[1])));

/** Unit mistakes among `samples` (any number of feeds, territories and fields). */
export function unitMistakes(samples: readonly FeedFieldValues[]): UnitMistake[] {
  const groups = new Map<string, { feed: string; unit: UnitName; median: number; kind: string }[]>();
  for (const s of samples) {
    const nonZero = s.values.filter((v) => v !== 0 && Number.isFinite(v));
    if (nonZero.length === 0) continue;
    const key = `${s.kind}\u0000${s.territory}\u0000${s.field}`;
    const list = groups.get(key) ?? [];
    const same = list.find((x) => x.feed === s.feed);
    if (same) continue; // one entry per feed: callers merge a feed's values first
    list.push({ feed: s.feed, unit: s.unit, median: median(nonZero), kind: s.kind });
    groups.set(key, list);
  }
  const out: UnitMistake[] = [];
  for (const [key, feeds] of groups) {
    const [kind, territory, field] = key.split('\u0000') as [string, string, string];
    const market = marketRange(kind, field);
    const range = plausibleRange(kind, field);
    if (!range) continue;
    // The consensus: the feeds agreeing with the most others (within a factor of 3); of two
    // such groups, the one nearer the market's middle (two feeds a unit apart: the odd one out).
    const agreeing = feeds.map((f) => feeds.filter((g) => Math.abs(Math.log10(f.median / g.median)) < AGREE));
    let best = 0;
    for (let i = 1; i < feeds.length; i++) {
      const more = agreeing[i]!.length - agreeing[best]!.length;
      if (more > 0 || (more === 0 && market && offCentre(feeds[i]!.median, market) < offCentre(feeds[best]!.median, market))) best = i;
    }
    const consensus = agreeing[best]!;
    for (const f of feeds) {
      let ratio: number;
      let basis: UnitMistake['basis'];
      const others = consensus;
      if (feeds.length > 1) {
        if (consensus.includes(f)) continue;
        ratio = f.median / median(consensus.map((x) => x.median));
        basis = 'feeds';
      } else {
        if (!market || inRange(f.median, market)) continue;
        const corrected = unitsOfDimension(UNITS[f.unit].dimension)
          .map((u) => f.median * (UNITS[u].scale / UNITS[f.unit].scale))
          .find((v) => inRange(v, market));
        if (corrected === undefined) continue;
        ratio = f.median / corrected;
        basis = 'market';
      }
      const likely = explainingUnits(f.unit, ratio);
      if (likely.length === 0) continue;
      const times = ratio >= 1 ? `${Math.round(ratio)} times` : `1/${Math.round(1 / ratio)} of`;
      const q = (v: number) => describeQuantity(v, range.quantity);
      const against =
        basis === 'feeds'
          ? `the median of the other feeds of ${territory} (${others.map((x) => `${x.feed}: ${q(x.median)}`).join(', ')})`
          : `a value in the market range (${q(market![0])} to ${q(market![1])})`;
      out.push({
        feed: f.feed,
        field,
        territory,
        declared: f.unit,
        likely,
        ratio,
        basis,
        message:
          `${field}: median ${q(f.median)} in ${territory} is ${times} ${against}; ` +
          `looks like ${likely.map((u) => UNITS[u].label).join(' or ')}, not ${UNITS[f.unit].label} (unit: ${likely.join(' or ')})`,
      });
    }
  }
  return out;
}

/** The offers fields compared, with their values on a canonical offer. */
const OFFER_FIELDS: Readonly<Record<string, (o: CanonicalOffer) => number[]>> = {
  'energyBlocks.price': (o) => o.energyBlocks.map((b) => b.microUsdPerKwh),
  baseMonthly: (o) => [o.baseMonthlyMicro],
  'credits.amount': (o) => o.credits.map((c) => c.micro),
  'minimumUsageFee.amount': (o) => (o.minimumUsageFee ? [o.minimumUsageFee.micro] : []),
  cancellationFee: (o) => [o.cancellationFeeMicro],
  enrollmentFee: (o) => [o.enrollmentFeeMicro],
};

/** One feed's offers as values per territory and field (fields whose unit the mapping declares once). */
export function offerValues(feed: string, offers: readonly CanonicalOffer[], units: ReadonlyMap<string, UnitName>): FeedFieldValues[] {
  const byKey = new Map<string, FeedFieldValues>();
  for (const o of offers)
    for (const [field, read] of Object.entries(OFFER_FIELDS)) {
      const unit = units.get(field);
      if (!unit) continue;
      const key = `${o.utilityId}\u0000${field}`;
      let entry = byKey.get(key);
      if (!entry) byKey.set(key, (entry = { feed, kind: 'offers', territory: o.utilityId, field, unit, values: [] }));
      entry.values.push(...read(o));
    }
  return [...byKey.values()];
}

/** One mistake per feed and field (the same unit is wrong in every territory), in feed order. */
export function distinctMistakes(mistakes: readonly UnitMistake[]): UnitMistake[] {
  const seen = new Set<string>();
  return mistakes.filter((m) => {
    const k = `${m.feed}\u0000${m.field}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
