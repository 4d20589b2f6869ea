// Incumbent electric utilities (distribution companies) the reference upstream knows about.
// Deregulated utilities carry delivery charges per customer class: the utility's monthly customer
// charge and per-kWh distribution rate, with their history by tariff period (deliveryHistory; see
// tariffs.ts for where the figures come from and as of when; commercial figures for small business
// secondary service). Regulated utilities (municipal, co-op, states without choice) carry their
// bundled residential rate instead. Outside Texas, choice-market utilities publish a Price to
// Compare (default service supply price) by period, season and class (tariffs.ts).
//
// Figures: as of 2026-11 (DATA_AS_OF). Utilities of the ROWS table: residential customer charge and
// the per-kWh total of the energy-based delivery charges (or bundled rate) of each utility's
// published residential tariff, rounded; see tariffs.ts for the delivery and Price to Compare
// periods and bundled-rates.ts for municipal and co-op utilities.

import { ERCOT, utilityCalendar, type HolidayName, type MarketCalendar } from './holidays.js';
import { DATA_AS_OF, DELIVERY_ESTIMATED_FROM, DELIVERY_HISTORY, PRICE_TO_COMPARE_PERIODS, type PtcPeriod } from './tariffs.js';
import { commercialTrailingSupplyPrice, nyMonthlyPrices, trailingSupplyPrice, type TrailingPrice } from './supply-prices.js';

export type Market = 'DEREGULATED' | 'REGULATED';
export type Ownership = 'IOU' | 'MUNICIPAL' | 'COOP';
export type SwitchingKind = 'OFF_CYCLE' | 'ACCELERATED' | 'METER_READ';

export interface Charges { fixedMonthlyUsd: number; perKwhUsd: number }
export interface DeliveryPeriod { effective: string; residential: Charges; commercial: Charges; status?: 'ESTIMATED' }

export interface Utility {
  utilityId: string;
  name: string;
  state: string;
  timeZone: string;
  market: Market;
  ownership: Ownership;
  /** Deregulated utilities: delivery (TDU) charges per customer class in effect on DATA_AS_OF. */
  delivery: DeliveryPeriod | null;
  /** Deregulated utilities: every tariff period's delivery charges, oldest first (current and approved future ones included). */
  deliveryHistory: DeliveryPeriod[] | null;
  /** Regulated utilities: the bundled (supply + delivery) residential rate. */
  bundledRate: (Charges & { effective: string }) | null;
  /** Choice markets outside Texas: the residential default service supply price in effect on DATA_AS_OF. */
  priceToCompare: { usdPerKwh: number; effective: string; expires: string } | null;
  /** Choice markets outside Texas: the Price to Compare periods in effect on DATA_AS_OF and the next ones. */
  pricesToCompare: PtcPeriod[] | null;
  /** Maryland and New York: the residential default service price averaged over the trailing 12 months. */
  trailingSupplyPrice: TrailingPrice | null;
  /** New York: the same average for small commercial (non-demand) customers. */
  commercialTrailingSupplyPrice: TrailingPrice | null;
  /** Michigan: the share of the utility's load retail choice is capped at (MCL 460.10a(1)); absent elsewhere. */
  choiceCapPercent: number | null;
  switching: {
    kind: SwitchingKind;
    leadBusinessDays: number;
    meterReadCycleDays: number;
    /** METER_READ: a scheduled read date; reads repeat every meterReadCycleDays. */
    meterReadAnchorDate: string | null;
    /** METER_READ: the utility's billing cycles ("01".."20"), each with a scheduled read in January 2026. */
    meterReadCycles: { cycle: string; anchorDate: string }[] | null;
    sameDayCutoff: string;
    /** Calendar days after the request day in which the customer may rescind (Illinois: 10). */
    rescissionDays: number | null;
  };
  calendar: MarketCalendar;
  /** Extra one-off closure dates (YYYY-MM-DD) on top of the calendar's rules. */
  holidays: string[];
}

interface StateRules {
  timeZone: string;
  /** Retail choice state: IOUs there are DEREGULATED; municipal and co-op utilities only when listed in INSIDE_CHOICE. */
  choice: boolean;
  /** kind, lead business days (METER_READ: enrollment lead time before the read), cut-off, read cycle days */
  switching: [SwitchingKind, number, string, number];
  /** Texas utilities switch on ERCOT's calendar; elsewhere the federal calendar with these changes. */
  holidays: { extras: HolidayName[]; skip?: HolidayName[] } | 'ERCOT';
  /** Price to Compare period [effective, expires] of the state's default service (utilities without periods in tariffs.ts). */
  ptcPeriod?: [string, string];
  /** Calendar days the customer may rescind an enrollment in before it takes effect. */
  rescissionDays?: number;
}

// Texas: off-cycle switch on a requested date, at the earliest 2 business days out (ERCOT).
// Pennsylvania: accelerated switching, 3 business days (52 Pa. Code 57.174). The meter-read states
// switch on the customer's next scheduled meter read that is at least the enrollment lead time away.
// Illinois: the customer may rescind an enrollment within 10 calendar days of the utility's
// confirmation (83 Ill. Adm. Code 412.150 and the utilities' supplier tariffs); the switch comes after.
// Ohio: 7 calendar days after the utility's confirmation notice (Ohio Adm. Code 4901:1-21-06).
// Michigan: retail open access capped at 10% of each utility's load (MCL 460.10a(1), 2008 PA 286).
// In states without choice the rules only describe move-in service starts.
const STATES: Record<string, StateRules> = {
  TX: { timeZone: 'America/Chicago', choice: true, switching: ['OFF_CYCLE', 2, '17:00', 30], holidays: 'ERCOT' },
  PA: { timeZone: 'America/New_York', choice: true, switching: ['ACCELERATED', 3, '16:00', 30], holidays: { extras: ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  OH: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 7, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'], skip: ['COLUMBUS_DAY'] }, ptcPeriod: ['2026-06-01', '2027-05-31'], rescissionDays: 7 },
  IL: { timeZone: 'America/Chicago', choice: true, switching: ['METER_READ', 5, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'], skip: ['COLUMBUS_DAY'] }, ptcPeriod: ['2026-06-01', '2027-05-31'], rescissionDays: 10 },
  NY: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 10, '16:00', 31], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-11-01', '2027-04-30'] },
  NJ: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 10, '16:00', 30], holidays: { extras: ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  MD: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 10, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  MA: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 5, '16:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'], skip: ['COLUMBUS_DAY'] }, ptcPeriod: ['2026-07-01', '2026-12-31'] },
  CT: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 5, '16:00', 30], holidays: { extras: ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-07-01', '2026-12-31'] },
  NH: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 5, '16:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-08-01', '2027-01-31'] },
  DE: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 10, '17:00', 30], holidays: { extras: ['GOOD_FRIDAY', 'DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  // Maine: standard offer service, set each January 1.
  ME: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 5, '16:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-01-01', '2026-12-31'] },
  DC: { timeZone: 'America/New_York', choice: true, switching: ['METER_READ', 10, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] }, ptcPeriod: ['2026-06-01', '2027-05-31'] },
  MI: { timeZone: 'America/Detroit', choice: false, switching: ['OFF_CYCLE', 1, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
  CO: { timeZone: 'America/Denver', choice: false, switching: ['OFF_CYCLE', 1, '17:00', 30], holidays: { extras: ['DAY_AFTER_THANKSGIVING'] } },
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
  ['ONCOR', 'Oncor Electric Delivery', 'TX', 'IOU', 4.23, 0.058362, '2026-09-01'],
  ['CENTERPOINT', 'CenterPoint Energy Houston Electric', 'TX', 'IOU', 4.39, 0.059852, '2026-09-01'],
  ['AEP_TEXAS_CENTRAL', 'AEP Texas Central Company', 'TX', 'IOU', 4.9, 0.060519, '2026-09-01'],
  ['AEP_TEXAS_NORTH', 'AEP Texas North Company', 'TX', 'IOU', 3.24, 0.058735, '2026-09-01'],
  ['TNMP', 'Texas-New Mexico Power Company', 'TX', 'IOU', 7.85, 0.068544, '2026-09-01'],
  // Municipal, but in ERCOT retail choice since March 2024 (PUCT Docket 51100 and following)
  ['LUBBOCK_PL', 'Lubbock Power & Light', 'TX', 'MUNICIPAL', 5.25, 0.050846, '2026-10-01'],
  // Texas utilities outside retail choice: bundled residential rates, energy charge plus the fuel or
  // power-supply adjustment and regulatory charges per kWh, so that the all-in rate at 1,000 kWh is
  // what a customer pays (Austin Energy ~12.6 cents: customer charge plus tiered energy, PSA and
  // regulatory charges, FY2026 tariff from 2025-11-01; CPS Energy ~11.1 cents: 2024 rate increase,
  // fuel adjustment 2025; Pedernales EC ~12.8 cents: service availability, delivery and power cost
  // 2025; CoServ ~11.5 cents; El Paso Electric Texas ~13.8 cents with fuel, 2025 rate case).
  ['AUSTIN_ENERGY', 'Austin Energy', 'TX', 'MUNICIPAL', 15, 0.111, '2025-11-01'],
  ['CPS_ENERGY', 'CPS Energy', 'TX', 'MUNICIPAL', 10.5, 0.1005, '2025-02-01'],
  ['PEDERNALES_EC', 'Pedernales Electric Cooperative', 'TX', 'COOP', 32.5, 0.0955, '2025-01-01'],
  ['COSERV', 'CoServ Electric', 'TX', 'COOP', 24.95, 0.0905, '2025-04-01'],
  ['EL_PASO_ELECTRIC', 'El Paso Electric Company', 'TX', 'IOU', 9.5, 0.1288, '2025-07-01', 'America/Denver'],
  // Pennsylvania
  ['PECO', 'PECO Energy Company', 'PA', 'IOU', 13.26, 0.08375, '2026-01-01'],
  ['PPL', 'PPL Electric Utilities', 'PA', 'IOU', 19.78, 0.08973, '2026-01-01'],
  ['DUQUESNE', 'Duquesne Light Company', 'PA', 'IOU', 13.5, 0.07251, '2026-01-01'],
  ['MET_ED', 'Met-Ed (FirstEnergy Pennsylvania)', 'PA', 'IOU', 11.96, 0.06602, '2026-01-01'],
  ['WEST_PENN', 'West Penn Power (FirstEnergy Pennsylvania)', 'PA', 'IOU', 11.96, 0.05618, '2026-01-01'],
  ['PENN_POWER', 'Penn Power (FirstEnergy Pennsylvania)', 'PA', 'IOU', 11.96, 0.05894, '2026-01-01'],
  ['PENELEC', 'Penelec (FirstEnergy Pennsylvania)', 'PA', 'IOU', 11.96, 0.06245, '2026-01-01'],
  // Ohio
  ['AEP_OHIO', 'AEP Ohio', 'OH', 'IOU', 10, 0.05046, '2026-06-01'],
  ['DUKE_ENERGY_OHIO', 'Duke Energy Ohio', 'OH', 'IOU', 8.5, 0.04236, '2026-06-01'],
  ['FIRSTENERGY_OHIO_EDISON', 'Ohio Edison (FirstEnergy)', 'OH', 'IOU', 4, 0.04527, '2026-06-01'],
  ['TOLEDO_EDISON', 'Toledo Edison (FirstEnergy)', 'OH', 'IOU', 4, 0.04802, '2026-06-01'],
  ['CEI', 'The Illuminating Company (FirstEnergy)', 'OH', 'IOU', 4, 0.04869, '2026-06-01'],
  ['AES_OHIO', 'AES Ohio', 'OH', 'IOU', 12.15, 0.04213, '2026-06-01'],
  ['CLEVELAND_PUBLIC_POWER', 'Cleveland Public Power', 'OH', 'MUNICIPAL', 7.5, 0.1285, '2025-01-01'],
  // Illinois
  ['COMED', 'Commonwealth Edison Company', 'IL', 'IOU', 16.52, 0.06618, '2026-01-01'],
  ['AMEREN_ILLINOIS', 'Ameren Illinois', 'IL', 'IOU', 17.12, 0.05396, '2026-01-01'],
  ['CWLP', 'City Water, Light & Power (Springfield)', 'IL', 'MUNICIPAL', 16.5, 0.1127, '2025-03-01'],
  // New York
  ['CONED', 'Consolidated Edison Company of New York', 'NY', 'IOU', 20, 0.14183, '2025-01-01'],
  ['NATIONAL_GRID_NY', 'National Grid (Niagara Mohawk)', 'NY', 'IOU', 17, 0.06932, '2024-07-01'],
  ['NYSEG', 'New York State Electric & Gas', 'NY', 'IOU', 18.34, 0.07718, '2024-10-01'],
  ['RG_E', 'Rochester Gas and Electric', 'NY', 'IOU', 23.45, 0.08266, '2024-10-01'],
  ['CENTRAL_HUDSON', 'Central Hudson Gas & Electric', 'NY', 'IOU', 24, 0.07854, '2024-07-01'],
  ['ORANGE_ROCKLAND', 'Orange and Rockland Utilities', 'NY', 'IOU', 21.5, 0.08935, '2025-01-01'],
  // Plattsburgh Municipal Lighting Department: NYPA hydropower allocation, among the lowest rates in
  // the US (residential tariff: customer charge plus about 5 cents a kWh up to the monthly block).
  ['PLATTSBURGH_MLD', 'Plattsburgh Municipal Lighting Department', 'NY', 'MUNICIPAL', 2.5, 0.0498, '2025-01-01'],
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
  // A cooperative inside Maryland's retail choice (Electric Customer Choice Act of 1999).
  ['SMECO', 'Southern Maryland Electric Cooperative', 'MD', 'COOP', 15, 0.04398, '2026-07-01'],
  // Massachusetts
  ['EVERSOURCE_MA', 'Eversource (NSTAR Electric)', 'MA', 'IOU', 10, 0.10337, '2026-01-01'],
  ['NATIONAL_GRID_MA', 'National Grid (Massachusetts Electric)', 'MA', 'IOU', 7, 0.10925, '2026-01-01'],
  ['UNITIL_MA', 'Unitil (Fitchburg Gas and Electric Light)', 'MA', 'IOU', 7.8, 0.11402, '2026-01-01'],
  ['BRAINTREE_ELECTRIC', 'Braintree Electric Light Department', 'MA', 'MUNICIPAL', 6, 0.0921, '2024-07-01'],
  // Connecticut and DC
  ['EVERSOURCE_CT', 'Eversource (Connecticut Light & Power)', 'CT', 'IOU', 9.62, 0.10285, '2025-01-01'],
  ['UI', 'The United Illuminating Company', 'CT', 'IOU', 9.68, 0.11637, '2025-01-01'],
  ['PEPCO_DC', 'Pepco (District of Columbia)', 'DC', 'IOU', 14.96, 0.06891, '2024-10-01'],
  // New Hampshire
  ['EVERSOURCE_NH', 'Eversource (Public Service Company of New Hampshire)', 'NH', 'IOU', 14.74, 0.08391, '2025-08-01'],
  ['UNITIL_NH', 'Unitil (Unitil Energy Systems)', 'NH', 'IOU', 16.22, 0.07712, '2026-05-01'],
  // Delaware and Maine
  ['DELMARVA_DE', 'Delmarva Power (Delaware)', 'DE', 'IOU', 15.18, 0.06152, '2025-01-01'],
  ['CMP', 'Central Maine Power', 'ME', 'IOU', 24.16, 0.10497, '2026-01-01'],
  ['VERSANT', 'Versant Power', 'ME', 'IOU', 19.5, 0.12345, '2026-01-01'],
  // Municipal utilities of towns inside choice-state IOU territories (municipal-towns.ts): no retail
  // choice, bundled residential rates. Approximate all-in figures (customer charge, and energy plus
  // power-cost adjustment per kWh) of each utility's residential tariff, to be replaced with the
  // published sheets.
  ['GARLAND_PL', 'Garland Power & Light', 'TX', 'MUNICIPAL', 12.5, 0.1095, '2025-10-01'],
  ['DENTON_ME', 'Denton Municipal Electric', 'TX', 'MUNICIPAL', 14.25, 0.108, '2025-10-01'],
  ['GEUS', 'GEUS (Greenville Electric Utility System)', 'TX', 'MUNICIPAL', 14, 0.115, '2025-10-01'],
  ['BROWNSVILLE_PUB', 'Brownsville Public Utilities Board', 'TX', 'MUNICIPAL', 9.4, 0.129, '2025-10-01'],
  ['NAPERVILLE_ELECTRIC', 'Naperville Electric Utility', 'IL', 'MUNICIPAL', 12.13, 0.1203, '2025-05-01'],
  ['GENEVA_IL', 'City of Geneva Electric', 'IL', 'MUNICIPAL', 14.5, 0.119, '2025-05-01'],
  ['WELLESLEY_MLP', 'Wellesley Municipal Light Plant', 'MA', 'MUNICIPAL', 8, 0.155, '2025-01-01'],
  ['READING_MLD', 'Reading Municipal Light Department', 'MA', 'MUNICIPAL', 7.2, 0.163, '2025-01-01'],
  ['TAUNTON_MLP', 'Taunton Municipal Lighting Plant', 'MA', 'MUNICIPAL', 7.5, 0.159, '2025-01-01'],
  ['HOLYOKE_GE', 'Holyoke Gas & Electric', 'MA', 'MUNICIPAL', 6, 0.126, '2025-01-01'],
  ['EASTON_UTILITIES', 'Easton Utilities', 'MD', 'MUNICIPAL', 12, 0.134, '2025-01-01'],
  ['NORWICH_PU', 'Norwich Public Utilities', 'CT', 'MUNICIPAL', 12, 0.159, '2025-01-01'],
  ['WALLINGFORD_ELECTRIC', 'Wallingford Electric Division', 'CT', 'MUNICIPAL', 10, 0.149, '2025-01-01'],
  // Regulated states: bundled tariffs, no retail plans
  // PG&E: the income-graduated Base Services Charge (CPUC D.24-05-028), 24.15 USD a month for
  // customers outside CARE and FERA, from 2026-03-01, with the per-kWh rate lowered to match
  // (the lowered rate is an estimate until the tariff sheets are entered).
  ['PGE', 'Pacific Gas and Electric Company', 'CA', 'IOU', 24.15, 0.2866, '2026-03-01'],
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
  // Michigan: capped retail choice (choiceCapPercent), the cap is full: bundled service and no plans.
  ['DTE_ELECTRIC', 'DTE Electric Company', 'MI', 'IOU', 8.5, 0.1898, '2025-02-01'],
  // Colorado: no retail choice.
  ['XCEL_COLORADO', 'Xcel Energy (Public Service Company of Colorado)', 'CO', 'IOU', 7.1, 0.1412, '2025-01-01'],
];

// IOUs in a choice state that still sell bundled service (El Paso Electric is outside ERCOT).
const OUTSIDE_CHOICE = new Set(['EL_PASO_ELECTRIC']);
// Municipal and co-op utilities that opted into their state's retail choice.
const INSIDE_CHOICE = new Set(['LUBBOCK_PL', 'SMECO']);
/** Michigan's cap on retail open access, percent of each utility's load (MCL 460.10a(1)). */
const CHOICE_CAP_PERCENT: Record<string, number> = { DTE_ELECTRIC: 10 };

// Price to Compare, USD/kWh, of the choice-market utilities outside Texas (ERCOT has no default
// service to compare with) whose periods tariffs.ts does not list: one period per state (ptcPeriod).
// New York's utilities price supply monthly (supply-prices.ts).
const PRICE_TO_COMPARE: Record<string, number> = {
  PSEG: 0.1208, JCPL: 0.1192, ACE: 0.1175, ROCKLAND_ELECTRIC: 0.1151,
  EVERSOURCE_CT: 0.1388, UI: 0.135, PEPCO_DC: 0.1164,
  DELMARVA_DE: 0.1196, CMP: 0.1452, VERSANT: 0.1318,
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

const MILLION = 1_000_000;
/** Integer micro-dollars: exact comparison of table figures. */
const micro = (usd: number) => Math.round(usd * MILLION);

function deliveryPeriods(utilityId: string, row: Charges & { effective: string }): DeliveryPeriod[] {
  const rows = DELIVERY_HISTORY[utilityId] ?? [[row.effective, row.fixedMonthlyUsd, row.perKwhUsd]];
  return rows.map(([effective, fixedMonthlyUsd, perKwhUsd]) => {
    const residential = { fixedMonthlyUsd, perKwhUsd };
    return { effective, residential, commercial: commercial(residential), ...(effective >= DELIVERY_ESTIMATED_FROM ? { status: 'ESTIMATED' as const } : {}) };
  });
}

/** The last item whose effective date is on or before `date`. */
function inEffect<T extends { effective: string }>(items: T[], date: string): T | undefined {
  return items.filter((i) => i.effective <= date).at(-1);
}

function pricesToCompare(utilityId: string, state: string, rules: StateRules): PtcPeriod[] | null {
  const periods = PRICE_TO_COMPARE_PERIODS[utilityId] ?? nyMonthlyPrices(utilityId);
  if (periods) return periods.map((p) => ({ ...p }));
  const ptc = PRICE_TO_COMPARE[utilityId];
  if (ptc === undefined || !rules.ptcPeriod) return null;
  return [{ usdPerKwh: ptc, effective: rules.ptcPeriod[0], expires: rules.ptcPeriod[1] }];
}

/** Twenty billing cycles "01".."20", each read on its own business day of January 2026, then every cycle. */
function readCycles(): { cycle: string; anchorDate: string }[] {
  const out: { cycle: string; anchorDate: string }[] = [];
  for (let day = 2; out.length < 20; day++) {
    const d = new Date(Date.UTC(2026, 0, day));
    if (d.getUTCDay() === 0 || d.getUTCDay() === 6 || day === 19) continue; // weekends, MLK Day
    out.push({ cycle: String(out.length + 1).padStart(2, '0'), anchorDate: d.toISOString().slice(0, 10) });
  }
  return out;
}
const READ_CYCLES = readCycles();

/** The period in effect on DATA_AS_OF, which the row states too: the two tables must agree. */
function currentDelivery(utilityId: string, history: DeliveryPeriod[], row: Charges & { effective: string }): DeliveryPeriod | null {
  const current = inEffect(history, DATA_AS_OF) ?? null;
  if (current && (current.effective !== row.effective || micro(current.residential.perKwhUsd) !== micro(row.perKwhUsd) ||
    micro(current.residential.fixedMonthlyUsd) !== micro(row.fixedMonthlyUsd))) {
    throw new Error(`${utilityId}: the row's delivery charges are not the period in effect on ${DATA_AS_OF}`);
  }
  return current;
}

function build([utilityId, name, state, ownership, fixedMonthlyUsd, perKwhUsd, effective, tz]: Row): Utility {
  const rules = STATES[state];
  if (!rules) throw new Error(`no state rules for ${state}`);
  const choice = rules.choice && (ownership === 'IOU' || INSIDE_CHOICE.has(utilityId)) && !OUTSIDE_CHOICE.has(utilityId);
  const market: Market = choice ? 'DEREGULATED' : 'REGULATED';
  const charges = { fixedMonthlyUsd, perKwhUsd };
  const [kind, leadBusinessDays, sameDayCutoff, meterReadCycleDays] = rules.switching;
  const history = market === 'DEREGULATED' ? deliveryPeriods(utilityId, { ...charges, effective }) : null;
  const current = history ? currentDelivery(utilityId, history, { ...charges, effective }) : null;
  const ptcs = market === 'DEREGULATED' && state !== 'TX' ? pricesToCompare(utilityId, state, rules) : null;
  if ((ptcs !== null) !== (market === 'DEREGULATED' && state !== 'TX')) throw new Error(`${utilityId}: Price to Compare wrong or missing`);
  const residentialPtc = ptcs?.filter((p) => !p.customerClass && p.effective <= DATA_AS_OF && DATA_AS_OF <= p.expires).at(-1) ?? null;
  return {
    utilityId, name, state,
    timeZone: tz ?? rules.timeZone,
    market, ownership,
    delivery: current,
    deliveryHistory: history,
    bundledRate: market === 'REGULATED' ? { ...charges, effective } : null,
    priceToCompare: residentialPtc && { usdPerKwh: residentialPtc.usdPerKwh, effective: residentialPtc.effective, expires: residentialPtc.expires },
    pricesToCompare: ptcs,
    trailingSupplyPrice: market === 'DEREGULATED' ? trailingSupplyPrice(utilityId, state, ptcs ?? undefined) : null,
    commercialTrailingSupplyPrice: market === 'DEREGULATED' ? commercialTrailingSupplyPrice(utilityId, state) : null,
    choiceCapPercent: CHOICE_CAP_PERCENT[utilityId] ?? null,
    switching: {
      kind, leadBusinessDays, sameDayCutoff, meterReadCycleDays,
      meterReadAnchorDate: kind === 'METER_READ' ? readAnchor(utilityId) : null,
      meterReadCycles: kind === 'METER_READ' ? READ_CYCLES.map((c) => ({ ...c })) : null,
      rescissionDays: rules.rescissionDays ?? null,
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
