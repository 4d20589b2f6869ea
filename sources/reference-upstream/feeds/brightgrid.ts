// GET /brightgrid/v1/plans/{zip}?segment=RES|SMB: BrightGrid's plans, prices in dollars as
// pricing components.

import { createHash } from 'node:crypto';
import { offersFor, usdPerKwh, type CustomerClass, type OfferSpec } from '../data/offers.js';
import { utilityById } from '../data/utilities.js';
import { ZIP_PATTERN, utilityIdsForZip } from '../data/zips.js';
import { badRequest, ok, type Reply } from './reply.js';

const SEGMENTS = { RES: 'residential', SMB: 'commercial' } as const satisfies Record<string, CustomerClass>;
type Segment = keyof typeof SEGMENTS;
const CONTRACT_TYPE = { FIXED: 'fixed-rate', VARIABLE: 'variable-rate', INDEXED: 'indexed' } as const;

/** Opaque but stable plan id, like the hashes BrightGrid exposes. */
const planId = (o: OfferSpec) =>
  `bg-${createHash('sha1').update(`brightgrid:${o.utilityId}:${o.customerClass}:${o.index}`).digest('hex').slice(0, 12)}`;

function render(o: OfferSpec, segment: Segment) {
  const components: Record<string, unknown>[] = o.tiers.map((t) => ({
    kind: 'ENERGY',
    unit: 'USD_PER_KWH',
    amount: usdPerKwh(t.microUsdPerKwh),
    tierMinKwh: t.fromKwh,
    tierMaxKwh: t.toKwh,
  }));
  // BrightGrid omits a zero base charge rather than listing it.
  if (o.baseUsdPerMonth) components.push({ kind: 'BASE', unit: 'USD_PER_MONTH', amount: o.baseUsdPerMonth });
  for (const c of o.credits) components.push({ kind: 'CREDIT', unit: 'USD_PER_MONTH', amount: c.creditUsd, thresholdKwh: c.minKwh });
  if (o.minimumUsage) {
    components.push({ kind: 'MIN_USAGE_FEE', unit: 'USD_PER_MONTH', amount: o.minimumUsage.feeUsd, thresholdKwh: o.minimumUsage.belowKwh });
  }
  return {
    id: planId(o),
    provider: { displayName: o.supplierName },
    name: o.productName,
    segment,
    territory: o.utilityId,
    contract: { lengthMonths: o.termMonths, type: CONTRACT_TYPE[o.rate] },
    pricing: { currency: 'USD', components },
    green: {
      percent: o.renewablePercent,
      ...(o.approvedPriceMicroPerKwh === null ? {} : { approvedPriceUsdPerKwh: usdPerKwh(o.approvedPriceMicroPerKwh) }),
    },
    fees: { earlyTermination: o.cancellationFeeUsd, enrollment: o.enrollmentFeeUsd },
  };
}

export async function listPlans(zip: string, query: URLSearchParams): Promise<Reply> {
  if (!ZIP_PATTERN.test(zip)) return badRequest('zip must be a 5-digit ZIP code');
  const requested = query.get('segment');
  if (requested !== null && !(requested in SEGMENTS)) return badRequest("query parameter segment must be 'RES' or 'SMB'");
  const segments = requested === null ? (Object.keys(SEGMENTS) as Segment[]) : [requested as Segment];
  const utilities = (await utilityIdsForZip(zip)).filter((id) => utilityById(id)?.market === 'DEREGULATED');
  const plans = utilities.flatMap((id) =>
    segments.flatMap((segment) => offersFor('brightgrid', id, SEGMENTS[segment]).map((o) => render(o, segment))),
  );
  return ok({ data: { zip, plans } });
}
