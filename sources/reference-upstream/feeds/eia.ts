// GET /eia/v1/states/{state}: 2024 price and generation statistics for a state or DC.

import { STATE_STATS } from '../data/eia.js';
import { notFound, ok, type Reply } from './reply.js';

export function stateStatistics(code: string): Reply {
  const stats = STATE_STATS.get(code.toUpperCase());
  if (!stats) return notFound('unknown state');
  return ok({ ...stats, averageRetailPrice: { ...stats.averageRetailPrice }, generationMwh: { ...stats.generationMwh } });
}
