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

export function monthlyResidentialSales(code: string): Reply {
  const sales = residentialSales(code.toUpperCase());
  if (!sales) return notFound('no monthly sales for this state');
  return ok({ ...sales, data: sales.data.map((m) => ({ ...m })) });
}
