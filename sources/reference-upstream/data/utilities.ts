// Incumbent electric utilities (distribution companies) the reference upstream knows about.
// Delivery charges are the utility's own monthly customer charge and per-kWh distribution rate:
// the public TDU tariffs for ERCOT, plausible round figures elsewhere.

import { holidayCalendar, type HolidayRules } from './holidays.js';

export type Market = 'DEREGULATED' | 'REGULATED';
export type Ownership = 'IOU' | 'MUNICIPAL' | 'COOP';

export interface Utility {
  utilityId: string;
  name: string;
  state: string;
  timeZone: string;
  market: Market;
  ownership: Ownership;
  delivery: { fixedMonthlyUsd: number; perKwhUsd: number; effective: string };
  switching: { leadBusinessDays: number; meterReadCycleDays: number; sameDayCutoff: string };
  holidays: string[];
}

interface StateRules {
  timeZone: string;
  /** Retail choice state: IOUs there are DEREGULATED; municipal and co-op utilities never are here. */
  choice: boolean;
  switching: Utility['switching'];
  holidays: HolidayRules;
}

// Lead times follow each state's switching rules: ERCOT's 2-business-day standard switch,
// PA's accelerated switching, and next-meter-read style processes elsewhere. In states
// without choice the rules only describe move-in service starts.
const STATES: Record<string, StateRules> = {
  TX: { timeZone: 'America/Chicago', choice: true, switching: { leadBusinessDays: 2, meterReadCycleDays: 30, sameDayCutoff: '17:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING', 'CHRISTMAS_EVE'], skip: ['COLUMBUS_DAY', 'VETERANS_DAY'] } },
  PA: { timeZone: 'America/New_York', choice: true, switching: { leadBusinessDays: 5, meterReadCycleDays: 30, sameDayCutoff: '16:00' }, holidays: { extras: ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING'] } },
  OH: { timeZone: 'America/New_York', choice: true, switching: { leadBusinessDays: 12, meterReadCycleDays: 30, sameDayCutoff: '17:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING'], skip: ['COLUMBUS_DAY'] } },
  IL: { timeZone: 'America/Chicago', choice: true, switching: { leadBusinessDays: 10, meterReadCycleDays: 30, sameDayCutoff: '17:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING'], skip: ['COLUMBUS_DAY'] } },
  NY: { timeZone: 'America/New_York', choice: true, switching: { leadBusinessDays: 15, meterReadCycleDays: 31, sameDayCutoff: '16:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
  NJ: { timeZone: 'America/New_York', choice: true, switching: { leadBusinessDays: 15, meterReadCycleDays: 30, sameDayCutoff: '16:00' }, holidays: { extras: ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING'] } },
  MD: { timeZone: 'America/New_York', choice: true, switching: { leadBusinessDays: 12, meterReadCycleDays: 30, sameDayCutoff: '17:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
  MA: { timeZone: 'America/New_York', choice: true, switching: { leadBusinessDays: 8, meterReadCycleDays: 30, sameDayCutoff: '16:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING'], skip: ['COLUMBUS_DAY'] } },
  CT: { timeZone: 'America/New_York', choice: true, switching: { leadBusinessDays: 6, meterReadCycleDays: 30, sameDayCutoff: '16:00' }, holidays: { extras: ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING'] } },
  DC: { timeZone: 'America/New_York', choice: true, switching: { leadBusinessDays: 10, meterReadCycleDays: 30, sameDayCutoff: '17:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
  CA: { timeZone: 'America/Los_Angeles', choice: false, switching: { leadBusinessDays: 1, meterReadCycleDays: 30, sameDayCutoff: '17:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
  FL: { timeZone: 'America/New_York', choice: false, switching: { leadBusinessDays: 1, meterReadCycleDays: 30, sameDayCutoff: '17:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
  GA: { timeZone: 'America/New_York', choice: false, switching: { leadBusinessDays: 1, meterReadCycleDays: 30, sameDayCutoff: '17:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING', 'CHRISTMAS_EVE'] } },
  WA: { timeZone: 'America/Los_Angeles', choice: false, switching: { leadBusinessDays: 1, meterReadCycleDays: 60, sameDayCutoff: '17:00' }, holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
};

// [utilityId, name, state, ownership, fixedMonthlyUsd, perKwhUsd, effective, timeZone override?]
type Row = [string, string, string, Ownership, number, number, string, string?];

const ROWS: Row[] = [
  // Texas (ERCOT) TDUs: PUCT-approved delivery charges
  ['ONCOR', 'Oncor Electric Delivery', 'TX', 'IOU', 4.23, 0.051893, '2024-11-01'],
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
  // Regulated states: bundled tariffs, no retail plans
  ['PGE', 'Pacific Gas and Electric Company', 'CA', 'IOU', 0, 0.3346, '2025-01-01'],
  ['SCE', 'Southern California Edison', 'CA', 'IOU', 0, 0.2981, '2025-01-01'],
  ['SDGE', 'San Diego Gas & Electric', 'CA', 'IOU', 0, 0.3721, '2025-01-01'],
  ['LADWP', 'Los Angeles Department of Water and Power', 'CA', 'MUNICIPAL', 0, 0.2187, '2024-07-01'],
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

function build([utilityId, name, state, ownership, fixedMonthlyUsd, perKwhUsd, effective, tz]: Row): Utility {
  const rules = STATES[state];
  if (!rules) throw new Error(`no state rules for ${state}`);
  const market: Market = rules.choice && ownership === 'IOU' && !OUTSIDE_CHOICE.has(utilityId) ? 'DEREGULATED' : 'REGULATED';
  return {
    utilityId, name, state,
    timeZone: tz ?? rules.timeZone,
    market, ownership,
    delivery: { fixedMonthlyUsd, perKwhUsd, effective },
    switching: { ...rules.switching },
    holidays: holidayCalendar(rules.holidays),
  };
}

export const UTILITIES: ReadonlyMap<string, Utility> = new Map(ROWS.map((r) => [r[0], build(r)]));

export function utilityById(id: string): Utility | undefined {
  return UTILITIES.get(id);
}

export const DEREGULATED_UTILITIES: readonly Utility[] = [...UTILITIES.values()].filter((u) => u.market === 'DEREGULATED');
