// GET /eia/v1/states/{state}: 2024 price and generation statistics for a state or DC.
// GET /eia/v1/states/{state}/residential-sales/monthly: residential sales per month (EIA-861M).

import { STATE_STATS } from '../data/eia.js';
import { residentialSales } from '../data/residential-sales.js';
import { notFound, ok, type Reply } from './reply.js';

export function stateStatistics(code: string): Reply {
  const stats = STATE_STATS.get(code.toUpperCase());
  if (!stats) return notFound('unknown state');
  return ok({ ...stats, averageRetailPrice: { ...stats.averageRetailPrice }, generationMwh: { ...stats.generationMwh } });
}

/** A known state without figures answers an empty `series` (not an error): the gateway then says so to the partner. */
export function monthlyResidentialSales(code: string): Reply {
  const state = code.toUpperCase();
  if (!STATE_STATS.has(state)) return notFound('unknown state');
  const sales = residentialSales(state);
  return ok({ state, series: sales ? [{ ...sales, data: sales.data.map((m) => ({ ...m })) }] : [] });
}
