// Holiday calendars 2025-2027: the US federal set (with weekend observance) plus the extra
// days a utility's back office is closed, on which no switch can be processed.

export const CALENDAR_YEARS = [2025, 2026, 2027] as const;

/** Extra closure days some utilities observe on top of the federal calendar. */
export type ExtraHoliday = 'GOOD_FRIDAY' | 'DAY_AFTER_THANKSGIVING' | 'CHRISTMAS_EVE' | 'NEW_YEARS_EVE';
/** Federal days many utilities work through. */
export type SkippedFederal = 'COLUMBUS_DAY' | 'VETERANS_DAY';

export interface HolidayRules {
  extras: ExtraHoliday[];
  skip?: SkippedFederal[];
}

const iso = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);

/** nth (1-based) given weekday of a month; n = -1 is the last one. */
function nthWeekday(y: number, m: number, weekday: number, n: number): Date {
  if (n > 0) {
    const first = new Date(Date.UTC(y, m - 1, 1)).getUTCDay();
    return new Date(Date.UTC(y, m - 1, 1 + ((weekday - first + 7) % 7) + (n - 1) * 7));
  }
  const lastDay = new Date(Date.UTC(y, m, 0));
  return new Date(Date.UTC(y, m - 1, lastDay.getUTCDate() - ((lastDay.getUTCDay() - weekday + 7) % 7)));
}

/** Fixed-date holidays move to Friday when on Saturday and to Monday when on Sunday. */
function observed(y: number, m: number, d: number): Date {
  const date = new Date(Date.UTC(y, m - 1, d));
  const dow = date.getUTCDay();
  if (dow === 6) date.setUTCDate(d - 1);
  if (dow === 0) date.setUTCDate(d + 1);
  return date;
}

/** Anonymous Gregorian computus, for Good Friday. */
function easter(y: number): Date {
  const a = y % 19, b = Math.floor(y / 100), c = y % 100;
  const d = Math.floor(b / 4), e = b % 4, f = Math.floor((b + 8) / 25), g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30, i = Math.floor(c / 4), k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7, m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31), day = ((h + l - 7 * m + 114) % 31) + 1;
  return new Date(Date.UTC(y, month - 1, day));
}

const toIso = (d: Date) => d.toISOString().slice(0, 10);
const plusDays = (d: Date, n: number) => new Date(d.getTime() + n * 86_400_000);

function federal(y: number, skip: SkippedFederal[]): string[] {
  const days = [
    observed(y, 1, 1),
    nthWeekday(y, 1, 1, 3), // Martin Luther King Jr. Day
    nthWeekday(y, 2, 1, 3), // Washington's Birthday
    nthWeekday(y, 5, 1, -1), // Memorial Day
    observed(y, 6, 19),
    observed(y, 7, 4),
    nthWeekday(y, 9, 1, 1), // Labor Day
    ...(skip.includes('COLUMBUS_DAY') ? [] : [nthWeekday(y, 10, 1, 2)]),
    ...(skip.includes('VETERANS_DAY') ? [] : [observed(y, 11, 11)]),
    nthWeekday(y, 11, 4, 4), // Thanksgiving
    observed(y, 12, 25),
  ];
  // New Year's Day of y+1 falling on a Saturday is observed on Dec 31 of y.
  const nextNewYear = observed(y + 1, 1, 1);
  if (nextNewYear.getUTCFullYear() === y) days.push(nextNewYear);
  return days.map(toIso);
}

function extra(y: number, kind: ExtraHoliday): string {
  switch (kind) {
    case 'GOOD_FRIDAY': return toIso(plusDays(easter(y), -2));
    case 'DAY_AFTER_THANKSGIVING': return toIso(plusDays(nthWeekday(y, 11, 4, 4), 1));
    case 'CHRISTMAS_EVE': return iso(y, 12, 24);
    case 'NEW_YEARS_EVE': return iso(y, 12, 31);
  }
}

/** Sorted, de-duplicated business-closure dates (weekend extras are dropped: they close nothing). */
export function holidayCalendar(rules: HolidayRules): string[] {
  const set = new Set<string>();
  for (const y of CALENDAR_YEARS) {
    for (const d of federal(y, rules.skip ?? [])) set.add(d);
    for (const kind of rules.extras) {
      const d = extra(y, kind);
      const dow = new Date(`${d}T00:00:00Z`).getUTCDay();
      if (dow !== 0 && dow !== 6) set.add(d);
    }
  }
  return [...set].sort();
}
