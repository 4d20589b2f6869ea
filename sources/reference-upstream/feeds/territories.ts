// GET /territories/v1/zip/{zip}: the utilities serving a ZIP (empty list when none).

import { utilityById } from '../data/utilities.js';
import { ZIP_PATTERN, utilityIdsForZip } from '../data/zips.js';
import { badRequest, ok, type Reply } from './reply.js';

export function territoriesByZip(zip: string): Reply {
  if (!ZIP_PATTERN.test(zip)) return badRequest('zip must be a 5-digit ZIP code');
  const utilities = utilityIdsForZip(zip).map((id) => {
    const u = utilityById(id)!;
    return {
      utilityId: u.utilityId, name: u.name, state: u.state, timeZone: u.timeZone,
      market: u.market, ownership: u.ownership,
      delivery: { ...u.delivery }, switching: { ...u.switching }, holidays: [...u.holidays],
    };
  });
  return ok({ zip, utilities });
}
