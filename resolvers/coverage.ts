// `coverage`: the utilities of a ZIP and why its plan list is what it is, so an empty list can be
// told apart: no utility with retail choice serves it, no feed covers it, or it is not a ZIP code.
import type { Territory } from '../domain/canonical.js';
import { isUsZip } from '../domain/zip-codes.js';
import type { ResolverContext } from './context.js';
import { utility } from './utility.js';

type CoverageStatus = 'RETAIL_CHOICE' | 'NO_CHOICE' | 'NOT_COVERED' | 'NOT_A_ZIP';

export async function coverageStatus(zipCode: string, served: readonly Territory[]): Promise<CoverageStatus> {
  if (served.some((t) => t.market === 'DEREGULATED')) return 'RETAIL_CHOICE';
  if (served.length > 0) return 'NO_CHOICE';
  // The feed's answer first: a ZIP a feed serves is a ZIP even if the package's list lags behind, and
  // needs no ZIP database. When the database cannot be loaded the field fails (masked, logged).
  return (await isUsZip(zipCode)) ? 'NOT_COVERED' : 'NOT_A_ZIP';
}

export async function coverage(ctx: Pick<ResolverContext, 'now'>, zipCode: string, served: Territory[]) {
  return { zipCode, status: await coverageStatus(zipCode, served), utilities: served.map((t) => utility(ctx, t)) };
}
