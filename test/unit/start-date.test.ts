import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { localDateTime, nextStartDate, type StartDateInput } from '../../domain/start-date.js';

const HOLIDAYS_2026 = ['2026-11-26', '2026-12-25'];
const base = (over: Partial<StartDateInput>): StartDateInput => ({
  now: new Date('2026-11-25T16:00:00Z'),
  timeZone: 'America/Chicago',
  leadBusinessDays: 2,
  holidays: HOLIDAYS_2026,
  sameDayCutoff: '17:00',
  ...over,
});
const at = (iso: string, over: Partial<StartDateInput> = {}) => nextStartDate(base({ now: new Date(iso), ...over }));

describe('nextStartDate', () => {
  it('skips Thanksgiving (Thu 2026-11-26) and weekends', () => {
    // Wed 10:00 CST, lead 2: Thu is a holiday -> Fri, Mon.
    expect(at('2026-11-25T16:00:00Z')).toBe('2026-11-30');
    expect(at('2026-11-25T16:00:00Z', { holidays: [] })).toBe('2026-11-27');
  });

  it('the Friday after Thanksgiving is a business day unless listed', () => {
    // On Thanksgiving itself (a holiday), lead 0: next business day.
    expect(at('2026-11-26T18:00:00Z', { leadBusinessDays: 0 })).toBe('2026-11-27');
    expect(at('2026-11-26T18:00:00Z', { leadBusinessDays: 0, holidays: [...HOLIDAYS_2026, '2026-11-27'] })).toBe('2026-11-30');
  });

  it('counts today only before the cutoff', () => {
    // Mon 2026-11-30, CST = UTC-6.
    expect(at('2026-11-30T22:59:00Z', { leadBusinessDays: 0 })).toBe('2026-11-30'); // 16:59
    expect(at('2026-11-30T23:00:00Z', { leadBusinessDays: 0 })).toBe('2026-12-01'); // 17:00 = at cutoff
    expect(at('2026-11-30T22:59:00Z')).toBe('2026-12-02');
    expect(at('2026-11-30T23:00:00Z')).toBe('2026-12-03');
    expect(at('2026-11-30T15:00:00Z', { sameDayCutoff: '00:00', leadBusinessDays: 0 })).toBe('2026-12-01');
  });

  it('weekends start counting on Monday', () => {
    expect(at('2026-11-28T16:00:00Z', { leadBusinessDays: 0 })).toBe('2026-11-30'); // Sat
    expect(at('2026-11-29T16:00:00Z', { leadBusinessDays: 1 })).toBe('2026-12-01'); // Sun
    expect(at('2026-12-24T16:00:00Z', { leadBusinessDays: 1 })).toBe('2026-12-28'); // Thu -> Christmas -> Mon
  });

  it('uses the local date, not the UTC date, around midnight UTC', () => {
    // 2026-03-07T02:00Z is Saturday in UTC but Friday 20:00 CST in Chicago.
    expect(at('2026-03-07T02:00:00Z', { sameDayCutoff: '23:00', leadBusinessDays: 1 })).toBe('2026-03-09');
    expect(at('2026-03-07T02:00:00Z', { sameDayCutoff: '17:00', leadBusinessDays: 1 })).toBe('2026-03-10');
    // Same instant in Tokyo is Saturday 11:00.
    expect(at('2026-03-07T02:00:00Z', { timeZone: 'Asia/Tokyo', sameDayCutoff: '23:00', leadBusinessDays: 1 })).toBe('2026-03-10');
  });

  it('handles the spring-forward change (America/Chicago, 2026-03-08)', () => {
    // Mon 2026-03-09 is CDT (UTC-5): 22:30Z = 17:30 local (would be 16:30 under CST).
    expect(at('2026-03-09T22:30:00Z', { leadBusinessDays: 0 })).toBe('2026-03-10');
    expect(at('2026-03-09T21:59:00Z', { leadBusinessDays: 0 })).toBe('2026-03-09');
    // Friday before, still CST (UTC-6): 22:30Z = 16:30 local.
    expect(at('2026-03-06T22:30:00Z', { leadBusinessDays: 0 })).toBe('2026-03-06');
    // During the skipped hour on Sunday (08:30Z = 03:30 CDT).
    expect(at('2026-03-08T08:30:00Z', { leadBusinessDays: 0 })).toBe('2026-03-09');
    expect(localDateTime(new Date('2026-03-08T08:30:00Z'), 'America/Chicago').minutes).toBe(3 * 60 + 30);
  });

  it('local time is right on every call within one UTC minute, in a zone whose offset has seconds too', () => {
    const minutesAt = (iso: string, zone: string) => localDateTime(new Date(iso), zone).minutes;
    // Whole-minute offset: the minute asked before answers the next call in it.
    expect(minutesAt('2026-03-09T22:30:05Z', 'America/Chicago')).toBe(17 * 60 + 30);
    expect(minutesAt('2026-03-09T22:30:59Z', 'America/Chicago')).toBe(17 * 60 + 30);
    expect(minutesAt('2026-03-09T22:31:00Z', 'America/Chicago')).toBe(17 * 60 + 31);
    expect(localDateTime(new Date('2026-03-09T22:31:30Z'), 'Asia/Tokyo').date.toISOString()).toBe('2026-03-10T00:00:00.000Z');
    // Chicago's local mean time (UTC-5:50:36) until 1883: the local minute turns 24 s into the UTC one.
    expect(minutesAt('1880-01-01T12:00:10Z', 'America/Chicago')).toBe(6 * 60 + 9);
    expect(minutesAt('1880-01-01T12:00:40Z', 'America/Chicago')).toBe(6 * 60 + 10);
  });

  it('handles the fall-back change (America/Chicago, 2026-11-01)', () => {
    // Mon 2026-11-02 is CST (UTC-6).
    expect(at('2026-11-02T22:30:00Z', { leadBusinessDays: 0 })).toBe('2026-11-02'); // 16:30
    expect(at('2026-11-02T23:00:00Z', { leadBusinessDays: 0 })).toBe('2026-11-03'); // 17:00
    // Friday before, still CDT (UTC-5): 22:00Z = 17:00 local.
    expect(at('2026-10-30T22:00:00Z', { leadBusinessDays: 0 })).toBe('2026-11-02');
    expect(at('2026-10-30T21:59:00Z', { leadBusinessDays: 0 })).toBe('2026-10-30');
  });

  it('handles America/New_York around DST changes and local midnight', () => {
    const ny = { timeZone: 'America/New_York' };
    // Mon 2026-03-09 is EDT (UTC-4): 21:00Z = 17:00 local.
    expect(at('2026-03-09T21:00:00Z', { ...ny, leadBusinessDays: 0 })).toBe('2026-03-10');
    expect(at('2026-03-09T20:59:00Z', { ...ny, leadBusinessDays: 0 })).toBe('2026-03-09');
    // Fall back 2026-11-01 at 02:00 EDT: both sides of local midnight are the weekend.
    expect(at('2026-11-01T03:59:00Z', { ...ny, leadBusinessDays: 0 })).toBe('2026-11-02'); // Sat 23:59 EDT
    expect(at('2026-11-01T05:30:00Z', { ...ny, leadBusinessDays: 0 })).toBe('2026-11-02'); // Sun 01:30 EST (repeated hour)
    // Mon 2026-11-02 23:58 EST (04:58Z Tue) is still Monday locally; 05:00Z is Tue 00:00.
    expect(at('2026-11-03T04:58:00Z', { ...ny, sameDayCutoff: '23:59', leadBusinessDays: 1 })).toBe('2026-11-03');
    expect(at('2026-11-03T05:00:00Z', { ...ny, sameDayCutoff: '23:59', leadBusinessDays: 1 })).toBe('2026-11-04');
  });

  it('is never before local today, always a business day, and deterministic', () => {
    const zones = [
      'America/Chicago',
      'America/New_York',
      'America/Los_Angeles',
      'America/Phoenix',
      'Pacific/Honolulu',
      'America/Anchorage',
    ];
    const day = fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2026-12-31T00:00:00Z'), noInvalidDate: true });
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2025-01-01T00:00:00Z'), max: new Date('2028-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.constantFrom(...zones),
        fc.integer({ min: 0, max: 10 }),
        fc.array(
          day.map((d) => d.toISOString().slice(0, 10)),
          { maxLength: 20 },
        ),
        fc.integer({ min: 0, max: 23 * 60 + 59 }),
        (now, timeZone, lead, holidays, cutoffMin) => {
          const sameDayCutoff = `${String(Math.floor(cutoffMin / 60)).padStart(2, '0')}:${String(cutoffMin % 60).padStart(2, '0')}`;
          const input = { now, timeZone, leadBusinessDays: lead, holidays, sameDayCutoff };
          const result = nextStartDate(input);
          const today = new Intl.DateTimeFormat('en-CA', { timeZone }).format(now); // YYYY-MM-DD
          expect(result >= today).toBe(true);
          const wd = new Date(`${result}T00:00:00Z`).getUTCDay();
          expect(wd >= 1 && wd <= 5 && !holidays.includes(result)).toBe(true);
          expect(nextStartDate(input)).toBe(result);
          if (lead > 0) expect(result > today).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('rejects bad input', () => {
    expect(() => at('2026-11-25T16:00:00Z', { timeZone: 'Mars/Olympus' })).toThrow(RangeError);
    expect(() => at('2026-11-25T16:00:00Z', { sameDayCutoff: '5pm' })).toThrow(RangeError);
    expect(() => at('2026-11-25T16:00:00Z', { sameDayCutoff: '24:00' })).toThrow(RangeError);
    expect(() => at('2026-11-25T16:00:00Z', { leadBusinessDays: -1 })).toThrow(RangeError);
    expect(() => at('2026-11-25T16:00:00Z', { leadBusinessDays: 1.5 })).toThrow(RangeError);
    expect(() => at('2026-11-25T16:00:00Z', { holidays: ['11/26/2026'] })).toThrow(RangeError);
    expect(() => nextStartDate(base({ now: new Date(NaN) }))).toThrow(RangeError);
  });
});
