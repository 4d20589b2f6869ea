// GET /voltify/api/v2/offers?zip=&utility=&class=: Voltify's offers, prices in cents per kWh.

import { centsPerKwh, offersFor, type OfferSpec } from '../data/offers.js';
import { utilityById } from '../data/utilities.js';
import { ZIP_PATTERN, utilityIdsForZip } from '../data/zips.js';
import { badRequest, ok, type Reply } from './reply.js';

const RATE = { FIXED: 'Fixed', VARIABLE: 'Variable', INDEXED: 'Indexed' } as const;

function render(o: OfferSpec) {
  const cls = o.customerClass === 'residential' ? 'R' : 'C';
  return {
    offerId: `VOL-${o.utilityId}-${cls}-${String(o.index).padStart(4, '0')}`,
    supplierName: o.supplierName,
    productName: o.productName,
    customerClass: o.customerClass === 'residential' ? 'Residential' : 'Commercial',
    utilityCode: o.utilityId,
    rateStructure: RATE[o.rate],
    termMonths: o.termMonths,
    energyChargeCentsPerKwh: o.tiers.map((t) => ({ fromKwh: t.fromKwh, toKwh: t.toKwh, cents: centsPerKwh(t.microUsdPerKwh) })),
    baseChargeUsdPerMonth: o.baseUsdPerMonth,
    usageCredits: o.credits.map((c) => ({ minKwh: c.minKwh, creditUsd: c.creditUsd })),
    minimumUsage: o.minimumUsage && { belowKwh: o.minimumUsage.belowKwh, feeUsd: o.minimumUsage.feeUsd },
    renewablePercent: o.renewablePercent,
    cancellationFeeUsd: o.cancellationFeeUsd,
    enrollmentFeeUsd: o.enrollmentFeeUsd,
    // Only offers with an approved price on record carry it (Maryland green power).
    ...(o.approvedPriceMicroPerKwh === null ? {} : { approvedPriceCentsPerKwh: centsPerKwh(o.approvedPriceMicroPerKwh) }),
  };
}

export async function listOffers(query: URLSearchParams): Promise<Reply> {
  const zip = query.get('zip');
  if (!zip || !ZIP_PATTERN.test(zip)) return badRequest('query parameter zip is required and must be a 5-digit ZIP code');
  const cls = query.get('class');
  if (cls !== 'residential' && cls !== 'commercial') {
    return badRequest("query parameter class is required and must be 'residential' or 'commercial'");
  }
  const utility = query.get('utility')?.trim().toUpperCase() || null;
  const offers = (await utilityIdsForZip(zip))
    .filter((id) => (utility === null || id === utility) && utilityById(id)?.market === 'DEREGULATED')
    .flatMap((id) => offersFor('voltify', id, cls).map(render));
  return ok({ offers });
}
