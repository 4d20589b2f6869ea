// Default service supply prices by month where a commission sets them monthly (New York's
// utilities: the market supply charge changes every month), the trailing 12-month averages
// Maryland (SB 1, 2024) and New York (PSC Case 15-M-0127) cap retail prices at, and Maryland's
// PSC-approved green power price (Public Utilities Article §7-707).
//
// Figures are estimates: each New York utility's published November 2026 price shaped by a typical
// monthly pattern (higher in winter and in July-August), its small commercial (non-demand) price
// estimated a little below the residential one, and Maryland's average weighted from the 2026-27
// summer (4 months) and non-summer (8 months) standard offer prices until the 2025-26 ones are
// entered. The green power price is the PSC's generic one: the trailing standard offer average
// plus a green power adder (Order No. 91464, Case No. 9757), the adder here an estimate. Replace
// them with the published figures.
import type { PtcPeriod } from './tariffs.js';

/** A typical month's supply price relative to the year, January first. */
const NY_MONTH_SHAPE = [1.12, 1.08, 0.97, 0.9, 0.88, 0.95, 1.1, 1.12, 0.98, 0.92, 0.95, 1.05];

/** November 2026 residential supply price, USD/kWh. */
const NY_NOVEMBER_2026: Record<string, number> = {
  CONED: 0.118, NATIONAL_GRID_NY: 0.0912, NYSEG: 0.0877, RG_E: 0.0853, CENTRAL_HUDSON: 0.0948, ORANGE_ROCKLAND: 0.102,
};

/** November 2026 small commercial (non-demand) supply price, USD/kWh (estimates). */
const NY_COMMERCIAL_NOVEMBER_2026: Record<string, number> = {
  CONED: 0.1125, NATIONAL_GRID_NY: 0.0884, NYSEG: 0.0851, RG_E: 0.0829, CENTRAL_HUDSON: 0.0921, ORANGE_ROCKLAND: 0.0987,
};

/** Maryland's green power adder on the trailing standard offer average, micro-USD/kWh (an estimate). */
const MD_GREEN_ADDER_MICRO = 12_000;

const MILLION = 1_000_000;
const iso = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);

/** The utility's price for (year, month), micro-USD/kWh: the November price moved by the month's shape. */
function nyMonthMicro(utilityId: string, year: number, month: number, table = NY_NOVEMBER_2026): number {
  if (year === 2026 && month === 11) return Math.round(table[utilityId]! * MILLION);
  const november = table[utilityId]! * MILLION / NY_MONTH_SHAPE[10]!;
  return Math.round(november * NY_MONTH_SHAPE[month - 1]! / 100) * 100;
}

/** Months from (year, month) on, `count` of them. */
function months(year: number, month: number, count: number): [number, number][] {
  return Array.from({ length: count }, (_, i) => {
    const m = month - 1 + i;
    return [year + Math.floor(m / 12), (m % 12) + 1];
  });
}

/** New York: one supply price period per month, November 2026 to April 2027. */
export function nyMonthlyPrices(utilityId: string): PtcPeriod[] | undefined {
  if (!(utilityId in NY_NOVEMBER_2026)) return undefined;
  return months(2026, 11, 6).map(([y, m]) => ({
    usdPerKwh: nyMonthMicro(utilityId, y, m) / MILLION,
    effective: iso(y, m, 1),
    expires: iso(y, m + 1, 0),
  }));
}

export interface TrailingPrice { usdPerKwh: number; from: string; to: string }

const TRAILING_FROM = '2025-11-01';
const TRAILING_TO = '2026-10-31';

/** New York: the average of the 12 monthly prices November 2025 to October 2026. */
function nyTrailing(utilityId: string, table = NY_NOVEMBER_2026): TrailingPrice | null {
  if (!(utilityId in table)) return null;
  const sum = months(2025, 11, 12).reduce((s, [y, m]) => s + nyMonthMicro(utilityId, y, m, table), 0);
  return { usdPerKwh: Math.round(sum / 12) / MILLION, from: TRAILING_FROM, to: TRAILING_TO };
}

/** Maryland: the standard offer service price over 12 months, 4 summer and 8 non-summer months. */
function mdTrailing(periods: PtcPeriod[] | undefined): TrailingPrice | null {
  const summer = periods?.find((p) => p.season === 'SUMMER' && !p.customerClass);
  const nonSummer = periods?.find((p) => p.season === 'NON_SUMMER' && !p.customerClass);
  if (!summer || !nonSummer) return null;
  const micro = Math.round((4 * Math.round(summer.usdPerKwh * MILLION) + 8 * Math.round(nonSummer.usdPerKwh * MILLION)) / 12);
  return { usdPerKwh: micro / MILLION, from: TRAILING_FROM, to: TRAILING_TO };
}

/** The trailing 12-month residential default service price of a Maryland or New York utility; null elsewhere. */
export function trailingSupplyPrice(utilityId: string, state: string, periods: PtcPeriod[] | undefined): TrailingPrice | null {
  if (state === 'NY') return nyTrailing(utilityId);
  if (state === 'MD') return mdTrailing(periods);
  return null;
}

/** New York: the trailing 12-month small commercial (non-demand) supply price; null elsewhere. */
export function commercialTrailingSupplyPrice(utilityId: string, state: string): TrailingPrice | null {
  return state === 'NY' ? nyTrailing(utilityId, NY_COMMERCIAL_NOVEMBER_2026) : null;
}

/** Maryland: the PSC-approved green power price of the utility's territory, micro-USD/kWh; null elsewhere. */
export function greenPowerPriceMicro(state: string, trailing: TrailingPrice | null): number | null {
  return state === 'MD' && trailing ? Math.round(trailing.usdPerKwh * MILLION) + MD_GREEN_ADDER_MICRO : null;
}
