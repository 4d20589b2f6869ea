// A territory's dates: its local today, the earliest start date of a switch there, and the tariff
// periods (delivery charges, Price to Compare) in effect on that start date, which plans are priced
// and compared with.
import type { Territory } from '../domain/canonical.js';
import { businessCalendar } from '../domain/calendar.js';
import { localDateTime, switchDate, type SwitchDate, type SwitchInput } from '../domain/start-date.js';
import { chargesOn, priceToCompareOn } from '../domain/tariff-periods.js';
import type { ResolverContext } from './context.js';

/** Local date (YYYY-MM-DD) in the territory now. */
export function localToday(ctx: Pick<ResolverContext, 'now'>, t: Territory): string {
  return localDateTime(ctx.now(), t.timeZone).date.toISOString().slice(0, 10);
}

export function switchInput(
  ctx: Pick<ResolverContext, 'now'>,
  t: Territory,
  opts: { requestedDate?: string; accountCycle?: string } = {},
): SwitchInput {
  const s = t.switching;
  return {
    now: ctx.now(),
    timeZone: t.timeZone,
    calendar: businessCalendar(t.calendar?.holidays ?? [], t.holidays),
    kind: s.kind,
    leadBusinessDays: s.leadBusinessDays,
    sameDayCutoff: s.sameDayCutoff,
    meterRead: { cycleDays: s.meterReadCycleDays, anchorDate: s.meterReadAnchorDate, readDates: s.meterReadDates },
    meterReadCycles: s.meterReadCycles,
    accountCycle: s.kind === 'METER_READ' ? opts.accountCycle : undefined,
    rescissionDays: s.rescissionDays,
    requestedDate: opts.requestedDate,
  };
}

/** The earliest start date of a switch in a deregulated territory; local today for a regulated one. */
export function earliestStart(ctx: Pick<ResolverContext, 'now'>, t: Territory): string {
  if (t.market !== 'DEREGULATED') return localToday(ctx, t);
  let start: SwitchDate;
  try {
    start = switchDate(switchInput(ctx, t));
  } catch {
    // A schedule the gateway cannot use still prices the plans: with today's tariffs.
    return localToday(ctx, t);
  }
  return start.date;
}

/** The territory with the delivery charges and residential Price to Compare in effect on `date`. */
function tariffsOn(t: Territory, date: string): Territory {
  return {
    ...t,
    delivery: chargesOn(t.deliveryRates, t.delivery, date),
    commercialDelivery: chargesOn(t.commercialDeliveryRates, t.commercialDelivery, date),
    priceToCompare: priceToCompareOn(t.pricesToCompare, t.priceToCompare, date),
  };
}

/** Tariffs of each territory on its own earliest start date. */
export function onStartDates(ctx: Pick<ResolverContext, 'now'>, served: readonly Territory[]): Territory[] {
  return served.map((t) => tariffsOn(t, earliestStart(ctx, t)));
}
