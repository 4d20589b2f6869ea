// Which tariff period applies on a date: delivery charges change on their effective dates (Texas
// TDUs every March 1 and September 1), Prices to Compare by period, season and customer class.
// A plan is priced with the charges and Price to Compare in effect on its start date.
import type { CustomerClass, DeliveryCharges, PriceToCompare } from './canonical.js';

/** Delivery charges in effect on `date` (YYYY-MM-DD): the last period that took effect by then; `current` without a history. */
export function chargesOn(
  history: readonly DeliveryCharges[] | undefined,
  current: DeliveryCharges | null,
  date: string,
): DeliveryCharges | null {
  if (!history?.length) return current;
  let found: DeliveryCharges | null = null;
  for (const period of history)
    if ((period.effective ?? '') <= date && (!found || (period.effective ?? '') >= (found.effective ?? ''))) found = period;
  // Before the first known period the feed's current charges are the best answer there is.
  return found ?? current;
}

/** Whether a Price to Compare applies on a local date (YYYY-MM-DD): effective and expiry days included. */
const ptcInEffect = (ptc: PriceToCompare, date: string): boolean => ptc.effective <= date && date <= ptc.expires;

/**
 * The Price to Compare of a customer class in effect on `date`: from the periods when the feed lists
 * them, else the feed's single one when it applies that day; null when none does.
 */
export function priceToCompareOn(
  periods: readonly PriceToCompare[] | undefined,
  single: PriceToCompare | null,
  date: string,
  customerClass: CustomerClass = 'RESIDENTIAL',
): PriceToCompare | null {
  if (!periods?.length) return single && customerClass === 'RESIDENTIAL' && ptcInEffect(single, date) ? single : null;
  return periods.find((p) => (p.customerClass ?? 'RESIDENTIAL') === customerClass && ptcInEffect(p, date)) ?? null;
}

/** Periods not yet over on `date`: the one in effect and the next ones, by effective date. */
export function currentAndNext(periods: readonly PriceToCompare[], date: string): PriceToCompare[] {
  return periods.filter((p) => p.expires >= date).sort((a, b) => (a.effective < b.effective ? -1 : a.effective > b.effective ? 1 : 0));
}
