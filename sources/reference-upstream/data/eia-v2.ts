// EIA API v2 rows for the reference upstream: /v2/electricity/retail-sales/data/ (average price
// by state and sector, cents per kWh) and /v2/electricity/electric-power-operational-data/data/
// (net generation by fuel type, thousand MWh), annual, in EIA v2's response shape with numbers as
// strings as EIA sends them.
//
// Years served: 2024 (the table of eia.ts: EIA Electric Power Annual / State Electricity Profiles
// figures) and 2025. The 2025 rows are reference figures, not EIA's: 2024 prices moved by the
// 2025 national change EIA's Electric Power Monthly reported through mid-2026 (residential +4.8%,
// commercial +3.9%), 2024 generation shares on totals 2.5% higher. Set EIA_URL and EIA_API_KEY to
// read EIA's own figures (docs/operations.md).
import { SOURCES, STATE_STATS, type GenerationSource, type StateStats } from './eia.js';

const EIA_V2_YEARS = [2025, 2024] as const;

/** EIA's fuel type ids (electric-power-operational-data facet `fueltypeid`) of our nine categories. */
const FUEL_TYPE_IDS: Record<GenerationSource, { id: string; description: string }> = {
  coal: { id: 'COW', description: 'coal, all' },
  petroleum: { id: 'PET', description: 'petroleum liquids and coke' },
  naturalGas: { id: 'NG', description: 'natural gas' },
  otherGases: { id: 'OOG', description: 'other gases' },
  nuclear: { id: 'NUC', description: 'nuclear' },
  hydroelectricConventional: { id: 'HYC', description: 'conventional hydroelectric' },
  otherRenewables: { id: 'AOR', description: 'other renewables (total)' },
  pumpedStorage: { id: 'HPS', description: 'hydro-electric pumped storage' },
  other: { id: 'OTH', description: 'other' },
};

const SECTORS = { RES: 'residential', COM: 'commercial' } as const;

interface RetailSalesRow {
  period: string;
  stateid: string;
  stateDescription: string;
  sectorid: string;
  sectorName: string;
  price: string;
  'price-units': string;
  /** Not an EIA member: the reference upstream marks the figures it derived (2025) as ESTIMATED. */
  dataStatus?: 'ESTIMATED';
}

interface GenerationRow {
  period: string;
  location: string;
  stateDescription: string;
  sectorid: string;
  sectorDescription: string;
  fueltypeid: string;
  fuelTypeDescription: string;
  generation: string;
  'generation-units': string;
  dataStatus?: 'ESTIMATED';
}

/** x * (1 + pct/100) rounded to 2 decimals, exactly (hundredths as integers). */
function moved(cents: number, perMille: number): string {
  const hundredths = Math.round(cents * 100);
  const v = Math.round((hundredths * (1000 + perMille)) / 1000);
  return `${Math.floor(v / 100)}.${String(v % 100).padStart(2, '0')}`;
}

function priceOf(s: StateStats, sector: keyof typeof SECTORS, year: number): string {
  const cents = sector === 'RES' ? s.averageRetailPrice.residentialCentsPerKwh : s.averageRetailPrice.commercialCentsPerKwh;
  return year === 2024 ? moved(cents, 0) : moved(cents, sector === 'RES' ? 48 : 39);
}

/** MWh -> thousand MWh as exact decimal text (MWh are whole numbers). */
function thousandMwh(mwh: number, year: number): string {
  const scaled = year === 2024 ? mwh : Math.round((mwh * 1025) / 1000);
  const neg = scaled < 0;
  const abs = Math.abs(scaled);
  return `${neg ? '-' : ''}${Math.floor(abs / 1000)}.${String(abs % 1000).padStart(3, '0')}`;
}

/** The 2025 rows are derived from 2024's, not EIA's: they say so. */
const estimatedIn = (year: number) => (year === 2024 ? {} : { dataStatus: 'ESTIMATED' as const });

export function retailSalesRows(): RetailSalesRow[] {
  const rows: RetailSalesRow[] = [];
  for (const year of EIA_V2_YEARS)
    for (const s of STATE_STATS.values())
      for (const sector of Object.keys(SECTORS) as (keyof typeof SECTORS)[])
        rows.push({
          period: String(year),
          stateid: s.state,
          stateDescription: s.name,
          sectorid: sector,
          sectorName: SECTORS[sector],
          price: priceOf(s, sector, year),
          'price-units': 'cents per kilowatt-hour',
          ...estimatedIn(year),
        });
  return rows;
}

export function generationRows(): GenerationRow[] {
  const rows: GenerationRow[] = [];
  for (const year of EIA_V2_YEARS)
    for (const s of STATE_STATS.values())
      for (const source of SOURCES)
        rows.push({
          period: String(year),
          location: s.state,
          stateDescription: s.name,
          sectorid: '99',
          sectorDescription: 'All Sectors',
          fueltypeid: FUEL_TYPE_IDS[source].id,
          fuelTypeDescription: FUEL_TYPE_IDS[source].description,
          generation: thousandMwh(s.generationMwh[source], year),
          'generation-units': 'thousand megawatthours',
          ...estimatedIn(year),
        });
  return rows;
}
