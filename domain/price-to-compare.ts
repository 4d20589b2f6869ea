// Estimated monthly savings of a plan against the utility's Price to Compare (PtC), the supply
// price of the utility's default service. Both bills carry the same delivery charges:
//
//   default service bill = usage × PtC + delivery fixed + usage × delivery per kWh
//   savings              = default service bill − plan bill     (plan bill: pricing.ts, exact)
//                        = usage × PtC − (plan bill − delivery)
//
// computed in integer micro-dollars and rounded once to the cent, halves away from zero.
// Positive: the plan is cheaper than default service.
import type { DeliveryCharges, Micro, PriceToCompare } from './canonical.js';
import { roundDiv } from './money.js';

const MICRO_PER_CENT = 10_000;

function product(a: number, b: number, what: string): number {
  const p = a * b;
  if (!Number.isSafeInteger(p)) throw new RangeError(`${what} overflows the safe integer range`);
  return p;
}

/** Default service bill at `usageKwh`, micro-USD, exact. */
export function defaultServiceBillMicro(ptc: PriceToCompare, delivery: DeliveryCharges, usageKwh: number): Micro {
  if (!Number.isSafeInteger(usageKwh) || usageKwh < 0) throw new RangeError(`usageKwh must be an integer >= 0, got ${usageKwh}`);
  return (
    product(usageKwh, ptc.microPerKwh, 'supply at the Price to Compare') +
    delivery.fixedMonthlyMicro +
    product(usageKwh, delivery.perKwhMicro, 'delivery charge')
  );
}

/** Savings in whole cents (negative: the plan costs more than default service). */
export function monthlySavingsCents(ptc: PriceToCompare, delivery: DeliveryCharges, usageKwh: number, planBillMicro: Micro): number {
  const diff = defaultServiceBillMicro(ptc, delivery, usageKwh) - planBillMicro;
  if (!Number.isSafeInteger(diff)) throw new RangeError('savings overflow the safe integer range');
  return roundDiv(diff, MICRO_PER_CENT);
}

/** Whether the PtC applies on a local date (YYYY-MM-DD): effective and expiry days included. */
export function inEffect(ptc: PriceToCompare, localDate: string): boolean {
  return ptc.effective <= localDate && localDate <= ptc.expires;
}
