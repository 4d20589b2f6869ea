// Market and utility business-day calendars as holiday rules (date-holidays rule syntax), so they
// hold for any year. The territories feed sends the rules; the gateway evaluates them.

export interface HolidayRule {
  name: string;
  rule: string;
}

/** Saturday holidays are observed on Friday, Sunday ones on Monday (federal practice). */
const OBSERVED = 'if saturday then previous friday if sunday then next monday';

export const RULES = {
  NEW_YEARS_DAY: { name: "New Year's Day", rule: `01-01 ${OBSERVED}` },
  MLK_DAY: { name: 'Martin Luther King Jr. Day', rule: '3rd monday in January' },
  PRESIDENTS_DAY: { name: "Washington's Birthday (Presidents' Day)", rule: '3rd monday in February' },
  GOOD_FRIDAY: { name: 'Good Friday', rule: 'easter -2' },
  MEMORIAL_DAY: { name: 'Memorial Day', rule: 'monday before 06-01' },
  JUNETEENTH: { name: 'Juneteenth', rule: `06-19 ${OBSERVED}` },
  INDEPENDENCE_DAY: { name: 'Independence Day', rule: `07-04 ${OBSERVED}` },
  LABOR_DAY: { name: 'Labor Day', rule: '1st monday in September' },
  COLUMBUS_DAY: { name: 'Columbus Day', rule: '2nd monday in October' },
  VETERANS_DAY: { name: 'Veterans Day', rule: `11-11 ${OBSERVED}` },
  THANKSGIVING: { name: 'Thanksgiving Day', rule: '4th thursday in November' },
  DAY_AFTER_THANKSGIVING: { name: 'Day after Thanksgiving', rule: 'friday after 4th thursday in November' },
  CHRISTMAS_EVE: { name: 'Christmas Eve', rule: '12-24' },
  CHRISTMAS_DAY: { name: 'Christmas Day', rule: `12-25 ${OBSERVED}` },
  // ERCOT closes two weekdays at Christmas every year: Christmas Eve and Christmas Day when both are
  // weekdays; when Dec 25 is a Saturday, Thu 23 and Fri 24; a Sunday, Fri 23 and Mon 26; a Monday,
  // Mon 25 and Tue 26 (Christmas Day itself moves as the federal holiday does).
  ERCOT_CHRISTMAS_EVE: {
    name: 'Christmas Eve (ERCOT)',
    rule: '12-24 if friday then previous thursday if saturday then previous friday if sunday then next tuesday',
  },
} satisfies Record<string, HolidayRule>;

export type HolidayName = keyof typeof RULES;

export interface MarketCalendar {
  name: string;
  holidays: HolidayRule[];
}

const FEDERAL: HolidayName[] = [
  'NEW_YEARS_DAY', 'MLK_DAY', 'PRESIDENTS_DAY', 'MEMORIAL_DAY', 'JUNETEENTH', 'INDEPENDENCE_DAY',
  'LABOR_DAY', 'COLUMBUS_DAY', 'VETERANS_DAY', 'THANKSGIVING', 'CHRISTMAS_DAY',
];

function calendar(name: string, days: HolidayName[]): MarketCalendar {
  return { name, holidays: days.map((d) => ({ ...RULES[d] })) };
}

/** Federal calendar with the days a utility's back office additionally closes or works through. */
export function utilityCalendar(name: string, extras: HolidayName[], skip: HolidayName[] = []): MarketCalendar {
  return calendar(name, [...FEDERAL.filter((d) => !skip.includes(d)), ...extras]);
}

// ERCOT business days (ERCOT Nodal Protocols, "ERCOT Holiday"): switches in Texas are processed
// on ERCOT's calendar, which works through MLK Day, Presidents' Day, Juneteenth, Columbus Day and
// Veterans Day but closes the day after Thanksgiving and two Christmas holidays every year.
export const ERCOT = calendar('ERCOT', [
  'NEW_YEARS_DAY', 'MEMORIAL_DAY', 'INDEPENDENCE_DAY', 'LABOR_DAY', 'THANKSGIVING', 'DAY_AFTER_THANKSGIVING', 'ERCOT_CHRISTMAS_EVE', 'CHRISTMAS_DAY',
]);
