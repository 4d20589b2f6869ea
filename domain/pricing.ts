// Bills and published rate tiers, all in integer micro-USD (see canonical.ts).
//
// Spec rule: for every published tier, avgMonthlyBillUsd == round(usageKwh * allInRateUsdPerKwh, 1)
// exactly on the published numbers. We derive the bill FROM the published (rounded) rate rather
// than from the exact bill, and keep the product u × rate off the .x5 tie, so the rule holds under
// any rounding convention a partner may use to check it (half-up, half-even, JS Math.round on
// floats, Python round()).
import type { CanonicalOffer, DeliveryCharges, EnergyBlock, Micro, UsageCredit } from './canonical.js';
import { microToNumber, roundDiv } from './money.js';

const MICRO_PER_DECI_USD = 100_000; // 0.1 USD: the precision avgMonthlyBillUsd is published at
const TIE = MICRO_PER_DECI_USD / 2;

/** What a check is about; a function when the text is built from values (built only on failure: these checks run for every plan of every answer). */
type Label = string | (() => string);
const text = (what: Label) => (typeof what === 'function' ? what() : what);

function mul(a: number, b: number, what: Label): number {
  const p = a * b;
  if (!Number.isSafeInteger(p)) throw new RangeError(`${text(what)} overflows safe integer range`);
  return p;
}

function nonNegInt(n: number, what: Label): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${text(what)} must be a non-negative safe integer, got ${n}`);
}

/** Blocks must start at 0 kWh, be contiguous ([from,to) back to back) and ascending. */
function checkBlocks(blocks: EnergyBlock[], offerId: string): void {
  let expectFrom = 0;
  blocks.forEach((b, i) => {
    const where = () => `offer ${offerId} energyBlocks[${i}]`;
    nonNegInt(b.microUsdPerKwh, () => `${where()}.microUsdPerKwh`);
    if (b.fromKwh !== expectFrom) throw new RangeError(`${where()} must start at ${expectFrom} kWh`);
    if (b.toKwh === null) {
      if (i !== blocks.length - 1) throw new RangeError(`${where()}: only the last block may be open-ended`);
    } else {
      nonNegInt(b.toKwh, () => `${where()}.toKwh`);
      if (b.toKwh <= b.fromKwh) throw new RangeError(`${where()} is empty`);
      expectFrom = b.toKwh;
    }
  });
}

/** Whether a usage credit applies at `usageKwh`: minKwh <= usage <= maxKwh (no upper bound without maxKwh). */
const creditApplies = (c: UsageCredit, usageKwh: number): boolean => c.minKwh <= usageKwh && (c.maxKwh == null || usageKwh <= c.maxKwh);

/**
 * The exact amount a customer pays for one month at `usageKwh` (integer kWh >= 0), in micro-USD:
 *   energy (each kWh at its block's price) + base charge + delivery fixed + delivery per-kWh × usage
 *   + minimum-usage fee (if usage < belowKwh) − every credit whose window [minKwh, maxKwh] holds the usage.
 * Credits never turn into a payout: the total is clamped at 0 (a $100 credit on a $60 bill = $0).
 * Throws RangeError if usage runs past a closed last energy block (we don't guess that price) or
 * the offer is malformed (negative/non-integer amounts, gaps between blocks).
 */
export function monthlyBillMicro(offer: CanonicalOffer, delivery: DeliveryCharges, usageKwh: number): Micro {
  nonNegInt(usageKwh, 'usageKwh');
  const id = offer.offerId;
  checkBlocks(offer.energyBlocks, id);
  nonNegInt(offer.baseMonthlyMicro, () => `offer ${id} baseMonthlyMicro`);
  nonNegInt(delivery.fixedMonthlyMicro, 'delivery.fixedMonthlyMicro');
  nonNegInt(delivery.perKwhMicro, 'delivery.perKwhMicro');

  let total = offer.baseMonthlyMicro + delivery.fixedMonthlyMicro + mul(delivery.perKwhMicro, usageKwh, 'delivery charge');
  let priced = 0; // kWh covered by blocks so far
  for (const b of offer.energyBlocks) {
    const kwh = Math.max(0, Math.min(usageKwh, b.toKwh ?? usageKwh) - b.fromKwh);
    total += mul(kwh, b.microUsdPerKwh, 'energy charge');
    priced += kwh;
  }
  if (priced < usageKwh) throw new RangeError(`offer ${id}: no energy price for usage above ${priced} kWh`);

  const fee = offer.minimumUsageFee;
  if (fee) {
    nonNegInt(fee.micro, () => `offer ${id} minimumUsageFee.micro`);
    if (usageKwh < fee.belowKwh) total += fee.micro;
  }
  for (const c of offer.credits) {
    nonNegInt(c.micro, () => `offer ${id} credit.micro`);
    if (creditApplies(c, usageKwh)) total -= c.micro;
  }
  if (!Number.isSafeInteger(total)) throw new RangeError(`offer ${id}: bill overflows safe integer range`);
  return Math.max(0, total);
}

export interface RateTier {
  usageKwh: number;
  /** Published all-in rate, 6 decimals (= allInRateMicro / 1e6). */
  allInRateUsdPerKwh: number;
  /** Published average bill, 1 decimal (= billDeci / 10) = round(usageKwh × allInRateUsdPerKwh, 1). */
  avgMonthlyBillUsd: number;
  allInRateMicro: Micro;
  /** avgMonthlyBillUsd in tenths of a dollar. */
  billDeci: number;
  /** Exact bill before rounding; avgMonthlyBillUsd differs from it by at most usage × 1 micro + 0.05 USD. */
  exactBillMicro: Micro;
}

/** One published tier. usageKwh must be an integer >= 1. */
export function rateTier(offer: CanonicalOffer, delivery: DeliveryCharges, usageKwh: number): RateTier {
  if (!Number.isSafeInteger(usageKwh) || usageKwh < 1) {
    throw new RangeError(`tier usage must be an integer >= 1 kWh, got ${usageKwh}`);
  }
  const bill = monthlyBillMicro(offer, delivery, usageKwh);
  let rate = roundDiv(bill, usageKwh); // micro-USD per kWh, half-up (bill >= 0)
  let product = mul(usageKwh, rate, 'tier bill'); // micro-USD, exact
  if (product % MICRO_PER_DECI_USD === TIE) {
    // u × rate sits exactly on x.x5 USD, where rounding conventions disagree. Move the rate 1 micro
    // toward the exact bill/usage (up when it is exact). The new product differs by ±u; it can't be
    // a tie again because a tie needs u ≢ 0 (mod 100000), and then ±u leaves the tie residue.
    rate += product <= bill ? 1 : -1;
    product = mul(usageKwh, rate, 'tier bill');
  }
  const billDeci = roundDiv(product, MICRO_PER_DECI_USD);
  return {
    usageKwh,
    allInRateUsdPerKwh: microToNumber(rate, 6),
    avgMonthlyBillUsd: microToNumber(billDeci * MICRO_PER_DECI_USD, 1),
    allInRateMicro: rate,
    billDeci,
    exactBillMicro: bill,
  };
}

/** Tiers for each usage, in the order given (pass tierUsages(...) for a sorted, de-duplicated list). */
export function rateTiers(offer: CanonicalOffer, delivery: DeliveryCharges, usages: readonly number[]): RateTier[] {
  return usages.map((u) => rateTier(offer, delivery, u));
}

const DEFAULT_TIER_USAGES: readonly number[] = [500, 1000, 2000];

/** The default tier usages plus the customer's own monthly usage (if given), ascending and unique. */
export function tierUsages(monthlyUsage?: number | null, defaults: readonly number[] = DEFAULT_TIER_USAGES): number[] {
  const all = monthlyUsage == null ? [...defaults] : [...defaults, monthlyUsage];
  return [...new Set(all)].sort((a, b) => a - b);
}

/**
 * The plan's single "base price": the energy charge of its first block (the price of the first
 * kWh), in micro-USD per kWh. Excludes base charge, delivery and credits — that's what the tiers'
 * all-in rates are for. Throws if the offer has no energy blocks.
 */
export function basePriceMicro(offer: CanonicalOffer): Micro {
  const first = offer.energyBlocks[0];
  if (!first) throw new RangeError(`offer ${offer.offerId} has no energy blocks`);
  return first.microUsdPerKwh;
}

/** basePriceMicro in USD per kWh, 6 decimals. */
export function basePriceUsdPerKwh(offer: CanonicalOffer): number {
  return microToNumber(basePriceMicro(offer), 6);
}

/**
 * Commercial (SMB) annual usage levels the tiers of an annual estimate are shown at, in kWh/year
 * (≈ 5,000 / 10,000 / 20,000 kWh per month).
 */
const DEFAULT_COMMERCIAL_ANNUAL_USAGES: readonly number[] = [60_000, 120_000, 240_000];

interface AnnualRateTier extends RateTier {
  /** The annual level this tier stands for; usageKwh is its monthly equivalent round(annual / 12). */
  annualUsageKwh: number;
}

interface AnnualEstimate {
  annualUsageKwh: number;
  /** 12 integer monthly usages summing to annualUsageKwh, as even as possible (larger months first). */
  monthlyUsageKwh: number[];
  /** Exact sum of the 12 monthly bills. */
  annualMicro: Micro;
  /** annualMicro rounded half-up to cents. */
  annualCostUsd: number;
  /** annualMicro / annualUsageKwh, half-up to micro-USD per kWh. */
  allInRateMicro: Micro;
  allInRateUsdPerKwh: number;
  /**
   * Monthly rate tiers (same guarantees as rateTiers) at the monthly equivalents of the commercial
   * annual levels plus this annual usage, ascending by annual usage; levels whose monthly
   * equivalent is < 1 kWh are skipped.
   */
  tiers: AnnualRateTier[];
}

/** Split annual kWh over 12 months: the first (annual mod 12) months get one kWh more. */
export function monthlySplit(annualUsageKwh: number): number[] {
  nonNegInt(annualUsageKwh, 'annualUsageKwh');
  const q = Math.floor(annualUsageKwh / 12);
  const r = annualUsageKwh % 12;
  return Array.from({ length: 12 }, (_, i) => (i < r ? q + 1 : q));
}

/**
 * Annual estimate for a commercial plan: the year is billed as 12 monthly bills (monthlyBillMicro,
 * so thresholds like credits and minimum-usage fees apply per month) on an even integer split of
 * the annual usage. annualUsageKwh must be an integer >= 1.
 */
export function annualEstimate(
  offer: CanonicalOffer,
  delivery: DeliveryCharges,
  annualUsageKwh: number,
  tierAnnualUsages: readonly number[] = DEFAULT_COMMERCIAL_ANNUAL_USAGES,
): AnnualEstimate {
  if (!Number.isSafeInteger(annualUsageKwh) || annualUsageKwh < 1) {
    throw new RangeError(`annual usage must be an integer >= 1 kWh, got ${annualUsageKwh}`);
  }
  const months = monthlySplit(annualUsageKwh);
  // At most two distinct monthly usages: price each once.
  const billFor = new Map<number, number>();
  let annualMicro = 0;
  for (const u of months) {
    let b = billFor.get(u);
    if (b === undefined) billFor.set(u, (b = monthlyBillMicro(offer, delivery, u)));
    annualMicro += b;
  }
  if (!Number.isSafeInteger(annualMicro)) throw new RangeError('annual cost overflows safe integer range');
  const rate = roundDiv(annualMicro, annualUsageKwh);

  const levels = tierUsages(annualUsageKwh, tierAnnualUsages);
  const tiers: AnnualRateTier[] = [];
  for (const annual of levels) {
    const monthly = roundDiv(annual, 12);
    if (monthly >= 1) tiers.push({ annualUsageKwh: annual, ...rateTier(offer, delivery, monthly) });
  }
  return {
    annualUsageKwh,
    monthlyUsageKwh: months,
    annualMicro,
    annualCostUsd: microToNumber(annualMicro, 2),
    allInRateMicro: rate,
    allInRateUsdPerKwh: microToNumber(rate, 6),
    tiers,
  };
}
