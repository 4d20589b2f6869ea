// Whether a five-digit string is a US ZIP code at all, from the USPS list the `zipcodes` package
// carries (imported on first use, lib/zip-database.ts): it tells "not a ZIP" (00000, 99999) from
// "a ZIP no feed covers" in `coverage`.
import { zipPlace } from '../lib/zip-database.js';

/** True when the package knows the ZIP as a US one; rejects with ZipDatabaseError when the list cannot be loaded. */
export async function isUsZip(zip: string): Promise<boolean> {
  return (await zipPlace(zip)) !== undefined;
}
