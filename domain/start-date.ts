// Earliest service start date for a switch, in the territory's local calendar.
// Wall-clock date/time comes from Intl (IANA zone, so DST is handled by the platform); all
// calendar stepping is done on UTC-midnight dates, which have no DST.

export interface StartDateInput {
  now: Date;
  /** IANA zone of the territory, e.g. "America/Chicago". */
  timeZone: string;
  /** Business days of lead time after the request day (0 = today if it still counts). */
  leadBusinessDays: number;
  /** YYYY-MM-DD local dates that are not business days. */
  holidays: readonly string[];
  /** Local "HH:MM" (24 h). At or after it, today no longer counts as the request day. */
  sameDayCutoff: string;
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
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Local calendar date (as a UTC-midnight Date) and minutes since local midnight. */
export function localDateTime(now: Date, timeZone: string): { date: Date; minutes: number } {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(now)) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const { year, month, day, hour, minute } = parts as Record<'year' | 'month' | 'day' | 'hour' | 'minute', number>;
  return { date: new Date(Date.UTC(year, month - 1, day)), minutes: (hour % 24) * 60 + minute };
}

const ISO_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

const iso = (d: Date): string => d.toISOString().slice(0, 10);
const nextDay = (d: Date): Date => new Date(d.getTime() + 86_400_000);

/** YYYY-MM-DD of the earliest start date. Pure: depends only on its input. */
export function nextStartDate({ now, timeZone, leadBusinessDays, holidays, sameDayCutoff }: StartDateInput): string {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new RangeError('now must be a valid Date');
  if (!Number.isSafeInteger(leadBusinessDays) || leadBusinessDays < 0 || leadBusinessDays > 366) {
    throw new RangeError(`leadBusinessDays must be an integer 0..366, got ${leadBusinessDays}`);
  }
  const cut = HHMM.exec(sameDayCutoff);
  if (!cut) throw new RangeError(`sameDayCutoff must be HH:MM, got ${JSON.stringify(sameDayCutoff)}`);
  for (const h of holidays) {
    if (!ISO_DATE.test(h)) throw new RangeError(`holiday must be YYYY-MM-DD, got ${JSON.stringify(h)}`);
  }
  const closed = new Set(holidays);
  const isBusinessDay = (d: Date): boolean => {
    const wd = d.getUTCDay();
    return wd !== 0 && wd !== 6 && !closed.has(iso(d));
  };
  const nextBusinessDay = (d: Date): Date => {
    let n = nextDay(d);
    while (!isBusinessDay(n)) n = nextDay(n); // terminates: holidays are finite
    return n;
  };

  const { date: today, minutes } = localDateTime(now, timeZone);
  const cutoffMinutes = Number(cut[1]) * 60 + Number(cut[2]);
  let day = minutes >= cutoffMinutes || !isBusinessDay(today) ? nextBusinessDay(today) : today;
  for (let i = 0; i < leadBusinessDays; i++) day = nextBusinessDay(day);
  return iso(day);
}
