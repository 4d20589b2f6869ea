// State electricity statistics for 2024, approximating EIA's published figures: average retail
// price by sector and net generation by primary energy source in EIA's nine categories, named as
// EIA names them (State Electricity Profiles): Coal, Petroleum, Natural Gas, Other Gases, Nuclear,
// Hydroelectric Conventional, Other Renewables (wind, solar, biomass, geothermal), Pumped Storage
// (net, so zero or negative) and Other. Each row's shares sum to exactly 100.0 and are expanded
// to whole MWh without rescaling, so the gateway publishes the table's own percentages.

const EIA_YEAR = 2024;

export const SOURCES = ['coal', 'petroleum', 'naturalGas', 'otherGases', 'nuclear', 'hydroelectricConventional', 'otherRenewables', 'pumpedStorage', 'other'] as const;
export type GenerationSource = (typeof SOURCES)[number];

export interface StateStats {
  state: string;
  name: string;
  year: number;
  averageRetailPrice: { residentialCentsPerKwh: number; commercialCentsPerKwh: number };
  generationMwh: Record<GenerationSource, number>;
}

// code, name, residential c/kWh, commercial c/kWh, total TWh, shares (% with one decimal) in SOURCES order
type Row = [string, string, number, number, number, [number, number, number, number, number, number, number, number, number]];

const ROWS: Row[] = [
  ['AL', 'Alabama', 15.02, 13.31, 143.1, [18, 0.1, 43, 0.2, 3E+1, 6.2, 2.3, 0, 0.2]],
  ['AK', 'Alaska', 24.62, 21.84, 6.4, [10.5, 14.1, 45.1, 0, 0, 26.1, 3.9, 0, 0.3]],
  ['AZ', 'Arizona', 14.81, 11.92, 118.4, [12.3, 0, 46.1, 0, 27.2, 4.1, 10.3, 0, 0]],
  ['AR', 'Arkansas', 12.61, 10.18, 63.2, [27.4, 0.1, 35.1, 0, 22.3, 5.1, 9.8, 0, 0.2]],
  ['CA', 'California', 30.22, 24.01, 205.7, [0.1, 0.1, 39.6, 0, 8.6, 14.8, 36.5, -0.2, 0.5]],
  ['CO', 'Colorado', 15.38, 12.21, 57.9, [30.2, 0.1, 25.3, 0, 0, 3.1, 41.2, 0, 0.1]],
  ['CT', 'Connecticut', 29.61, 22.43, 42.8, [0, 0.3, 55.2, 0, 40.1, 0.6, 2.9, 0, 0.9]],
  ['DE', 'Delaware', 16.44, 11.78, 4.6, [2.1, 1.1, 89.6, 0, 0, 0, 5.3, 0, 1.9]],
  ['DC', 'District of Columbia', 17.93, 15.21, 0.21, [0, 0, 35.2, 0, 0, 0, 64.8, 0, 0]],
  ['FL', 'Florida', 15.04, 11.63, 260.3, [6.1, 0.6, 74.2, 0, 11.1, 0.1, 7, 0, 0.9]],
  ['GA', 'Georgia', 14.12, 11.52, 135.6, [14.2, 0.1, 44.8, 0, 30.1, 2.1, 8.7, -0.1, 0.1]],
  ['HI', 'Hawaii', 40.61, 37.02, 9.4, [0, 63.9, 0, 0, 0, 1.2, 33, 0, 1.9]],
  ['ID', 'Idaho', 11.52, 8.81, 18.2, [0.1, 0, 25.1, 0, 0, 55.2, 19.6, 0, 0]],
  ['IL', 'Illinois', 15.81, 11.49, 180.4, [13.9, 0.1, 17.2, 0.1, 52.8, 0.1, 15.6, 0, 0.2]],
  ['IN', 'Indiana', 15.63, 12.52, 100.2, [45.1, 0.2, 39.8, 0.8, 0, 0.4, 12.8, 0, 0.9]],
  ['IA', 'Iowa', 13.41, 10.49, 70.3, [22.3, 0.1, 10.2, 0, 0, 1.1, 66.3, 0, 0]],
  ['KS', 'Kansas', 14.02, 11.31, 55.4, [28.1, 0.1, 6.9, 0, 17.2, 0, 47.6, 0, 0.1]],
  ['KY', 'Kentucky', 12.84, 11.72, 65.3, [68.2, 0.3, 26.9, 0.1, 0, 4.1, 0.4, 0, 0]],
  ['LA', 'Louisiana', 11.83, 10.61, 100.1, [5.2, 1.1, 72.3, 0.5, 15.1, 1.1, 1.8, 0, 2.9]],
  ['ME', 'Maine', 27.12, 18.69, 11.2, [0, 0.9, 19.8, 0, 0, 29.9, 48.6, 0, 0.8]],
  ['MD', 'Maryland', 18.51, 13.82, 33.4, [6.1, 0.3, 37.9, 0.2, 43.8, 5.1, 5.7, 0, 0.9]],
  ['MA', 'Massachusetts', 29.83, 21.62, 20.1, [0, 1.9, 69.8, 0, 0, 3.1, 22.5, -0.4, 3.1]],
  ['MI', 'Michigan', 19.62, 13.41, 115.3, [27.1, 0.3, 35.2, 0.1, 28.1, 1.1, 7.9, -0.3, 0.5]],
  ['MN', 'Minnesota', 15.61, 12.38, 60.2, [21.9, 0.1, 21.8, 0, 24.1, 1.1, 30.9, 0, 0.1]],
  ['MS', 'Mississippi', 13.52, 12.21, 65.4, [8.1, 0, 74.2, 0, 13.9, 0, 3.8, 0, 0]],
  ['MO', 'Missouri', 12.91, 10.31, 75.2, [63.9, 0.1, 13.1, 0, 12.1, 2.1, 8.8, -0.1, 0]],
  ['MT', 'Montana', 13.33, 12.41, 25.1, [41.8, 1.1, 3.1, 0, 0, 40.1, 13.9, 0, 0]],
  ['NE', 'Nebraska', 11.62, 9.58, 40.3, [49.8, 0.1, 3.1, 0, 15.2, 3.1, 28.7, 0, 0]],
  ['NV', 'Nevada', 14.91, 10.42, 42.1, [3.1, 0, 54.8, 0, 0, 4.1, 38, 0, 0]],
  ['NH', 'New Hampshire', 26.08, 20.49, 17.2, [0.5, 0.3, 27.1, 0, 56.2, 6.9, 8.7, 0, 0.3]],
  ['NJ', 'New Jersey', 19.62, 15.08, 66.1, [0, 0.1, 49.1, 0, 44.8, 0, 5, -0.1, 1.1]],
  ['NM', 'New Mexico', 14.72, 11.21, 38.2, [24.9, 0, 35.1, 0, 0, 0.2, 39.8, 0, 0]],
  ['NY', 'New York', 24.81, 19.42, 125.4, [0, 0.5, 47.1, 0, 20.9, 22.1, 8, -0.1, 1.5]],
  ['NC', 'North Carolina', 13.31, 10.19, 130.2, [15.9, 0.1, 37.9, 0, 32.8, 3.1, 10.1, 0, 0.1]],
  ['ND', 'North Dakota', 11.01, 9.52, 42.1, [57.1, 0.1, 5.1, 0, 0, 4.1, 33.6, 0, 0]],
  ['OH', 'Ohio', 15.92, 11.91, 130.3, [29.8, 0.3, 50.8, 0.2, 14.2, 0.5, 3.7, 0, 0.5]],
  ['OK', 'Oklahoma', 12.71, 10.02, 95.1, [8.1, 0, 46.9, 0, 0, 3.1, 41.9, 0, 0]],
  ['OR', 'Oregon', 14.62, 11.41, 62.3, [0, 0, 32.1, 0, 0, 49.8, 18, 0, 0.1]],
  ['PA', 'Pennsylvania', 18.02, 11.92, 240.2, [7.1, 0.2, 55.6, 0.3, 31.9, 1.1, 3.5, -0.2, 0.5]],
  ['RI', 'Rhode Island', 30.11, 21.88, 8.1, [0, 0.1, 89.8, 0, 0, 0, 10.1, 0, 0]],
  ['SC', 'South Carolina', 14.42, 11.02, 100.3, [14.1, 0.1, 24.8, 0, 54.9, 2.1, 4.3, -0.3, 0]],
  ['SD', 'South Dakota', 12.82, 10.81, 18.1, [9.9, 0.1, 6.1, 0, 0, 29.8, 54.1, 0, 0]],
  ['TN', 'Tennessee', 12.81, 12.11, 80.2, [17.9, 0.1, 22.1, 0, 47.8, 11.1, 1.3, -0.3, 0]],
  ['TX', 'Texas', 15.27, 9.12, 520.1, [13.8, 0, 49.9, 0.3, 8.1, 0.1, 27.3, 0, 0.5]],
  ['UT', 'Utah', 11.91, 9.21, 40.2, [54.9, 0.1, 29.8, 0, 0, 2.1, 13, 0, 0.1]],
  ['VT', 'Vermont', 22.51, 19.82, 2.2, [0, 0.4, 0.1, 0, 0, 56.9, 42.6, 0, 0]],
  ['VA', 'Virginia', 14.81, 9.91, 100.1, [2.1, 0.5, 57.9, 0, 30.9, 1.1, 7.4, -0.4, 0.5]],
  ['WA', 'Washington', 12.61, 11.12, 115.2, [4.1, 0, 15.9, 0, 8.1, 62.1, 9.8, 0, 0]],
  ['WV', 'West Virginia', 14.92, 11.41, 52.1, [87.9, 0.1, 6.1, 0.2, 0, 2.1, 3.6, 0, 0]],
  ['WI', 'Wisconsin', 17.61, 13.22, 65.2, [34.9, 0.1, 37.9, 0, 15.1, 3.1, 8.9, 0, 0]],
  ['WY', 'Wyoming', 12.52, 10.09, 40.3, [69.8, 0.1, 2.1, 0, 0, 2.1, 25.9, 0, 0]],
];

/** Tenths of a percent of a share written with at most one decimal (exact: no float multiply). */
function tenths(share: number): number {
  const [int, frac = ''] = String(share).split('.');
  if (frac.length > 1) throw new Error(`share ${share} has more than one decimal`);
  return Number(`${int}${frac.padEnd(1, '0')}`);
}

function build([state, name, res, com, totalTwh, shares]: Row): StateStats {
  const parts = shares.map(tenths);
  if (parts.reduce((a, b) => a + b, 0) !== 1000) throw new Error(`${state}: generation shares do not sum to 100.0`);
  // Whole GWh totals (TWh with at most 3 decimals) make every share an exact whole number of MWh.
  const totalGwh = Math.round(totalTwh * 1000);
  const generationMwh = {} as Record<GenerationSource, number>;
  SOURCES.forEach((source, i) => {
    generationMwh[source] = totalGwh * parts[i]! + 0; // GWh x tenths of a percent = MWh
  });
  return { state, name, year: EIA_YEAR, averageRetailPrice: { residentialCentsPerKwh: res, commercialCentsPerKwh: com }, generationMwh };
}

export const STATE_STATS: ReadonlyMap<string, StateStats> = new Map(ROWS.map((r) => [r[0], build(r)]));
