// GET /premises/v1/search?zip=&address=: premises in a ZIP whose address matches.

import { searchPremises } from '../data/premises.js';
import { ZIP_PATTERN } from '../data/zips.js';
import { badRequest, ok, type Reply } from './reply.js';

export async function searchByAddress(query: URLSearchParams): Promise<Reply> {
  const zip = query.get('zip');
  const address = query.get('address');
  if (!zip || !ZIP_PATTERN.test(zip)) return badRequest('query parameter zip is required and must be a 5-digit ZIP code');
  if (!address || !address.trim()) return badRequest('query parameter address is required');
  return ok({ matches: await searchPremises(zip, address) });
}
