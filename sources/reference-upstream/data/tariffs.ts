// Tariff periods of the reference upstream: delivery charges by effective date and Price to Compare
// periods by season and customer class. As of DATA_AS_OF.
//
// Sources and how far to trust them:
// - Texas TDUs (Oncor, CenterPoint, AEP Texas Central and North, TNMP): residential customer plus
//   metering charge and the per-kWh sum of the energy-based charges (distribution, transmission cost
//   recovery, energy efficiency and other riders) of the tariff sheets the PUCT approves for each
//   March 1 and September 1 reset. Periods up to 2025-09-01 follow the published sheets; the 2026
//   periods are estimates (the 2025 figures moved by the usual DCRF/TCRF updates), to be replaced by
//   the published sheets. Lubbock Power & Light (ERCOT retail choice since March 2024): its delivery
//   tariff resets each October 1 with the city's fiscal year; figures estimated the same way.
// - Pennsylvania, Ohio, Illinois, Massachusetts, New Hampshire and SMECO: customer charge and per-kWh
//   distribution charges of each utility's residential delivery tariff (PA PUC, PUCO, ICC, MA DPU,
//   NH PUC and MD PSC filings), rounded; 2026 periods are estimates of the same kind.
// - Price to Compare: the default service supply price as each commission publishes it: PA PUC
//   (PECO quarterly; PPL, Duquesne, Met-Ed and Penelec every June 1 and December 1), PUCO (SSO
//   auction results, June to May), ICC / Plug In Illinois (ComEd and Ameren: summer June-September
//   and non-summer October-May, residential and small commercial), MD PSC (standard offer service,
//   June-September and October-May), MA DPU (basic service: National Grid February and August,
//   Eversource January and July, Unitil June and December), NH PUC (default energy service, six
//   months). Periods starting before 2026-06 follow published figures; later ones are estimates.
// Commercial delivery charges derive from the residential ones (utilities.ts: commercial()).

export const DATA_AS_OF = '2026-11-01';

/** Delivery periods taking effect from this day on are estimates (see above), not approved tariff sheets: the feed says so. */
export const DELIVERY_ESTIMATED_FROM = '2026-01-01';

/** [effective YYYY-MM-DD, residential fixed USD/month, residential USD/kWh] per tariff period, oldest first. */
type DeliveryRow = [effective: string, fixedMonthlyUsd: number, perKwhUsd: number];

export const DELIVERY_HISTORY: Record<string, DeliveryRow[]> = {
  // Texas: March 1 and September 1 resets (16 TAC §25.243 DCRF, §25.239 TCOS updates).
  ONCOR: [['2025-03-01', 4.23, 0.051893], ['2025-09-01', 4.23, 0.055833], ['2026-03-01', 4.23, 0.057151], ['2026-09-01', 4.23, 0.058362]],
  CENTERPOINT: [
    ['2024-09-01', 4.39, 0.054697], ['2025-03-01', 4.39, 0.056115], ['2025-09-01', 4.39, 0.057893],
    ['2026-03-01', 4.39, 0.058764], ['2026-09-01', 4.39, 0.059852],
  ],
  AEP_TEXAS_CENTRAL: [
    ['2024-09-01', 4.9, 0.05592], ['2025-03-01', 4.9, 0.056834], ['2025-09-01', 4.9, 0.058401],
    ['2026-03-01', 4.9, 0.059227], ['2026-09-01', 4.9, 0.060519],
  ],
  AEP_TEXAS_NORTH: [
    ['2024-09-01', 3.24, 0.054337], ['2025-03-01', 3.24, 0.055106], ['2025-09-01', 3.24, 0.056618],
    ['2026-03-01', 3.24, 0.057492], ['2026-09-01', 3.24, 0.058735],
  ],
  TNMP: [
    ['2024-09-01', 7.85, 0.063219], ['2025-03-01', 7.85, 0.064172], ['2025-09-01', 7.85, 0.066021],
    ['2026-03-01', 7.85, 0.067318], ['2026-09-01', 7.85, 0.068544],
  ],
  LUBBOCK_PL: [['2024-03-04', 5.25, 0.047135], ['2025-10-01', 5.25, 0.049218], ['2026-10-01', 5.25, 0.050846]],
  // Pennsylvania: January 1 (base rates and riders; PECO and PPL rate cases effective 2026-01-01).
  PECO: [['2024-12-01', 11.45, 0.07948], ['2026-01-01', 13.26, 0.08375]],
  PPL: [['2024-12-01', 19.07, 0.08531], ['2026-01-01', 19.78, 0.08973]],
  DUQUESNE: [['2024-12-01', 12.5, 0.06894], ['2026-01-01', 13.5, 0.07251]],
  MET_ED: [['2025-01-01', 11.47, 0.06311], ['2026-01-01', 11.96, 0.06602]],
  PENELEC: [['2025-01-01', 11.49, 0.05968], ['2026-01-01', 11.96, 0.06245]],
  // Ohio: June 1 rider updates.
  AEP_OHIO: [['2024-06-01', 10, 0.04672], ['2025-06-01', 10, 0.04893], ['2026-06-01', 10, 0.05046]],
  DUKE_ENERGY_OHIO: [['2024-06-01', 8, 0.03914], ['2025-06-01', 8.5, 0.04102], ['2026-06-01', 8.5, 0.04236]],
  FIRSTENERGY_OHIO_EDISON: [['2024-06-01', 4, 0.04215], ['2025-06-01', 4, 0.04381], ['2026-06-01', 4, 0.04527]],
  TOLEDO_EDISON: [['2024-06-01', 4, 0.04487], ['2025-06-01', 4, 0.04655], ['2026-06-01', 4, 0.04802]],
  CEI: [['2024-06-01', 4, 0.04561], ['2025-06-01', 4, 0.04712], ['2026-06-01', 4, 0.04869]],
  AES_OHIO: [['2024-06-01', 12.15, 0.03897], ['2025-06-01', 12.15, 0.04078], ['2026-06-01', 12.15, 0.04213]],
  // Illinois: January 1 (multi-year rate plans under 220 ILCS 5/16-108.18).
  COMED: [['2025-01-01', 15.8, 0.06245], ['2026-01-01', 16.52, 0.06618]],
  AMEREN_ILLINOIS: [['2025-01-01', 16.4, 0.05133], ['2026-01-01', 17.12, 0.05396]],
  // Massachusetts: January 1.
  EVERSOURCE_MA: [['2025-01-01', 10, 0.09862], ['2026-01-01', 10, 0.10337]],
  NATIONAL_GRID_MA: [['2025-01-01', 7, 0.10413], ['2026-01-01', 7, 0.10925]],
  UNITIL_MA: [['2025-01-01', 7.8, 0.10954], ['2026-01-01', 7.8, 0.11402]],
  // New Hampshire (Unitil Energy Systems, Concord): May 1.
  UNITIL_NH: [['2025-05-01', 16.22, 0.07418], ['2026-05-01', 16.22, 0.07712]],
  // Maryland (SMECO distribution): July 1.
  SMECO: [['2025-07-01', 14.7, 0.04215], ['2026-07-01', 15, 0.04398]],
};

export interface PtcPeriod {
  usdPerKwh: number;
  effective: string;
  expires: string;
  /** SUMMER / NON_SUMMER where the price is set by season; absent when it holds for the whole period. */
  season?: string;
  /** Absent: residential. */
  customerClass?: 'RESIDENTIAL' | 'COMMERCIAL';
}

const p = (effective: string, expires: string, usdPerKwh: number, season?: string, customerClass?: 'COMMERCIAL'): PtcPeriod => ({
  usdPerKwh,
  effective,
  expires,
  ...(season ? { season } : {}),
  ...(customerClass ? { customerClass } : {}),
});

/** Summer (June-September) and non-summer (October-May) prices of one June-May year. */
const seasonal = (summer: number, nonSummer: number, customerClass?: 'COMMERCIAL') => [
  p('2026-06-01', '2026-09-30', summer, 'SUMMER', customerClass),
  p('2026-10-01', '2027-05-31', nonSummer, 'NON_SUMMER', customerClass),
];

/** The period in effect on DATA_AS_OF and the next one where it is published. */
export const PRICE_TO_COMPARE_PERIODS: Record<string, PtcPeriod[]> = {
  PECO: [p('2026-09-01', '2026-11-30', 0.10713), p('2026-12-01', '2027-02-28', 0.10896)],
  PPL: [p('2026-06-01', '2026-11-30', 0.1268), p('2026-12-01', '2027-05-31', 0.1241)],
  DUQUESNE: [p('2026-06-01', '2026-11-30', 0.1321), p('2026-12-01', '2027-05-31', 0.1352)],
  MET_ED: [p('2026-06-01', '2026-11-30', 0.1127), p('2026-12-01', '2027-05-31', 0.1163)],
  PENELEC: [p('2026-06-01', '2026-11-30', 0.1102), p('2026-12-01', '2027-05-31', 0.1138)],
  WEST_PENN: [p('2026-06-01', '2026-11-30', 0.1081), p('2026-12-01', '2027-05-31', 0.1115)],
  PENN_POWER: [p('2026-06-01', '2026-11-30', 0.1109), p('2026-12-01', '2027-05-31', 0.1142)],
  // Ohio: standard service offer, June to May; each FirstEnergy company has its own.
  AEP_OHIO: [p('2026-06-01', '2027-05-31', 0.0996)],
  DUKE_ENERGY_OHIO: [p('2026-06-01', '2027-05-31', 0.1051)],
  AES_OHIO: [p('2026-06-01', '2027-05-31', 0.0985)],
  FIRSTENERGY_OHIO_EDISON: [p('2026-06-01', '2027-05-31', 0.0982)],
  TOLEDO_EDISON: [p('2026-06-01', '2027-05-31', 0.0969)],
  CEI: [p('2026-06-01', '2027-05-31', 0.0951)],
  COMED: [...seasonal(0.0987, 0.0912), ...seasonal(0.0935, 0.0868, 'COMMERCIAL')],
  AMEREN_ILLINOIS: [...seasonal(0.1034, 0.0958)],
  BGE: seasonal(0.1185, 0.1121),
  PEPCO_MD: seasonal(0.1224, 0.1172),
  DELMARVA_MD: seasonal(0.1201, 0.1146),
  POTOMAC_EDISON: seasonal(0.1088, 0.1043),
  SMECO: seasonal(0.1132, 0.1095),
  NATIONAL_GRID_MA: [p('2026-08-01', '2027-01-31', 0.1589), p('2027-02-01', '2027-07-31', 0.1412)],
  EVERSOURCE_MA: [p('2026-07-01', '2026-12-31', 0.1498), p('2027-01-01', '2027-06-30', 0.1612)],
  UNITIL_MA: [p('2026-06-01', '2026-11-30', 0.1512), p('2026-12-01', '2027-05-31', 0.1687)],
  EVERSOURCE_NH: [p('2026-08-01', '2027-01-31', 0.1255)],
  UNITIL_NH: [p('2026-06-01', '2026-11-30', 0.1049), p('2026-12-01', '2027-05-31', 0.1173)],
};
