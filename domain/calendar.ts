// Business-day calendars built from holiday rules, valid for any year. The rules are date-holidays'
// rule syntax (the territories feed carries them per utility or market calendar), evaluated by
// that library; a whitelist grammar keeps a feed from sending anything else.
//
// Accepted rule forms (one holiday each):
//   MM-DD [observed]                          fixed date, e.g. "12-25"
//   <1st..5th> <weekday> in <Month>           e.g. "3rd monday in January"
//   <weekday> before MM-DD                    e.g. "monday before 06-01" (last Monday of May)
//   <weekday> after <nth> <weekday> in <Month> e.g. "friday after 4th thursday in November"
//   easter [+-]N                              e.g. "easter -2" (Good Friday)
// [observed] is up to three " if <weekday> then previous|next <weekday>" clauses, e.g. " if saturday
// then previous friday if sunday then next monday": the holiday moves to the named day (ERCOT's
// second Christmas holiday moves off a Friday too, so that it never falls on Christmas's observed day).
import Holidays from 'date-holidays';

export class CalendarRuleError extends Error {
  override readonly name = 'CalendarRuleError';
}

export interface HolidayRule {
  name: string;
  rule: string;
}

const WEEKDAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
const NTH = '(?:1st|2nd|3rd|4th|5th)';
const MMDD = '(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])';
const SUBSTITUTE = `(?: if ${WEEKDAY} then (?:previous|next) ${WEEKDAY}){0,3}`;
const RULE = new RegExp(
  `^(?:${MMDD}${SUBSTITUTE}|${NTH} ${WEEKDAY} in ${MONTH}|${WEEKDAY} before ${MMDD}|${WEEKDAY} after ${NTH} ${WEEKDAY} in ${MONTH}|easter ` +
    `[+-]?(?:[0-9]|[1-9][0-9]))$`,
);
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const MAX_RULES = 40;
const MIN_YEAR = 1970;
const MAX_YEAR = 2200;

/** Throws CalendarRuleError unless `rule` is one of the accepted forms with a real month/day. */
export function checkRule(rule: unknown): string {
  if (typeof rule !== 'string' || rule.length > 120 || !RULE.test(rule)) {
    throw new CalendarRuleError(
      `holiday rule ${JSON.stringify(typeof rule === 'string' ? rule.slice(0, 60) : rule)} is not an accepted rule form`,
    );
  }
  for (const m of rule.matchAll(/\b(0[1-9]|1[0-2])-([0-3][0-9])\b/g)) {
    if (Number(m[2]) > DAYS_IN_MONTH[Number(m[1]) - 1]!)
      throw new CalendarRuleError(`holiday rule ${JSON.stringify(rule)} names a day that does not exist`);
  }
  return rule;
}

/** Local dates on which nothing is processed: weekends, rule holidays and explicit closure dates. */
export interface BusinessCalendar {
  isBusinessDay(utcMidnight: Date): boolean;
  /** Rule holidays of a year, YYYY-MM-DD ascending (explicit closures not included). */
  holidaysOf(year: number): string[];
}

const iso = (d: Date): string => d.toISOString().slice(0, 10);

class RuleCalendar implements BusinessCalendar {
  private readonly engine = new Holidays();
  private readonly years = new Map<number, Set<string>>();

  constructor(rules: readonly HolidayRule[]) {
    if (rules.length > MAX_RULES) throw new CalendarRuleError(`at most ${MAX_RULES} holiday rules, got ${rules.length}`);
    for (const { name, rule } of rules) {
      checkRule(rule);
      // Two names for one rule would overwrite each other; the rule is what counts.
      if (!this.engine.setHoliday(rule, { name: { en: name }, type: 'public' })) {
        throw new CalendarRuleError(`holiday rule ${JSON.stringify(rule)} could not be read`);
      }
    }
  }

  private closed(year: number): Set<string> {
    let set = this.years.get(year);
    if (!set) {
      set = new Set();
      // An observed day can fall into the neighbouring year (New Year's Day on a Saturday -> Dec 31).
      for (const y of [year - 1, year, year + 1]) {
        for (const h of this.engine.getHolidays(y)) {
          const day = h.date.slice(0, 10);
          if (day.startsWith(String(year))) set.add(day);
        }
      }
      this.years.set(year, set);
    }
    return set;
  }

  holidaysOf(year: number): string[] {
    if (!Number.isInteger(year) || year < MIN_YEAR || year > MAX_YEAR) throw new RangeError(`year must be ${MIN_YEAR}..${MAX_YEAR}`);
    return [...this.closed(year)].sort();
  }

  isBusinessDay(d: Date): boolean {
    const wd = d.getUTCDay();
    return wd !== 0 && wd !== 6 && !this.closed(d.getUTCFullYear()).has(iso(d));
  }
}

class WithClosures implements BusinessCalendar {
  constructor(
    private readonly base: BusinessCalendar,
    private readonly closures: ReadonlySet<string>,
  ) {}
  holidaysOf(year: number): string[] {
    return this.base.holidaysOf(year);
  }
  isBusinessDay(d: Date): boolean {
    return this.base.isBusinessDay(d) && !this.closures.has(iso(d));
  }
}

// Calendars are few (one per market or utility) and cost a rule parse each: keep the recent ones.
const cache = new Map<string, RuleCalendar>();
const CACHE_MAX = 64;

/** The calendar of a rule set plus explicit closure dates (YYYY-MM-DD). Throws CalendarRuleError on a bad rule. */
export function businessCalendar(rules: readonly HolidayRule[], closures: readonly string[] = []): BusinessCalendar {
  const key = JSON.stringify(rules.map((r) => r.rule));
  let cal = cache.get(key);
  if (!cal) {
    cal = new RuleCalendar(rules);
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(key, cal);
  }
  return closures.length ? new WithClosures(cal, new Set(closures)) : cal;
}
