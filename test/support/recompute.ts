// A partner's recomputation of a plan's tiers from the published fields only (Plan.pricing,
// Plan.fees), as docs/partners.md ("Recomputing a price") describes it, in exact micro-dollars.
import { parseMicro, roundDiv } from '../../domain/money.js';

export interface PublishedPlan {
  rateType: string;
  pricing: {
    energyBlocks: { fromKwh: number; toKwh: number | null; usdPerKwh: number }[];
    delivery: { fixedMonthlyUsd: number; perKwhUsd: number } | null;
  };
  fees: {
    baseMonthlyUsd: number;
    minimumUsageFeeUsd: number | null;
    minimumUsageKwh: number | null;
    usageCredits: { minKwh: number; maxKwh: number | null; creditUsd: number }[];
  };
  rates: { usageKwh: number; allInRateUsdPerKwh: number; avgMonthlyBillUsd: number }[];
}

const micro = (usd: number, what: string) => parseMicro(usd, what);

/** The exact bill at `u` kWh, micro-USD. */
export function billMicro(p: PublishedPlan, u: number): number {
  let total = micro(p.fees.baseMonthlyUsd, 'baseMonthlyUsd');
  for (const b of p.pricing.energyBlocks) total += Math.max(0, Math.min(u, b.toKwh ?? u) - b.fromKwh) * micro(b.usdPerKwh, 'usdPerKwh');
  if (p.pricing.delivery) total += micro(p.pricing.delivery.fixedMonthlyUsd, 'fixed') + u * micro(p.pricing.delivery.perKwhUsd, 'perKwh');
  for (const c of p.fees.usageCredits) if (c.minKwh <= u && (c.maxKwh === null || u <= c.maxKwh)) total -= micro(c.creditUsd, 'credit');
  if (p.fees.minimumUsageFeeUsd !== null && p.fees.minimumUsageKwh !== null && u < p.fees.minimumUsageKwh)
    total += micro(p.fees.minimumUsageFeeUsd, 'minimumUsageFee');
  return Math.max(0, total);
}

const DECI = 100_000; // 0.1 USD in micro-USD

/** The published tier at `u` from the bill: rate half-up to the micro, moved 1 off an exact .x5 bill; bill = round(u × rate, 1). */
function tierFrom(bill: number, u: number): { allInRateUsdPerKwh: number; avgMonthlyBillUsd: number } {
  let rate = roundDiv(bill, u);
  if ((u * rate) % DECI === DECI / 2) rate += u * rate <= bill ? 1 : -1;
  return { allInRateUsdPerKwh: rate / 1e6, avgMonthlyBillUsd: roundDiv(u * rate, DECI) / 10 };
}

/** Every tier of a plan as recomputed; compare with `rates`. */
export function recomputedTiers(p: PublishedPlan) {
  return p.rates.map((t) => ({ usageKwh: t.usageKwh, ...tierFrom(billMicro(p, t.usageKwh), t.usageKwh) }));
}
