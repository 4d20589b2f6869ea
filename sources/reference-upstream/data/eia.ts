// State electricity statistics for 2024, approximating EIA's published figures: average
// retail price by sector and net generation by source. Generation is stored as a total plus
// percentage shares (as the figures are usually quoted) and expanded to whole MWh.

export const EIA_YEAR = 2024;

export const SOURCES = ['coal', 'naturalGas', 'nuclear', 'hydro', 'wind', 'solar', 'otherRenewables', 'petroleum', 'other'] as const;
export type GenerationSource = (typeof SOURCES)[number];

export interface StateStats {
  state: string;
  name: string;
  year: number;
  averageRetailPrice: { residentialCentsPerKwh: number; commercialCentsPerKwh: number };
  generationMwh: Record<GenerationSource, number>;
}

// code, name, residential c/kWh, commercial c/kWh, total TWh, shares (%) in SOURCES order
type Row = [string, string, number, number, number, [number, number, number, number, number, number, number, number, number]];

const ROWS: Row[] = [
  ['AL', 'Alabama', 15.02, 13.31, 143.1, [18, 43, 30, 6.2, 0, 0.9, 3.1, 0.1, 0.2]],
  ['AK', 'Alaska', 24.62, 21.84, 6.4, [10.5, 40.2, 0, 26.1, 3.2, 0.1, 0.6, 14.1, 0.3]],
  ['AZ', 'Arizona', 14.81, 11.92, 118.4, [12.3, 46.1, 27.2, 4.1, 1.9, 10.1, 0.3, 0.05, 0]],
  ['AR', 'Arkansas', 12.61, 10.18, 63.2, [27.4, 35.1, 22.3, 5.1, 0, 4.2, 3.1, 0.1, 0.2]],
  ['CA', 'California', 30.22, 24.01, 205.7, [0.1, 39.6, 8.6, 14.8, 6.2, 23.9, 8.9, 0.1, 0.5]],
  ['CO', 'Colorado', 15.38, 12.21, 57.9, [30.2, 25.3, 0, 3.1, 32.1, 9.1, 0.2, 0.1, 0.1]],
  ['CT', 'Connecticut', 29.61, 22.43, 42.8, [0, 55.2, 40.1, 0.6, 0, 2.1, 1.8, 0.3, 0.9]],
  ['DE', 'Delaware', 16.44, 11.78, 4.6, [2.1, 89.6, 0, 0, 0, 4.2, 1.1, 1.1, 1.9]],
  ['DC', 'District of Columbia', 17.93, 15.21, 0.21, [0, 35.2, 0, 0, 0, 55.3, 9.5, 0, 0]],
  ['FL', 'Florida', 15.04, 11.63, 260.3, [6.1, 74.2, 11.1, 0.1, 0, 6.9, 1.4, 0.6, 0.9]],
  ['GA', 'Georgia', 14.12, 11.52, 135.6, [14.2, 44.8, 30.1, 2.1, 0, 6.1, 2.9, 0.1, 0.1]],
  ['HI', 'Hawaii', 40.61, 37.02, 9.4, [0, 0, 0, 1.2, 6.3, 16.8, 9.9, 63.9, 1.9]],
  ['ID', 'Idaho', 11.52, 8.81, 18.2, [0.1, 25.1, 0, 55.2, 12.8, 4.9, 2.9, 0, 0]],
  ['IL', 'Illinois', 15.81, 11.49, 180.4, [13.9, 17.2, 52.8, 0.1, 13.9, 1.8, 0.3, 0.1, 0.2]],
  ['IN', 'Indiana', 15.63, 12.52, 100.2, [45.1, 39.8, 0, 0.4, 9.2, 4.1, 0.5, 0.2, 0.9]],
  ['IA', 'Iowa', 13.41, 10.49, 70.3, [22.3, 10.2, 0, 1.1, 63.1, 2.1, 0.5, 0.1, 0]],
  ['KS', 'Kansas', 14.02, 11.31, 55.4, [28.1, 6.9, 17.2, 0, 47.1, 0.3, 0.1, 0.1, 0.1]],
  ['KY', 'Kentucky', 12.84, 11.72, 65.3, [68.2, 26.9, 0, 4.1, 0, 0.3, 0.5, 0.3, 0]],
  ['LA', 'Louisiana', 11.83, 10.61, 100.1, [5.2, 72.3, 15.1, 1.1, 0, 0.5, 2.9, 1.1, 2.9]],
  ['ME', 'Maine', 27.12, 18.69, 11.2, [0, 19.8, 0, 29.9, 23.1, 5.1, 20.9, 0.9, 0.8]],
  ['MD', 'Maryland', 18.51, 13.82, 33.4, [6.1, 37.9, 43.8, 5.1, 1.1, 4.2, 1.9, 0.3, 0.9]],
  ['MA', 'Massachusetts', 29.83, 21.62, 20.1, [0, 69.8, 0, 3.1, 1.1, 15.2, 5.9, 1.9, 3.1]],
  ['MI', 'Michigan', 19.62, 13.41, 115.3, [27.1, 35.2, 28.1, 1.1, 8.1, 1.2, 1.4, 0.3, 0.5]],
  ['MN', 'Minnesota', 15.61, 12.38, 60.2, [21.9, 21.8, 24.1, 1.1, 24.9, 4.1, 2.5, 0.1, 0.1]],
  ['MS', 'Mississippi', 13.52, 12.21, 65.4, [8.1, 74.2, 13.9, 0, 0, 2.1, 1.9, 0, 0]],
  ['MO', 'Missouri', 12.91, 10.31, 75.2, [63.9, 13.1, 12.1, 2.1, 8.2, 0.5, 0.1, 0.1, 0]],
  ['MT', 'Montana', 13.33, 12.41, 25.1, [41.8, 3.1, 0, 40.1, 13.9, 1.1, 0, 1.1, 0]],
  ['NE', 'Nebraska', 11.62, 9.58, 40.3, [49.8, 3.1, 15.2, 3.1, 29.9, 0.3, 0.1, 0.1, 0]],
  ['NV', 'Nevada', 14.91, 10.42, 42.1, [3.1, 54.8, 0, 4.1, 0.5, 29.8, 8.9, 0, 0]],
  ['NH', 'New Hampshire', 26.08, 20.49, 17.2, [0.5, 27.1, 56.2, 6.9, 2.1, 0.5, 6.1, 0.3, 0.3]],
  ['NJ', 'New Jersey', 19.62, 15.08, 66.1, [0, 49.1, 44.8, 0, 0, 4.1, 1.5, 0.1, 1.1]],
  ['NM', 'New Mexico', 14.72, 11.21, 38.2, [24.9, 35.1, 0, 0.2, 32.8, 7.1, 0.1, 0, 0]],
  ['NY', 'New York', 24.81, 19.42, 125.4, [0, 47.1, 20.9, 22.1, 4.1, 2.1, 1.9, 0.5, 1.5]],
  ['NC', 'North Carolina', 13.31, 10.19, 130.2, [15.9, 37.9, 32.8, 3.1, 0.4, 9.9, 2.1, 0.1, 0.1]],
  ['ND', 'North Dakota', 11.01, 9.52, 42.1, [57.1, 5.1, 0, 4.1, 33.8, 0, 0, 0.1, 0]],
  ['OH', 'Ohio', 15.92, 11.91, 130.3, [29.8, 53.1, 14.2, 0.5, 2.1, 1.1, 0.5, 0.3, 0.5]],
  ['OK', 'Oklahoma', 12.71, 10.02, 95.1, [8.1, 46.9, 0, 3.1, 41.9, 0.5, 0.1, 0, 0]],
  ['OR', 'Oregon', 14.62, 11.41, 62.3, [0, 32.1, 0, 49.8, 13.1, 2.1, 2.1, 0, 0.1]],
  ['PA', 'Pennsylvania', 18.02, 11.92, 240.2, [7.1, 58.2, 31.9, 1.1, 1.9, 0.5, 1.1, 0.2, 0.5]],
  ['RI', 'Rhode Island', 30.11, 21.88, 8.1, [0, 89.8, 0, 0, 4.1, 4.1, 1.9, 0.1, 0]],
  ['SC', 'South Carolina', 14.42, 11.02, 100.3, [14.1, 24.8, 54.9, 2.1, 0, 3.1, 2.1, 0.1, 0]],
  ['SD', 'South Dakota', 12.82, 10.81, 18.1, [9.9, 6.1, 0, 29.8, 55.1, 0.1, 0, 0.1, 0]],
  ['TN', 'Tennessee', 12.81, 12.11, 80.2, [17.9, 22.1, 47.8, 11.1, 0.1, 1.1, 1.1, 0.1, 0]],
  ['TX', 'Texas', 15.27, 9.12, 520.1, [13.8, 49.9, 8.1, 0.1, 20.9, 8.2, 0.3, 0.05, 0.5]],
  ['UT', 'Utah', 11.91, 9.21, 40.2, [54.9, 29.8, 0, 2.1, 2.1, 9.1, 1.6, 0.1, 0.1]],
  ['VT', 'Vermont', 22.51, 19.82, 2.2, [0, 0.1, 0, 56.9, 15.1, 12.1, 15.2, 0.4, 0]],
  ['VA', 'Virginia', 14.81, 9.91, 100.1, [2.1, 57.9, 30.9, 1.1, 0, 5.9, 3.1, 0.5, 0.5]],
  ['WA', 'Washington', 12.61, 11.12, 115.2, [4.1, 15.9, 8.1, 62.1, 7.9, 0.5, 1.5, 0, 0]],
  ['WV', 'West Virginia', 14.92, 11.41, 52.1, [87.9, 6.1, 0, 2.1, 3.9, 0.1, 0, 0.1, 0]],
  ['WI', 'Wisconsin', 17.61, 13.22, 65.2, [34.9, 37.9, 15.1, 3.1, 4.1, 3.1, 2.1, 0.1, 0]],
  ['WY', 'Wyoming', 12.52, 10.09, 40.3, [69.8, 2.1, 0, 2.1, 26.1, 0, 0, 0.1, 0]],
];

function build([state, name, res, com, totalTwh, shares]: Row): StateStats {
  const sum = shares.reduce((a, b) => a + b, 0);
  const generationMwh = {} as Record<GenerationSource, number>;
  SOURCES.forEach((source, i) => {
    generationMwh[source] = Math.round((totalTwh * 1_000_000 * shares[i]!) / sum);
  });
  return { state, name, year: EIA_YEAR, averageRetailPrice: { residentialCentsPerKwh: res, commercialCentsPerKwh: com }, generationMwh };
}

export const STATE_STATS: ReadonlyMap<string, StateStats> = new Map(ROWS.map((r) => [r[0], build(r)]));
