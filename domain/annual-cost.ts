// A household's year: twelve monthly bills at the household's own usage, and how a plan's all-in
// rate moves with usage. Every monthly bill is monthlyBillMicro, the bill the published rate tiers
// come from, so both always agree; amounts stay exact until the one rounding each figure gets.
import type { CanonicalOffer, DeliveryCharges, Micro } from './canonical.js';
import { microToNumber, roundDiv } from './money.js';
import { monthlyBillMicro, rateTier } from './pricing.js';

const MONTHS_PER_YEAR = 12;
/** Most kWh one month of a usage profile may hold (the `monthlyUsage` bound). */
export const MAX_MONTHLY_KWH = 100_000;

interface MonthCost {
  /** 1 = January. */
  month: number;
  usageKwh: number;
  /** The exact bill of this month. */
  billMicro: Micro;
  /** billMicro half-up to cents. */
  billUsd: number;
}

interface AnnualCost {
  months: MonthCost[];
  /** Exact sum of the twelve monthly bills and the one-time fees. */
  totalMicro: Micro;
  /** One-time fees of the year (the enrollment fee), micro-USD; in totalMicro, in no month. */
  oneTimeFeesMicro: Micro;
  oneTimeFeesUsd: number;
  /** Months of the year the energy price is fixed by contract (0 for variable, indexed and month-to-month). */
  priceFixedMonths: number;
  /** totalMicro half-up to cents: the rounded sum of the exact bills, not the sum of rounded bills. */
  totalUsd: number;
  /** totalUsd in cents, the ranking key. */
  totalCents: number;
  /** totalMicro / total kWh, 6 decimals; null for a year without usage. */
  averageRateUsdPerKwh: number | null;
}

/** Months of a year a plan's energy price is fixed by contract: min(term, 12) for FIXED, else 0. */
export function priceFixedMonths(offer: Pick<CanonicalOffer, 'rateType' | 'termMonths'>): number {
  return offer.rateType === 'FIXED' ? Math.min(Math.max(0, offer.termMonths), MONTHS_PER_YEAR) : 0;
}

/**
 * The year's cost on one plan for twelve monthly usages (January first), one-time fees included.
 * A plan with a shorter term is priced as it is for the whole year: what it renews at is not known
 * (priceFixedMonths says for how long the price is actually fixed).
 */
export function annualCost(offer: CanonicalOffer, delivery: DeliveryCharges, profile: readonly number[]): AnnualCost {
  if (profile.length !== MONTHS_PER_YEAR) throw new RangeError(`a usage profile has ${MONTHS_PER_YEAR} months, got ${profile.length}`);
  const billAt = new Map<number, Micro>(); // households repeat usages; price each once
  let totalMicro = 0;
  let totalKwh = 0;
  const months = profile.map((usageKwh, i): MonthCost => {
    let billMicro = billAt.get(usageKwh);
    if (billMicro === undefined) billAt.set(usageKwh, (billMicro = monthlyBillMicro(offer, delivery, usageKwh)));
    totalMicro += billMicro;
    totalKwh += usageKwh;
    return { month: i + 1, usageKwh, billMicro, billUsd: microToNumber(billMicro, 2) };
  });
  const oneTimeFeesMicro = offer.enrollmentFeeMicro;
  totalMicro += oneTimeFeesMicro;
  if (!Number.isSafeInteger(totalMicro)) throw new RangeError(`offer ${offer.offerId}: annual cost overflows safe integer range`);
  const totalCents = roundDiv(totalMicro, 10_000);
  return {
    months,
    totalMicro,
    totalUsd: microToNumber(totalCents * 10_000, 2),
    totalCents,
    oneTimeFeesMicro,
    oneTimeFeesUsd: microToNumber(oneTimeFeesMicro, 2),
    priceFixedMonths: priceFixedMonths(offer),
    averageRateUsdPerKwh: totalKwh > 0 ? microToNumber(roundDiv(totalMicro, totalKwh), 6) : null,
  };
}

/** Usage levels rateSpread looks at: 500 to 2000 kWh in 100 kWh steps. */
export const SPREAD_USAGES: readonly number[] = Array.from({ length: 16 }, (_, i) => 500 + 100 * i);

interface RateSpread {
  /** Lowest published all-in rate over SPREAD_USAGES, and the lowest usage it is reached at. */
  minRateUsdPerKwh: number;
  minAtKwh: number;
  maxRateUsdPerKwh: number;
  maxAtKwh: number;
  /** The lowest usage a usage credit starts at; null for a plan without credits. */
  creditThresholdKwh: number | null;
}

/**
 * How far a plan's all-in rate moves with usage: the published rate (the one `rates` tiers carry)
 * at each of SPREAD_USAGES, its lowest and highest, and where a usage credit starts.
 */
export function rateSpread(offer: CanonicalOffer, delivery: DeliveryCharges, usages: readonly number[] = SPREAD_USAGES): RateSpread {
  let min: { rate: Micro; at: number } | null = null;
  let max: { rate: Micro; at: number } | null = null;
  for (const u of usages) {
    const rate = rateTier(offer, delivery, u).allInRateMicro;
    if (!min || rate < min.rate) min = { rate, at: u };
    if (!max || rate > max.rate) max = { rate, at: u };
  }
  if (!min || !max) throw new RangeError('rateSpread needs at least one usage level');
  const thresholds = offer.credits.map((c) => c.minKwh);
  return {
    minRateUsdPerKwh: microToNumber(min.rate, 6),
    minAtKwh: min.at,
    maxRateUsdPerKwh: microToNumber(max.rate, 6),
    maxAtKwh: max.at,
    creditThresholdKwh: thresholds.length ? Math.min(...thresholds) : null,
  };
}

/**
 * Twelve whole-kWh monthly usages summing exactly to annualKwh, in proportion to `weights` (a
 * state's monthly residential sales, January first): each month gets the floor of its exact share
 * and the kWh left over go, one each, to the months with the largest remainders (earliest month on
 * a tie). Integer arithmetic only, so the split is the same on every machine.
 */
export function spreadByShape(annualKwh: number, weights: readonly number[]): number[] {
  if (!Number.isSafeInteger(annualKwh) || annualKwh < 0) throw new RangeError(`annual usage must be a whole number >= 0, got ${annualKwh}`);
  if (weights.length !== MONTHS_PER_YEAR) throw new RangeError(`a usage shape has ${MONTHS_PER_YEAR} months, got ${weights.length}`);
  const w = weights.map((x) => {
    if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) throw new RangeError(`usage shape weights must be >= 0, got ${x}`);
    return BigInt(Math.round(x * 1000)); // the feed's MWh to kWh: whole numbers for exact shares
  });
  const sum = w.reduce((a, b) => a + b, 0n);
  if (sum === 0n) throw new RangeError('a usage shape needs some usage');
  const total = BigInt(annualKwh);
  const shares = w.map((x, month) => ({ month, kwh: (total * x) / sum, rest: (total * x) % sum }));
  let left = total - shares.reduce((a, s) => a + s.kwh, 0n);
  const byRest = [...shares].sort((a, b) => (a.rest === b.rest ? a.month - b.month : a.rest > b.rest ? -1 : 1));
  for (const s of byRest) {
    if (left === 0n) break;
    s.kwh += 1n;
    left -= 1n;
  }
  return shares.map((s) => Number(s.kwh));
}
