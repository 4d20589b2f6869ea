// Incumbent electric utilities (distribution companies) the reference upstream knows about.
// Deregulated utilities carry delivery charges per customer class: the utility's monthly customer
// charge and per-kWh distribution rate (the public TDU tariffs for ERCOT, plausible round figures
// elsewhere; commercial figures for small business secondary service). Regulated utilities
// (municipal, co-op, states without choice) carry their bundled residential rate instead.
// Outside Texas, choice-market utilities publish a Price to Compare (default service supply price).

import { ERCOT, utilityCalendar, type HolidayName, type MarketCalendar } from './holidays.js';

export type Market = 'DEREGULATED' | 'REGULATED';
export type Ownership = 'IOU' | 'MUNICIPAL' | 'COOP';
export type SwitchingKind = 'OFF_CYCLE' | 'ACCELERATED' | 'METER_READ';

export interface Charges { fixedMonthlyUsd: number; perKwhUsd: number }

export interface Utility {
  utilityId: string;
  name: string;
  state: string;
  timeZone: string;
  market: Market;
  ownership: Ownership;
  /** Deregulated utilities: delivery (TDU) charges per customer class. */
  delivery: { effective: string; residential: Charges; commercial: Charges } | null;
  /** Regulated utilities: the bundled (supply + delivery) residential rate. */
  bundledRate: (Charges & { effective: string }) | null;
  /** Choice markets outside Texas: the default service supply price. */
  priceToCompare: { usdPerKwh: number; effective: string; expires: string } | null;
  switching: {
    kind: SwitchingKind;
    leadBusinessDays: number;
    meterReadCycleDays: number;
    /** METER_READ: a scheduled read date; reads repeat every meterReadCycleDays. */
    meterReadAnchorDate: string | null;
    sameDayCutoff: string;
  };
  calendar: MarketCalendar;
  /** Extra one-off closure dates (YYYY-MM-DD) on top of the calendar's rules. */
  holidays: string[];
}

interface StateRules {
  timeZone: string;
  /** Retail choice state: IOUs there are DEREGULATED; municipal and co-op utilities never are here. */
  choice: boolean;
  /** kind, lead business days (METER_READ: enrollment lead time before the read), cut-off, read cycle days */
  switching: [SwitchingKind, number, string, number];
  /** Texas utilities switch on ERCOT's calendar; elsewhere the federal calendar with these changes. */
  holidays: { extras: HolidayName[]; skip?: HolidayName[] } | 'ERCOT';
  /** Price to Compare period [effective, expires] of the state's default service. */
  ptcPeriod?: [string, string];
}

// Texas: off-cycle switch on a requested date, at the earliest 2 business days out (ERCOT).
// Pennsylvania: accelerated switching, 3 business days (52 Pa. Code 57.174). The meter-read states
// switch on the customer's next scheduled meter read that is at least the enrollment lead time away.
// In states without choice the rules only describe move-in service starts.
const STATES: Record<string, StateRules> = {
  TX: { timeZone: 'America/Chicago', choice: true, switching: ['OFF_CYCLE', 2, '17:00', 30], holidays: 'ERCOT' },
  PA: { timeZone: 'America/New_York', choice: true, switching: ['ACCELERATED', 3, '16:00', 30], holidays: { extras: ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  OH: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 7, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'], skip: ['COLUMBUS_DAY'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  IL: { timeZone: 'America/Chicago', choice: true, switching: ['METER_READ', 5, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'], skip: ['COLUMBUS_DAY'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  NY: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 10, '16:00', 31], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-11-01', '2027-04-30'] },
  NJ: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 10, '16:00', 30], holidays: { extras: ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  MD: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 10, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  MA: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 5, '16:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'], skip: ['COLUMBUS_DAY'] }, ptcPeriod: ['2026-07-01', '2026-12-31'] },
  CT: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 5, '16:00', 30], holidays: { extras: ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-07-01', '2026-12-31'] },
  NH: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 5, '16:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-08-01', '2027-01-31'] },
  DC: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 10, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  CA: { timeZone: 'America/Los_Angeles', choice: false, switching: ['OFF_CYCLE', 1, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
  AZ: { timeZone: 'America/Phoenix', choice: false, switching: ['OFF_CYCLE', 1, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
  FL: { timeZone: 'America/New_York', choice: false, switching: ['OFF_CYCLE', 1, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
  GA: { timeZone: 'America/New_York', choice: false, switching: ['OFF_CYCLE', 1, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING', 'CHRISTMAS_EVE'] } },
  WA: { timeZone: 'America/Los_Angeles', choice: false, switching: ['OFF_CYCLE', 1, '17:00', 60], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
};

// [utilityId, name, state, ownership, fixedMonthlyUsd, perKwhUsd, effective, timeZone override?]
type Row = [string, string, string, Ownership, number, number, string, string?];

const ROWS: Row[] = [
  // Texas (ERCOT) TDUs: PUCT-approved delivery charges
  ['ONCOR', 'Oncor Electric Delivery', 'TX', 'IOU', 4.23, 0.055833, '2025-09-01'],
  ['CENTERPOINT', 'CenterPoint Energy Houston Electric', 'TX', 'IOU', 4.39, 0.054697, '2024-09-01'],
  ['AEP_TEXAS_CENTRAL', 'AEP Texas Central Company', 'TX', 'IOU', 4.9, 0.05592, '2024-09-01'],
  ['AEP_TEXAS_NORTH', 'AEP Texas North Company', 'TX', 'IOU', 3.24, 0.054337, '2024-09-01'],
  ['TNMP', 'Texas-New Mexico Power Company', 'TX', 'IOU', 7.85, 0.063219, '2024-09-01'],
  // Texas utilities outside retail choice
  ['AUSTIN_ENERGY', 'Austin Energy', 'TX', 'MUNICIPAL', 15, 0.0489, '2024-11-01'],
  ['CPS_ENERGY', 'CPS Energy', 'TX', 'MUNICIPAL', 10.5, 0.0448, '2024-02-01'],
  ['PEDERNALES_EC', 'Pedernales Electric Cooperative', 'TX', 'COOP', 32.5, 0.0262, '2024-01-01'],
  ['COSERV', 'CoServ Electric', 'TX', 'COOP', 24.95, 0.0279, '2024-04-01'],
  ['EL_PASO_ELECTRIC', 'El Paso Electric Company', 'TX', 'IOU', 9.5, 0.0512, '2024-07-01', 'America/Denver'],
  // Pennsylvania
  ['PECO', 'PECO Energy Company', 'PA', 'IOU', 11.45, 0.07948, '2024-12-01'],
  ['PPL', 'PPL Electric Utilities', 'PA', 'IOU', 19.07, 0.08531, '2024-12-01'],
  ['DUQUESNE', 'Duquesne Light Company', 'PA', 'IOU', 12.5, 0.06894, '2024-12-01'],
  ['MET_ED', 'Met-Ed (FirstEnergy Pennsylvania)', 'PA', 'IOU', 11.47, 0.06311, '2025-01-01'],
  ['PENELEC', 'Penelec (FirstEnergy Pennsylvania)', 'PA', 'IOU', 11.49, 0.05968, '2025-01-01'],
  // Ohio
  ['AEP_OHIO', 'AEP Ohio', 'OH', 'IOU', 10, 0.04672, '2024-06-01'],
  ['DUKE_ENERGY_OHIO', 'Duke Energy Ohio', 'OH', 'IOU', 8, 0.03914, '2024-06-01'],
  ['FIRSTENERGY_OHIO_EDISON', 'Ohio Edison (FirstEnergy)', 'OH', 'IOU', 4, 0.04215, '2024-06-01'],
  ['TOLEDO_EDISON', 'Toledo Edison (FirstEnergy)', 'OH', 'IOU', 4, 0.04487, '2024-06-01'],
  ['CEI', 'The Illuminating Company (FirstEnergy)', 'OH', 'IOU', 4, 0.04561, '2024-06-01'],
  ['AES_OHIO', 'AES Ohio', 'OH', 'IOU', 12.15, 0.03897, '2024-06-01'],
  ['CLEVELAND_PUBLIC_POWER', 'Cleveland Public Power', 'OH', 'MUNICIPAL', 7.5, 0.0712, '2024-01-01'],
  // Illinois
  ['COMED', 'Commonwealth Edison Company', 'IL', 'IOU', 15.8, 0.06245, '2025-01-01'],
  ['AMEREN_ILLINOIS', 'Ameren Illinois', 'IL', 'IOU', 16.4, 0.05133, '2025-01-01'],
  ['CWLP', 'City Water, Light & Power (Springfield)', 'IL', 'MUNICIPAL', 16.5, 0.1127, '2025-03-01'],
  // New York
  ['CONED', 'Consolidated Edison Company of New York', 'NY', 'IOU', 20, 0.14183, '2025-01-01'],
  ['NATIONAL_GRID_NY', 'National Grid (Niagara Mohawk)', 'NY', 'IOU', 17, 0.06932, '2024-07-01'],
  ['NYSEG', 'New York State Electric & Gas', 'NY', 'IOU', 18.34, 0.07718, '2024-10-01'],
  ['RG_E', 'Rochester Gas and Electric', 'NY', 'IOU', 23.45, 0.08266, '2024-10-01'],
  ['CENTRAL_HUDSON', 'Central Hudson Gas & Electric', 'NY', 'IOU', 24, 0.07854, '2024-07-01'],
  ['ORANGE_ROCKLAND', 'Orange and Rockland Utilities', 'NY', 'IOU', 21.5, 0.08935, '2025-01-01'],
  // New Jersey
  ['PSEG', 'Public Service Electric and Gas', 'NJ', 'IOU', 8.52, 0.06118, '2024-10-01'],
  ['JCPL', 'Jersey Central Power & Light', 'NJ', 'IOU', 3.33, 0.05291, '2024-06-01'],
  ['ACE', 'Atlantic City Electric', 'NJ', 'IOU', 8.11, 0.07354, '2024-06-01'],
  ['ROCKLAND_ELECTRIC', 'Rockland Electric Company', 'NJ', 'IOU', 7.1, 0.05847, '2024-06-01'],
  // Maryland
  ['BGE', 'Baltimore Gas and Electric', 'MD', 'IOU', 17.8, 0.05512, '2025-01-01'],
  ['PEPCO_MD', 'Pepco (Maryland)', 'MD', 'IOU', 14.98, 0.06215, '2024-06-01'],
  ['DELMARVA_MD', 'Delmarva Power (Maryland)', 'MD', 'IOU', 13.02, 0.05893, '2024-06-01'],
  ['POTOMAC_EDISON', 'Potomac Edison (FirstEnergy)', 'MD', 'IOU', 7.9, 0.04736, '2024-06-01'],
  ['SMECO', 'Southern Maryland Electric Cooperative', 'MD', 'COOP', 14.7, 0.1228, '2024-07-01'],
  // Massachusetts
  ['EVERSOURCE_MA', 'Eversource (NSTAR Electric)', 'MA', 'IOU', 10, 0.09862, '2025-01-01'],
  ['NATIONAL_GRID_MA', 'National Grid (Massachusetts Electric)', 'MA', 'IOU', 7, 0.10413, '2025-01-01'],
  ['UNITIL_MA', 'Unitil (Fitchburg Gas and Electric Light)', 'MA', 'IOU', 7.8, 0.10954, '2025-01-01'],
  ['BRAINTREE_ELECTRIC', 'Braintree Electric Light Department', 'MA', 'MUNICIPAL', 6, 0.0921, '2024-07-01'],
  // Connecticut and DC
  ['EVERSOURCE_CT', 'Eversource (Connecticut Light & Power)', 'CT', 'IOU', 9.62, 0.10285, '2025-01-01'],
  ['UI', 'The United Illuminating Company', 'CT', 'IOU', 9.68, 0.11637, '2025-01-01'],
  ['PEPCO_DC', 'Pepco (District of Columbia)', 'DC', 'IOU', 14.96, 0.06891, '2024-10-01'],
  // New Hampshire
  ['EVERSOURCE_NH', 'Eversource (Public Service Company of New Hampshire)', 'NH', 'IOU', 14.74, 0.08391, '2025-08-01'],
  // Regulated states: bundled tariffs, no retail plans
  ['PGE', 'Pacific Gas and Electric Company', 'CA', 'IOU', 0, 0.3346, '2025-01-01'],
  ['SCE', 'Southern California Edison', 'CA', 'IOU', 0, 0.2981, '2025-01-01'],
  ['SDGE', 'San Diego Gas & Electric', 'CA', 'IOU', 0, 0.3721, '2025-01-01'],
  ['LADWP', 'Los Angeles Department of Water and Power', 'CA', 'MUNICIPAL', 0, 0.2187, '2024-07-01'],
  ['APS', 'Arizona Public Service', 'AZ', 'IOU', 13.19, 0.1402, '2025-03-01'],
  ['FPL', 'Florida Power & Light', 'FL', 'IOU', 9.61, 0.10187, '2025-01-01'],
  ['DUKE_ENERGY_FLORIDA', 'Duke Energy Florida', 'FL', 'IOU', 14.9, 0.13215, '2025-01-01'],
  ['TECO', 'Tampa Electric Company', 'FL', 'IOU', 17.25, 0.11652, '2025-01-01'],
  ['JEA', 'JEA', 'FL', 'MUNICIPAL', 15.5, 0.10542, '2024-10-01'],
  ['GEORGIA_POWER', 'Georgia Power', 'GA', 'IOU', 17.95, 0.10731, '2025-01-01'],
  ['JACKSON_EMC', 'Jackson EMC', 'GA', 'COOP', 32, 0.11065, '2024-04-01'],
  ['SEATTLE_CITY_LIGHT', 'Seattle City Light', 'WA', 'MUNICIPAL', 6.69, 0.1265, '2025-01-01'],
  ['PUGET_SOUND_ENERGY', 'Puget Sound Energy', 'WA', 'IOU', 7.49, 0.12498, '2025-01-01'],
];

// IOUs in a choice state that still sell bundled service (El Paso Electric is outside ERCOT).
const OUTSIDE_CHOICE = new Set(['EL_PASO_ELECTRIC']);

// Price to Compare, USD/kWh: the default service supply price of each choice-market utility
// outside Texas (ERCOT has no default service to compare with).
const PRICE_TO_COMPARE: Record<string, number> = {
  PECO: 0.0985, PPL: 0.1249, DUQUESNE: 0.1132, MET_ED: 0.1108, PENELEC: 0.1092,
  AEP_OHIO: 0.1004, DUKE_ENERGY_OHIO: 0.0985, FIRSTENERGY_OHIO_EDISON: 0.0978, TOLEDO_EDISON: 0.0978, CEI: 0.0978, AES_OHIO: 0.1051,
  COMED: 0.0936, AMEREN_ILLINOIS: 0.0987,
  CONED: 0.118, NATIONAL_GRID_NY: 0.0912, NYSEG: 0.0877, RG_E: 0.0853, CENTRAL_HUDSON: 0.0948, ORANGE_ROCKLAND: 0.102,
  PSEG: 0.1208, JCPL: 0.1192, ACE: 0.1175, ROCKLAND_ELECTRIC: 0.1151,
  BGE: 0.1139, PEPCO_MD: 0.1198, DELMARVA_MD: 0.1173, POTOMAC_EDISON: 0.1061,
  EVERSOURCE_MA: 0.153, NATIONAL_GRID_MA: 0.1493, UNITIL_MA: 0.1577,
  EVERSOURCE_CT: 0.1388, UI: 0.135, PEPCO_DC: 0.1164, EVERSOURCE_NH: 0.1255,
};

// Small business (secondary service) delivery: a higher customer charge and a lower energy-based
// rate than residential; demand charges of larger customers are out of scope.
const commercial = ({ fixedMonthlyUsd, perKwhUsd }: Charges): Charges => ({
  fixedMonthlyUsd: Math.round(fixedMonthlyUsd * 250 + 500) / 100,
  perKwhUsd: Math.round(perKwhUsd * 850_000) / 1_000_000,
});

/** A scheduled read date in January 2026 per utility, so neighbouring utilities read on different days. */
function readAnchor(utilityId: string): string {
  let h = 0;
  for (const c of utilityId) h = (h * 31 + c.charCodeAt(0)) % 9973;
  return `2026-01-${String(2 + (h % 20)).padStart(2, '0')}`;
}

function build([utilityId, name, state, ownership, fixedMonthlyUsd, perKwhUsd, effective, tz]: Row): Utility {
  const rules = STATES[state];
  if (!rules) throw new Error(`no state rules for ${state}`);
  const market: Market = rules.choice && ownership === 'IOU' && !OUTSIDE_CHOICE.has(utilityId) ? 'DEREGULATED' : 'REGULATED';
  const charges = { fixedMonthlyUsd, perKwhUsd };
  const [kind, leadBusinessDays, sameDayCutoff, meterReadCycleDays] = rules.switching;
  const ptc = PRICE_TO_COMPARE[utilityId];
  if ((ptc !== undefined) !== (market === 'DEREGULATED' && state !== 'TX')) throw new Error(`${utilityId}: Price to Compare wrong or missing`);
  return {
    utilityId, name, state,
    timeZone: tz ?? rules.timeZone,
    market, ownership,
    delivery: market === 'DEREGULATED' ? { effective, residential: charges, commercial: commercial(charges) } : null,
    bundledRate: market === 'REGULATED' ? { ...charges, effective } : null,
    priceToCompare: ptc !== undefined && rules.ptcPeriod ? { usdPerKwh: ptc, effective: rules.ptcPeriod[0], expires: rules.ptcPeriod[1] } : null,
    switching: {
      kind, leadBusinessDays, sameDayCutoff, meterReadCycleDays,
      meterReadAnchorDate: kind === 'METER_READ' ? readAnchor(utilityId) : null,
    },
    calendar: rules.holidays === 'ERCOT' ? ERCOT : utilityCalendar(`${state} utilities`, rules.holidays.extras, rules.holidays.skip),
    holidays: [],
  };
}

export const UTILITIES: ReadonlyMap<string, Utility> = new Map(ROWS.map((r) => [r[0], build(r)]));

export function utilityById(id: string): Utility | undefined {
  return UTILITIES.get(id);
}

export const DEREGULATED_UTILITIES: readonly Utility[] = [...UTILITIES.values()].filter((u) => u.market === 'DEREGULATED');
