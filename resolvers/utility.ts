// The public Utility record of a territory. Tariff fields answer the period in effect on the
// territory's earliest start date (the date a plan bought today would start), or on `onDate`.
import type { DeliveryCharges, PriceToCompare, Territory } from '../domain/canonical.js';
import { microToNumber } from '../domain/money.js';
import { chargesOn, currentAndNext, priceToCompareOn } from '../domain/tariff-periods.js';
import type { ResolverContext } from './context.js';
import { earliestStart, localToday } from './territory-dates.js';

type Args = Record<string, unknown>;

export function charges(c: DeliveryCharges | null) {
  return (
    c && {
      fixedMonthlyUsd: microToNumber(c.fixedMonthlyMicro, 2),
      perKwhUsd: microToNumber(c.perKwhMicro, 6),
      effectiveDate: c.effective ?? null,
      estimated: c.estimated === true,
    }
  );
}

function priceToCompare(p: PriceToCompare | null) {
  return (
    p && {
      usdPerKwh: microToNumber(p.microPerKwh, 6),
      effectiveDate: p.effective,
      expiryDate: p.expires,
      season: p.season ?? null,
      customerClass: p.customerClass ?? 'RESIDENTIAL',
    }
  );
}

export function utility(ctx: Pick<ResolverContext, 'now'>, t: Territory) {
  let start: string | undefined;
  const startDate = () => (start ??= earliestStart(ctx, t));
  return {
    id: t.utilityId,
    name: t.name,
    state: t.state,
    market: t.market,
    ownership: t.ownership,
    timeZone: t.timeZone,
    retailChoiceCapPercent: t.choiceCapPercent ?? null,
    deliveryCharges: (fieldArgs: Args) => {
      const customerClass = fieldArgs.customerClass === 'COMMERCIAL' ? 'COMMERCIAL' : 'RESIDENTIAL';
      const date = typeof fieldArgs.onDate === 'string' ? fieldArgs.onDate : startDate();
      const c =
        customerClass === 'COMMERCIAL'
          ? chargesOn(t.commercialDeliveryRates, t.commercialDelivery, date)
          : chargesOn(t.deliveryRates, t.delivery, date);
      return c && { customerClass, ...charges(c) };
    },
    bundledRate: charges(t.bundledRate),
    priceToCompare: () => priceToCompare(priceToCompareOn(t.pricesToCompare, t.priceToCompare, startDate())),
    pricesToCompare: () => {
      const periods = t.pricesToCompare?.length ? t.pricesToCompare : t.priceToCompare ? [t.priceToCompare] : [];
      return currentAndNext(periods, localToday(ctx, t)).map(priceToCompare);
    },
  };
}
