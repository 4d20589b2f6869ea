// Business-day calendars from holiday rules (domain/calendar.ts) and the switching rules that count
// on them (domain/start-date.ts switchDate), with an injected clock across years, DST and cut-offs.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { businessCalendar, CalendarRuleError, checkRule, type HolidayRule } from '../../domain/calendar.js';
import { switchDate, type SwitchInput } from '../../domain/start-date.js';
import { ERCOT, RULES, utilityCalendar } from '../../sources/reference-upstream/data/holidays.js';
import { UTILITIES } from '../../sources/reference-upstream/data/utilities.js';

const PA = utilityCalendar('PA utilities', ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING']);
const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

describe('businessCalendar', () => {
  it('computes federal holidays for any year, observed on the nearest weekday (point 1)', () => {
    const cal = businessCalendar(PA.holidays);
    expect(cal.holidaysOf(2028)).toEqual([
      '2028-01-17', // MLK Day (New Year's Day 2028 is a Saturday: observed 2027-12-31)
      '2028-02-21',
      '2028-04-14',
      '2028-05-29',
      '2028-06-19',
      '2028-07-04',
      '2028-09-04',
      '2028-10-09',
      '2028-11-10', // Veterans Day on a Saturday -> Friday
      '2028-11-23',
      '2028-11-24',
      '2028-12-25',
    ]);
    expect(cal.holidaysOf(2027)).toContain('2027-12-31');
    expect(cal.holidaysOf(2050)).toEqual(expect.arrayContaining(['2050-01-17', '2050-04-08', '2050-05-30', '2050-11-24', '2050-12-26']));
    expect(cal.isBusinessDay(day('2028-01-17'))).toBe(false);
    expect(cal.isBusinessDay(day('2028-01-18'))).toBe(true);
  });

  it("ERCOT works MLK Day, Presidents' Day, Juneteenth, Columbus and Veterans Day, closes the day after Thanksgiving and Christmas Eve (point 2)", () => {
    const cal = businessCalendar(ERCOT.holidays);
    expect(cal.holidaysOf(2026)).toEqual([
      '2026-01-01',
      '2026-05-25',
      '2026-07-03',
      '2026-09-07',
      '2026-11-26',
      '2026-11-27',
      '2026-12-24',
      '2026-12-25',
    ]);
    for (const open of ['2026-01-19', '2026-02-16', '2026-06-19', '2026-10-12', '2026-11-11', '2028-01-17'])
      expect(cal.isBusinessDay(day(open)), open).toBe(true);
  });

  it('adds explicit closure dates to the rules', () => {
    const cal = businessCalendar(ERCOT.holidays, ['2026-03-10']);
    expect(cal.isBusinessDay(day('2026-03-10'))).toBe(false);
    expect(businessCalendar(ERCOT.holidays).isBusinessDay(day('2026-03-10'))).toBe(true);
  });

  it('accepts the documented rule forms and rejects anything else with a clear error', () => {
    for (const r of Object.values(RULES)) expect(checkRule(r.rule)).toBe(r.rule);
    const bad = [
      '',
      '13-01',
      '02-30',
      '04-31',
      '3rd monday',
      'easter 400',
      'every day',
      '01-01; rm -rf /',
      '01-01 if saturday then previous friday'.repeat(5),
      'substitutes 01-01',
      '01-01 since 2020',
      '1st monday in Smarch',
      '\u0000',
      'x'.repeat(10_000),
    ];
    for (const rule of bad) expect(() => checkRule(rule), rule.slice(0, 30)).toThrow(CalendarRuleError);
    for (const v of [null, 42, {}, ['01-01']]) expect(() => checkRule(v)).toThrow(CalendarRuleError);
    expect(() => businessCalendar([{ name: 'x', rule: '02-30' }])).toThrow(/does not exist/);
    expect(() => businessCalendar(Array.from({ length: 41 }, (_, i) => ({ name: `h${i}`, rule: '01-02' })))).toThrow(/at most 40/);
  });

  it('rejects years outside 1970..2200 when listing', () => {
    expect(() => businessCalendar(ERCOT.holidays).holidaysOf(1969)).toThrow(RangeError);
    expect(() => businessCalendar(ERCOT.holidays).holidaysOf(2026.5)).toThrow(RangeError);
  });
});

const input = (over: Partial<SwitchInput>): SwitchInput => ({
  now: new Date('2026-11-25T16:00:00Z'),
  timeZone: 'America/New_York',
  calendar: businessCalendar(PA.holidays),
  kind: 'ACCELERATED',
  leadBusinessDays: 3,
  sameDayCutoff: '16:00',
  ...over,
});

describe('switchDate', () => {
  it("point 1: with the issue's lead of 5 PA business days, 2028-01-14T23:30Z gives 01-25, and 3 (accelerated) gives 01-21", () => {
    expect(switchDate(input({ now: new Date('2028-01-14T23:30:00Z'), leadBusinessDays: 5 })).date).toBe('2028-01-25');
    expect(switchDate(input({ now: new Date('2028-01-14T23:30:00Z') }))).toEqual({
      date: '2028-01-21',
      rule: 'ACCELERATED',
      meterReadDate: null,
    });
  });

  it('OFF_CYCLE: the requested date, moved to a business day, never before the earliest start', () => {
    const tx = {
      kind: 'OFF_CYCLE' as const,
      timeZone: 'America/Chicago',
      calendar: businessCalendar(ERCOT.holidays),
      leadBusinessDays: 2,
      sameDayCutoff: '17:00',
    };
    const now = new Date('2026-06-17T15:00:00Z'); // Wed 10:00 CDT
    expect(switchDate(input({ ...tx, now })).date).toBe('2026-06-19');
    expect(switchDate(input({ ...tx, now, requestedDate: '2026-06-18' })).date).toBe('2026-06-19');
    expect(switchDate(input({ ...tx, now, requestedDate: '2026-07-03' })).date).toBe('2026-07-06'); // observed Independence Day
    expect(switchDate(input({ ...tx, now, requestedDate: '2026-07-15' })).date).toBe('2026-07-15');
    expect(() => switchDate(input({ ...tx, now, requestedDate: '2026-02-30' }))).toThrow(RangeError);
    // Other rules ignore a requested date (PA: Wed 11:00 EDT + 3 business days, Juneteenth closed).
    expect(switchDate(input({ now, requestedDate: '2026-07-15' })).date).toBe('2026-06-23');
  });

  describe('METER_READ', () => {
    const mr = (over: Partial<SwitchInput>) =>
      input({
        kind: 'METER_READ',
        leadBusinessDays: 5,
        sameDayCutoff: '17:00',
        timeZone: 'America/Chicago',
        meterRead: { cycleDays: 30, anchorDate: '2026-01-07', readDates: [] },
        ...over,
      });

    it('takes the first read at least the enrollment lead time away, and names it', () => {
      // Reads: 01-07 + 30k days: ... 2026-03-08 (Sun -> Mon 03-09), 2026-04-07, ...
      // Mon 2026-03-02 09:00 CST: request day 03-02, +5 business days -> 03-09; read 03-09 qualifies.
      expect(switchDate(mr({ now: new Date('2026-03-02T15:00:00Z') }))).toEqual({
        date: '2026-03-09',
        rule: 'METER_READ',
        meterReadDate: '2026-03-09',
        meterReadCycle: null,
        meterReadBasis: 'UTILITY_SCHEDULE',
      });
      // Tue 03-03: +5 -> 03-10, after the 03-09 read: the next one, 04-07.
      expect(switchDate(mr({ now: new Date('2026-03-03T15:00:00Z') })).date).toBe('2026-04-07');
    });

    it('the cut-off decides which read (spring-forward day in Chicago)', () => {
      // Mon 2026-03-02 16:59 CST = 22:59Z still counts Monday; 17:00 does not.
      expect(switchDate(mr({ now: new Date('2026-03-02T22:59:00Z') })).date).toBe('2026-03-09');
      expect(switchDate(mr({ now: new Date('2026-03-02T23:00:00Z') })).date).toBe('2026-04-07');
      // Mon 2026-03-09 is CDT (UTC-5): 21:59Z = 16:59 local, 22:00Z = 17:00.
      const anchor = { meterRead: { cycleDays: 30, anchorDate: '2026-03-16', readDates: [] }, leadBusinessDays: 5 };
      expect(switchDate(mr({ ...anchor, now: new Date('2026-03-09T21:59:00Z') })).date).toBe('2026-03-16');
      expect(switchDate(mr({ ...anchor, now: new Date('2026-03-09T22:00:00Z') })).date).toBe('2026-04-15');
    });

    it('the cut-off holds across fall-back (New York, 2026-11-01)', () => {
      const ny = {
        timeZone: 'America/New_York',
        sameDayCutoff: '16:00',
        meterRead: { cycleDays: 30, anchorDate: '2026-11-10', readDates: [] },
        leadBusinessDays: 5,
      };
      // Mon 2026-11-02 is EST (UTC-5): 20:59Z = 15:59 local counts Monday; 21:00Z does not.
      expect(switchDate(mr({ ...ny, now: new Date('2026-11-02T20:59:00Z') })).date).toBe('2026-11-10');
      expect(switchDate(mr({ ...ny, now: new Date('2026-11-02T21:00:00Z') })).date).toBe('2026-11-10');
      expect(switchDate(mr({ ...ny, now: new Date('2026-11-03T21:00:00Z') })).date).toBe('2026-12-10');
    });

    it('uses published read dates first, then continues the cycle from the last one', () => {
      const meterRead = { cycleDays: 30, anchorDate: null, readDates: ['2026-12-14', '2026-11-12', '2027-01-13'] };
      expect(switchDate(mr({ meterRead, now: new Date('2026-11-02T15:00:00Z') })).date).toBe('2026-11-12');
      expect(switchDate(mr({ meterRead, now: new Date('2026-11-10T15:00:00Z') })).date).toBe('2026-12-14');
      expect(switchDate(mr({ meterRead, now: new Date('2027-01-20T15:00:00Z') })).date).toBe('2027-02-12');
    });

    it('a read on a holiday happens on the next business day', () => {
      const cal = businessCalendar(PA.holidays);
      // Nominal read 2026-12-25 (Christmas, Friday) -> Mon 12-28.
      expect(
        switchDate(
          mr({
            calendar: cal,
            meterRead: { cycleDays: 30, anchorDate: '2026-12-25', readDates: [] },
            now: new Date('2026-12-01T15:00:00Z'),
          }),
        ).date,
      ).toBe('2026-12-28');
    });

    it('rejects a schedule it cannot use', () => {
      expect(() => switchDate(mr({ meterRead: null }))).toThrow(RangeError);
      expect(() => switchDate(mr({ meterRead: { cycleDays: 30, anchorDate: null, readDates: [] } }))).toThrow(/anchor/);
      expect(() => switchDate(mr({ meterRead: { cycleDays: 0, anchorDate: '2026-01-01', readDates: [] } }))).toThrow(RangeError);
      expect(() => switchDate(mr({ meterRead: { cycleDays: 30, anchorDate: '2026-13-01', readDates: [] } }))).toThrow(RangeError);
      expect(() => switchDate(input({ kind: 'SOMETIMES' as never }))).toThrow(RangeError);
    });
  });
});

const iso = (d: Date) => d.toISOString().slice(0, 10);

describe('every reference territory, 2026-2050 (property)', () => {
  const choice = [...UTILITIES.values()].filter((u) => u.market === 'DEREGULATED');

  it('a start date is never a weekend or a holiday of its territory, never before local today, and a meter read when the rule says so', () => {
    // The oracle lists each year's holidays from the rules; the date under test steps through isBusinessDay.
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2050-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.constantFrom(...choice),
        (now, u) => {
          const rules: HolidayRule[] = u.calendar.holidays;
          const calendar = businessCalendar(rules);
          const s = switchDate({
            now,
            timeZone: u.timeZone,
            calendar,
            kind: u.switching.kind,
            leadBusinessDays: u.switching.leadBusinessDays,
            sameDayCutoff: u.switching.sameDayCutoff,
            meterRead: { cycleDays: u.switching.meterReadCycleDays, anchorDate: u.switching.meterReadAnchorDate, readDates: [] },
          });
          const d = day(s.date);
          expect([0, 6]).not.toContain(d.getUTCDay());
          expect(calendar.holidaysOf(d.getUTCFullYear())).not.toContain(s.date);
          const today = new Intl.DateTimeFormat('en-CA', { timeZone: u.timeZone }).format(now);
          expect(s.date > today).toBe(true);
          expect(s.rule).toBe(u.switching.kind);
          if (s.rule === 'METER_READ') expect(s.meterReadDate).toBe(s.date);
          else expect(s.meterReadDate).toBeNull();
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('each calendar year 2026-2050 has the holidays its rules name (independent oracle for Thanksgiving and MLK Day)', () => {
    const thanksgiving = (y: number) => {
      const first = new Date(Date.UTC(y, 10, 1)).getUTCDay();
      return iso(new Date(Date.UTC(y, 10, 1 + ((4 - first + 7) % 7) + 21)));
    };
    const mlk = (y: number) => {
      const first = new Date(Date.UTC(y, 0, 1)).getUTCDay();
      return iso(new Date(Date.UTC(y, 0, 1 + ((1 - first + 7) % 7) + 14)));
    };
    const ercot = businessCalendar(ERCOT.holidays);
    const pa = businessCalendar(PA.holidays);
    for (let y = 2026; y <= 2050; y++) {
      expect(ercot.holidaysOf(y)).toContain(thanksgiving(y));
      expect(pa.holidaysOf(y)).toContain(mlk(y));
      expect(ercot.holidaysOf(y)).not.toContain(mlk(y));
    }
  });
});
