// GET /territories/v1/zip/{zip}: the utilities serving a ZIP (empty list when none).

import { utilityById } from '../data/utilities.js';
import { ZIP_PATTERN, utilityIdsForZip } from '../data/zips.js';
import { badRequest, ok, type Reply } from './reply.js';

/** JSON copy without null members: the contract leaves out what a utility does not have. */
const withoutNulls = <T>(value: T): T => JSON.parse(JSON.stringify(value, (_k, v: unknown) => (v === null ? undefined : v)));

export async function territoriesByZip(zip: string): Promise<Reply> {
  if (!ZIP_PATTERN.test(zip)) return badRequest('zip must be a 5-digit ZIP code');
  const utilities = (await utilityIdsForZip(zip)).map((id) => withoutNulls(utilityById(id)!));
  return ok({ zip, utilities });
}
