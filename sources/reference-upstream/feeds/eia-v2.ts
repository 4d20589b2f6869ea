// EIA API v2 as the reference upstream serves it (the subset the gateway's Eia source uses):
//   GET /v2/electricity/retail-sales/data/?frequency=annual&data[0]=price&facets[stateid][]=TX
//       &facets[sectorid][]=RES&sort[0][column]=period&sort[0][direction]=desc&offset=0&length=5000
//   GET /v2/electricity/electric-power-operational-data/data/?frequency=annual&data[0]=generation
//       &facets[location][]=TX&facets[sectorid][]=99&facets[fueltypeid][]=COW&...
// Answer: { response: { total, dateFormat, frequency, data: [...], description }, request, apiVersion }.
// `api_key` is accepted and not checked. Unsupported parameters answer 400 as EIA does.
import { generationRows, retailSalesRows } from '../data/eia-v2.js';
import { badRequest, ok, type Reply } from './reply.js';

interface Route {
  description: string;
  dataColumn: string;
  facets: readonly string[];
  rows: () => Record<string, string>[];
}

const ROUTES: Record<string, Route> = {
  'retail-sales': {
    description:
      'Electricity sales to ultimate customers by state and sector (number of customers, average price, revenue, and megawatthours of sales).',
    dataColumn: 'price',
    facets: ['stateid', 'sectorid'],
    rows: () => retailSalesRows().map((row) => ({ ...row })),
  },
  'electric-power-operational-data': {
    description: 'Monthly and annual electric power operations by state, sector, and energy source.',
    dataColumn: 'generation',
    facets: ['location', 'sectorid', 'fueltypeid'],
    rows: () => generationRows().map((row) => ({ ...row })),
  },
};

const MAX_LENGTH = 5000;

function intParam(q: URLSearchParams, name: string, fallback: number, max: number): number | null {
  const raw = q.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) > max) return null;
  return Number(raw);
}

export function eiaV2Data(route: string, q: URLSearchParams): Reply {
  const r = ROUTES[route];
  if (!r) return badRequest('unknown route');
  const frequency = q.get('frequency') ?? 'annual';
  if (frequency !== 'annual') return badRequest(`frequency ${frequency} is not served here (annual only)`);
  const columns = [...q.keys()].filter((k) => /^data\[\d+\]$/.test(k)).map((k) => q.get(k));
  if (columns.some((c) => c !== r.dataColumn)) return badRequest(`data columns of this route: ${r.dataColumn}`);
  const offset = intParam(q, 'offset', 0, 1_000_000);
  const length = intParam(q, 'length', MAX_LENGTH, MAX_LENGTH);
  if (offset === null || length === null) return badRequest(`offset and length must be whole numbers, length at most ${MAX_LENGTH}`);
  const start = q.get('start');
  const end = q.get('end');
  let rows = r.rows();
  for (const facet of r.facets) {
    const wanted = q.getAll(`facets[${facet}][]`);
    if (wanted.length) rows = rows.filter((row) => wanted.includes(row[facet]!));
  }
  if (start) rows = rows.filter((row) => row.period! >= start);
  if (end) rows = rows.filter((row) => row.period! <= end);
  const desc = q.get('sort[0][column]') === 'period' && q.get('sort[0][direction]') === 'desc';
  rows = [...rows].sort((a, b) => (a.period! < b.period! ? -1 : a.period! > b.period! ? 1 : 0) * (desc ? -1 : 1));
  const params: Record<string, unknown> = {};
  for (const k of new Set(q.keys())) if (k !== 'api_key') params[k] = q.getAll(k).length > 1 ? q.getAll(k) : q.get(k);
  return ok({
    response: {
      total: String(rows.length),
      dateFormat: 'YYYY',
      frequency: 'annual',
      data: rows.slice(offset, offset + length),
      description: r.description,
    },
    request: { command: `/v2/electricity/${route}/data/`, params },
    apiVersion: '2.1.8',
  });
}
