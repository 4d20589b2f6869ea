// Earliest service start date for a switch, in the territory's local calendar, by the market's
// switching rule:
//   OFF_CYCLE    (Texas)  the requested date, at the earliest N business days after the request day
//   ACCELERATED  (Pennsylvania) N business days after the request day (3 under PA's accelerated switching)
//   METER_READ   (OH IL NY NJ MD MA CT ...) the first scheduled meter read at least N business days
//                (the enrollment lead time) after the request day
// The request day is local today when it is a business day and the local time is before the
// same-day cut-off, else the next business day. A rescission window (Illinois: 10 calendar days in
// which the customer may cancel the enrollment) pushes the start past its last day.
// Meter reads: a utility reads its meters on billing cycles (about 20 a month); the switch takes
// the read of the account's cycle when it is known, else the earliest read of any cycle.
// Wall-clock date/time comes from Intl (IANA zone, so DST is handled by the platform); all
// calendar stepping is done on UTC-midnight dates, which have no DST.
import { businessCalendar, type BusinessCalendar } from './calendar.js';

export type SwitchingKind = 'OFF_CYCLE' | 'ACCELERATED' | 'METER_READ';
export const SWITCHING_KINDS: readonly SwitchingKind[] = ['OFF_CYCLE', 'ACCELERATED', 'METER_READ'];

export interface MeterReadSchedule {
  /** Days between scheduled reads. */
  cycleDays: number;
  /** A scheduled read date (YYYY-MM-DD); reads fall every cycleDays before and after it. */
  anchorDate: string | null;
  /** Published read dates (YYYY-MM-DD); after the last one the cycle continues from it. */
  readDates: readonly string[];
}

/** One billing cycle's read schedule: its name (as on the customer's bill) and a scheduled read date. */
export interface MeterReadCycle {
  cycle: string;
  anchorDate: string;
}

/** Which read a METER_READ start was computed from. */
export type MeterReadBasis = 'ACCOUNT_CYCLE' | 'EARLIEST_CYCLE' | 'UTILITY_SCHEDULE';

/** Texas: ERCOT does not take a switch request for a date more than 90 days ahead. */
export const MAX_REQUEST_AHEAD_DAYS: Readonly<Record<SwitchingKind, number>> = { OFF_CYCLE: 90, ACCELERATED: 365, METER_READ: 365 };

export interface SwitchInput {
  now: Date;
  /** IANA zone of the territory, e.g. "America/Chicago". */
  timeZone: string;
  calendar: BusinessCalendar;
  kind: SwitchingKind;
  /** Business days after the request day (for METER_READ: the enrollment lead time before the read). */
  leadBusinessDays: number;
  /** Local "HH:MM" (24 h). At or after it, today no longer counts as the request day. */
  sameDayCutoff: string;
  meterRead?: MeterReadSchedule | null;
  /** OFF_CYCLE only: the customer's requested date (YYYY-MM-DD); never earlier than the earliest possible. */
  requestedDate?: string | null;
  /** Calendar days after the request day in which the customer may still cancel; the start comes after them. */
  rescissionDays?: number;
  /** METER_READ: the utility's billing cycles (each with its own reads); used instead of `meterRead` when given. */
  meterReadCycles?: readonly MeterReadCycle[];
  /** METER_READ: the account's cycle, when known; one of `meterReadCycles`. */
  accountCycle?: string | null;
}

export interface SwitchDate {
  /** YYYY-MM-DD the new service starts. */
  date: string;
  rule: SwitchingKind;
  /** METER_READ: the scheduled read the switch takes effect on (same as `date`); otherwise null. */
  meterReadDate: string | null;
  /** METER_READ: the billing cycle whose read it is (null for a utility-wide schedule); absent for other rules. */
  meterReadCycle?: string | null;
  /** METER_READ: whether the account's cycle, the earliest cycle or the utility's one schedule gave the read; absent for other rules. */
  meterReadBasis?: MeterReadBasis;
}

export class UnknownCycleError extends RangeError {
  override readonly name = 'UnknownCycleError';
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, // RangeError on an unknown zone
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Per zone, the UTC minute last asked for and its local day and minutes. */
const lastMinute = new Map<string, { minute: number; dayMs: number; minutes: number }>();

/**
 * Local calendar date (as a UTC-midnight Date) and minutes since local midnight. ICU formats the
 * date for every uncached plan's start date (about 1% of a miss): within one UTC minute the answer
 * is the same wherever the zone's offset is whole minutes (local and UTC seconds agree), so the
 * last minute asked is remembered per zone.
 */
export function localDateTime(now: Date, timeZone: string): { date: Date; minutes: number } {
  const ms = now.getTime();
  const minute = Math.floor(ms / 60_000);
  const last = lastMinute.get(timeZone);
  if (last !== undefined && last.minute === minute) return { date: new Date(last.dayMs), minutes: last.minutes };
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(now)) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const { year, month, day, hour, minute: m, second } = parts as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number>;
  const dayMs = Date.UTC(year, month - 1, day);
  const minutes = (hour % 24) * 60 + m;
  if (second === Math.floor(ms / 1000) - minute * 60) {
    if (last === undefined && lastMinute.size >= 1000) lastMinute.clear();
    lastMinute.set(timeZone, { minute, dayMs, minutes });
  }
  return { date: new Date(dayMs), minutes };
}

const ISO_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DAY_MS = 86_400_000;
/** No calendar closes this many days in a row; a longer search means a broken calendar. */
const MAX_SEARCH_DAYS = 3660;

const iso = (d: Date): string => d.toISOString().slice(0, 10);
const nextDay = (d: Date): Date => new Date(d.getTime() + DAY_MS);

/** A real YYYY-MM-DD date as a UTC-midnight Date; RangeError otherwise. */
function parseIsoDate(value: string, what: string): Date {
  const d = ISO_DATE.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(NaN);
  if (Number.isNaN(d.getTime()) || iso(d) !== value)
    throw new RangeError(`${what} must be a date YYYY-MM-DD, got ${JSON.stringify(value)}`);
  return d;
}

function onOrAfterBusinessDay(d: Date, cal: BusinessCalendar): Date {
  let n = d;
  for (let i = 0; !cal.isBusinessDay(n); i++) {
    if (i > MAX_SEARCH_DAYS) throw new RangeError('the calendar has no business day within ten years');
    n = nextDay(n);
  }
  return n;
}

const nextBusinessDay = (d: Date, cal: BusinessCalendar): Date => onOrAfterBusinessDay(nextDay(d), cal);

/** First scheduled read on or after `earliest`; a read on a closed day happens on the next business day. */
function nextMeterRead(earliest: Date, schedule: MeterReadSchedule, cal: BusinessCalendar): Date {
  const { cycleDays } = schedule;
  if (!Number.isSafeInteger(cycleDays) || cycleDays < 1 || cycleDays > 366)
    throw new RangeError(`meter-read cycle must be 1..366 days, got ${cycleDays}`);
  const reads = schedule.readDates.map((d) => parseIsoDate(d, 'meter read date')).sort((a, b) => a.getTime() - b.getTime());
  for (const read of reads) {
    const actual = onOrAfterBusinessDay(read, cal);
    if (actual >= earliest) return actual;
  }
  const anchor = reads.at(-1) ?? (schedule.anchorDate ? parseIsoDate(schedule.anchorDate, 'meter read anchor date') : null);
  if (!anchor) throw new RangeError('a meter-read schedule needs an anchor date or read dates');
  // Nominal reads are anchor + k * cycle; moving a closed one forward keeps it before the next
  // nominal read (a cycle is longer than any run of closed days), so the first nominal read whose
  // business day is >= earliest is found by starting one cycle early.
  const cycleMs = cycleDays * DAY_MS;
  let k = Math.ceil((earliest.getTime() - anchor.getTime()) / cycleMs) - 1;
  for (;;) {
    const actual = onOrAfterBusinessDay(new Date(anchor.getTime() + k * cycleMs), cal);
    if (actual >= earliest) return actual;
    k++;
  }
}

/** The start date and the rule that gave it. Pure: depends only on its input. */
export function switchDate(input: SwitchInput): SwitchDate {
  const { now, timeZone, calendar, kind, leadBusinessDays, sameDayCutoff } = input;
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new RangeError('now must be a valid Date');
  if (!SWITCHING_KINDS.includes(kind)) throw new RangeError(`unknown switching rule ${JSON.stringify(kind)}`);
  if (!Number.isSafeInteger(leadBusinessDays) || leadBusinessDays < 0 || leadBusinessDays > 366) {
    throw new RangeError(`leadBusinessDays must be an integer 0..366, got ${leadBusinessDays}`);
  }
  const cut = HHMM.exec(sameDayCutoff);
  if (!cut) throw new RangeError(`sameDayCutoff must be HH:MM, got ${JSON.stringify(sameDayCutoff)}`);

  const { date: today, minutes } = localDateTime(now, timeZone);
  const cutoffMinutes = Number(cut[1]) * 60 + Number(cut[2]);
  const requestDay = minutes >= cutoffMinutes || !calendar.isBusinessDay(today) ? nextBusinessDay(today, calendar) : today;
  let day = requestDay;
  for (let i = 0; i < leadBusinessDays; i++) day = nextBusinessDay(day, calendar);

  const rescission = input.rescissionDays ?? 0;
  if (!Number.isSafeInteger(rescission) || rescission < 0 || rescission > 90)
    throw new RangeError(`rescissionDays must be an integer 0..90, got ${rescission}`);
  if (rescission > 0) {
    const afterWindow = onOrAfterBusinessDay(new Date(requestDay.getTime() + (rescission + 1) * DAY_MS), calendar);
    if (afterWindow > day) day = afterWindow;
  }

  if (kind === 'METER_READ') return meterReadStart(day, input);
  if (kind === 'OFF_CYCLE' && input.requestedDate) {
    const requested = onOrAfterBusinessDay(parseIsoDate(input.requestedDate, 'requestedDate'), calendar);
    if (requested > day) day = requested;
  }
  return { date: iso(day), rule: kind, meterReadDate: null };
}

function meterReadStart(earliest: Date, input: SwitchInput): SwitchDate {
  const cycles = input.meterReadCycles ?? [];
  const read = (schedule: MeterReadSchedule) => iso(nextMeterRead(earliest, schedule, input.calendar));
  const answer = (date: string, meterReadCycle: string | null, meterReadBasis: MeterReadBasis): SwitchDate => ({
    date,
    rule: 'METER_READ',
    meterReadDate: date,
    meterReadCycle,
    meterReadBasis,
  });
  const cycleDays = input.meterRead?.cycleDays ?? 30;
  const ofCycle = (c: MeterReadCycle) => read({ cycleDays, anchorDate: c.anchorDate, readDates: [] });
  if (cycles.length > 0) {
    if (input.accountCycle) {
      const mine = cycles.find((c) => c.cycle === input.accountCycle);
      if (!mine) throw new UnknownCycleError(`meter-read cycle ${JSON.stringify(input.accountCycle)} is not one of the utility's cycles`);
      return answer(ofCycle(mine), mine.cycle, 'ACCOUNT_CYCLE');
    }
    let best: { date: string; cycle: string } | null = null;
    for (const c of cycles) {
      const date = ofCycle(c);
      if (!best || date < best.date) best = { date, cycle: c.cycle };
    }
    return answer(best!.date, best!.cycle, 'EARLIEST_CYCLE');
  }
  if (!input.meterRead) throw new RangeError('METER_READ needs a meter-read schedule');
  return answer(read(input.meterRead), null, 'UTILITY_SCHEDULE');
}

export interface StartDateInput {
  now: Date;
  timeZone: string;
  /** Business days of lead time after the request day (0 = today if it still counts). */
  leadBusinessDays: number;
  /** YYYY-MM-DD local dates that are not business days. */
  holidays: readonly string[];
  sameDayCutoff: string;
}

/** YYYY-MM-DD of the earliest start N business days after the request day, with an explicit holiday list. */
export function nextStartDate({ now, timeZone, leadBusinessDays, holidays, sameDayCutoff }: StartDateInput): string {
  for (const h of holidays) parseIsoDate(h, 'holiday');
  return switchDate({ now, timeZone, leadBusinessDays, sameDayCutoff, kind: 'OFF_CYCLE', calendar: businessCalendar([], holidays) }).date;
}
