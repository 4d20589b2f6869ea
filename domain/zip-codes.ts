// Whether a five-digit string is a US ZIP code at all, from the USPS list the `zipcodes` package
// carries: it tells "not a ZIP" (00000, 99999) from "a ZIP no feed covers" in `coverage`.
import zipcodes from 'zipcodes';

/** True when the package knows the ZIP as a US one. */
export function isUsZip(zip: string): boolean {
  return zipcodes.lookup(zip)?.country === 'US';
}
