// Towns of the retail choice states served by their own municipal utility, inside ZIP prefixes an
// investor-owned utility otherwise serves. A ZIP is placed in its town by the `zipcodes` package
// (USPS primary city and state, imported on first use: lib/zip-database.ts); every ZIP of a listed
// town is the municipal utility's. Their customers have no retail choice (a municipal utility may
// opt in, e.g. Lubbock; none of these did).
// Sources: the utilities' and cities' published service areas, as of 2026-11.
import { zipPlace } from '../../../lib/zip-database.js';

/** "STATE|CITY" as zipcodes spells them, upper case -> utility id (utilities.ts). */
const TOWNS: Record<string, string> = {
  'TX|GARLAND': 'GARLAND_PL',
  'TX|DENTON': 'DENTON_ME',
  'TX|GREENVILLE': 'GEUS',
  'TX|BROWNSVILLE': 'BROWNSVILLE_PUB',
  'IL|NAPERVILLE': 'NAPERVILLE_ELECTRIC',
  'IL|GENEVA': 'GENEVA_IL',
  'MA|WELLESLEY': 'WELLESLEY_MLP',
  'MA|WELLESLEY HILLS': 'WELLESLEY_MLP',
  'MA|READING': 'READING_MLD',
  'MA|TAUNTON': 'TAUNTON_MLP',
  'MA|HOLYOKE': 'HOLYOKE_GE',
  'MD|EASTON': 'EASTON_UTILITIES',
  'CT|NORWICH': 'NORWICH_PU',
  'CT|WALLINGFORD': 'WALLINGFORD_ELECTRIC',
};

/** The municipal utility of the ZIP's town with its city, or undefined when the town has none listed. */
export async function municipalTown(zip: string): Promise<{ city: string; utilityId: string } | undefined> {
  const place = await zipPlace(zip);
  const utilityId = place && TOWNS[`${place.state}|${place.city}`];
  return utilityId ? { city: place.city, utilityId } : undefined;
}

/** Every utility id the table names, for consistency checks. */
export const MUNICIPAL_TOWN_UTILITIES: readonly string[] = [...new Set(Object.values(TOWNS))];
