// Domain rules behind the market dates and tariff periods: ERCOT's Christmas holidays for any year,
// the rescission window and billing cycles of a meter-read start, and the tariff period in effect.
import { describe, expect, it } from 'vitest';
import { businessCalendar } from '../../domain/calendar.js';
import { switchDate, UnknownCycleError, type SwitchInput } from '../../domain/start-date.js';
import { chargesOn, currentAndNext, priceToCompareOn } from '../../domain/tariff-periods.js';
import type { PriceToCompare } from '../../domain/canonical.js';
import { ERCOT } from '../../sources/reference-upstream/data/holidays.js';

describe("ERCOT's Christmas holidays", () => {
  it('closes exactly two weekdays around Christmas every year, 2024 to 2060', () => {
    const cal = businessCalendar(ERCOT.holidays);
    for (let year = 2024; year <= 2060; year++) {
      const christmas = cal.holidaysOf(year).filter((d) => d >= `${year}-12-22` && d <= `${year}-12-26`);
      expect(christmas, String(year)).toHaveLength(2);
      for (const d of christmas) expect([0, 6]).not.toContain(new Date(`${d}T00:00:00Z`).getUTCDay());
    }
    expect(cal.holidaysOf(2027).filter((d) => d.startsWith('2027-12-2'))).toEqual(['2027-12-23', '2027-12-24']);
    expect(cal.holidaysOf(2028).filter((d) => d.startsWith('2028-12-2'))).toEqual(['2028-12-25', '2028-12-26']);
    expect(cal.holidaysOf(2033).filter((d) => d.startsWith('2033-12-2'))).toEqual(['2033-12-23', '2033-12-26']);
    expect(cal.holidaysOf(2026).filter((d) => d.startsWith('2026-12-2'))).toEqual(['2026-12-24', '2026-12-25']);
  });
});

const cycles = [
  { cycle: '01', anchorDate: '2026-01-02' },
  { cycle: '02', anchorDate: '2026-01-05' },
  { cycle: '10', anchorDate: '2026-01-15' },
];

function input(over: Partial<SwitchInput> = {}): SwitchInput {
  return {
    now: new Date('2026-03-03T16:00:00Z'), // Tue 10:00 CST
    timeZone: 'America/Chicago',
    calendar: businessCalendar([]),
    kind: 'METER_READ',
    leadBusinessDays: 5,
    sameDayCutoff: '17:00',
    meterRead: { cycleDays: 30, anchorDate: '2026-01-07', readDates: [] },
    ...over,
  };
}

describe('meter-read starts by billing cycle', () => {
  // Reads: 01: 01-02, 02-01, 03-03, 04-02 | 02: 01-05, 02-04, 03-06, 04-05 | 10: 01-15, 02-14, 03-16, 04-15
  it("takes the account's cycle, or the earliest cycle's read, and says which", () => {
    expect(switchDate(input({ meterReadCycles: cycles, accountCycle: '02' }))).toEqual({
      date: '2026-04-06', // 04-05 is a Sunday
      rule: 'METER_READ',
      meterReadDate: '2026-04-06',
      meterReadCycle: '02',
      meterReadBasis: 'ACCOUNT_CYCLE',
    });
    expect(switchDate(input({ meterReadCycles: cycles }))).toMatchObject({
      date: '2026-03-16',
      meterReadCycle: '10',
      meterReadBasis: 'EARLIEST_CYCLE',
    });
    expect(() => switchDate(input({ meterReadCycles: cycles, accountCycle: '07' }))).toThrow(UnknownCycleError);
    expect(switchDate(input())).toMatchObject({ meterReadBasis: 'UTILITY_SCHEDULE', meterReadCycle: null });
  });

  it('a rescission window pushes the start past its last day', () => {
    // Request day 03-03, +5 business days -> 03-10; a 10-day window ends 03-13, so 03-14 (Sat) -> 03-16.
    expect(switchDate(input({ kind: 'ACCELERATED', rescissionDays: 10 })).date).toBe('2026-03-16');
    expect(switchDate(input({ kind: 'ACCELERATED' })).date).toBe('2026-03-10');
    expect(switchDate(input({ meterReadCycles: cycles, accountCycle: '10', rescissionDays: 10 })).date).toBe('2026-03-16');
    expect(switchDate(input({ meterReadCycles: cycles, accountCycle: '10', rescissionDays: 14 })).date).toBe('2026-04-15');
    expect(() => switchDate(input({ rescissionDays: -1 }))).toThrow(RangeError);
  });
});

describe('tariff periods', () => {
  const d = (effective: string, perKwhMicro: number) => ({ fixedMonthlyMicro: 4_390_000, perKwhMicro, effective });
  const history = [d('2025-09-01', 57_893), d('2026-03-01', 58_764), d('2026-09-01', 59_852)];

  it('delivery: the last period that took effect by the date; the feed current one before the first', () => {
    expect(chargesOn(history, history[2]!, '2026-02-28')!.perKwhMicro).toBe(57_893);
    expect(chargesOn(history, history[2]!, '2026-03-01')!.perKwhMicro).toBe(58_764);
    expect(chargesOn(history, history[2]!, '2030-01-01')!.perKwhMicro).toBe(59_852);
    expect(chargesOn(history, history[2]!, '2020-01-01')!.perKwhMicro).toBe(59_852);
    expect(chargesOn([], history[0]!, '2030-01-01')).toBe(history[0]);
  });

  it('Price to Compare: the period of the class in effect on the date, null when none covers it', () => {
    const p = (effective: string, expires: string, microPerKwh: number, extra: Partial<PriceToCompare> = {}): PriceToCompare => ({
      microPerKwh,
      effective,
      expires,
      ...extra,
    });
    const periods = [
      p('2026-06-01', '2026-09-30', 98_700, { season: 'SUMMER' }),
      p('2026-10-01', '2027-05-31', 91_200, { season: 'NON_SUMMER' }),
      p('2026-10-01', '2027-05-31', 86_800, { season: 'NON_SUMMER', customerClass: 'COMMERCIAL' }),
    ];
    expect(priceToCompareOn(periods, null, '2026-09-30')!.microPerKwh).toBe(98_700);
    expect(priceToCompareOn(periods, null, '2026-10-01')!.microPerKwh).toBe(91_200);
    expect(priceToCompareOn(periods, null, '2026-10-01', 'COMMERCIAL')!.microPerKwh).toBe(86_800);
    expect(priceToCompareOn(periods, null, '2027-06-01')).toBeNull();
    const single = p('2026-06-01', '2027-05-31', 98_500);
    expect(priceToCompareOn(undefined, single, '2027-05-31')).toBe(single);
    expect(priceToCompareOn(undefined, single, '2027-06-01')).toBeNull();
    expect(currentAndNext(periods, '2026-11-25').map((x) => x.microPerKwh)).toEqual([91_200, 86_800]);
  });
});
