// GET /gridwise/feed/{zip}: Gridwise's offers as its XML feed looks after a generic XML-to-JSON
// conversion: one root element (Envelope), repeated elements as lists (OfferList.Offer,
// Blocks.Block, Credits.Credit), attributes as "@name" keys, money as decimal text in dollars,
// energy prices in dollars per MWh, contract length in years, renewable share as a fraction.
// Both customer classes in one list ("res" / "com"); a ZIP without Gridwise offers has an empty
// OfferList.Offer. Contract: sources/gridwise/schema.json.

import { decimal2, gridwiseOffers, type GridwiseOfferSpec } from '../data/gridwise.js';
import { utilityById } from '../data/utilities.js';
import { ZIP_PATTERN, utilityIdsForZip } from '../data/zips.js';
import { badRequest, ok, type Reply } from './reply.js';

function render(o: GridwiseOfferSpec) {
  const pricing: Record<string, unknown> = {
    Blocks: {
      Block: o.blocks.map((b) => ({
        FromKWh: b.fromKwh,
        ...(b.toKwh === null ? {} : { ToKWh: b.toKwh }),
        PerMWh: decimal2(b.centsPerMwh),
      })),
    },
    MonthlyFee: decimal2(o.monthlyFeeCents),
  };
  if (o.credits.length)
    pricing.Credits = { Credit: o.credits.map((c) => ({ ThresholdKWh: c.thresholdKwh, Amount: decimal2(c.amountCents) })) };
  if (o.minimumUsage) pricing.MinimumUsage = { BelowKWh: o.minimumUsage.belowKwh, Charge: decimal2(o.minimumUsage.chargeCents) };
  return {
    '@id': o.id,
    Vendor: { LegalName: o.vendor },
    Label: o.label,
    Class: o.cls,
    TDSP: o.utilityId,
    Pricing: pricing,
    Contract: { Years: o.years, Kind: o.kind },
    Renewable: { Fraction: o.renewableFraction },
    Fees: { EarlyExit: decimal2(o.earlyExitCents), Signup: decimal2(o.signupCents) },
  };
}

export async function gridwiseFeed(zip: string): Promise<Reply> {
  if (!ZIP_PATTERN.test(zip)) return badRequest('zip must be a 5-digit ZIP code');
  const offers = (await utilityIdsForZip(zip))
    .filter((id) => utilityById(id)?.market === 'DEREGULATED')
    .flatMap((id) => [...gridwiseOffers(id, 'res'), ...gridwiseOffers(id, 'com')].map(render));
  return ok({
    Envelope: {
      Header: { Zip: zip, Currency: 'USD', Count: offers.length },
      Body: { OfferList: { Offer: offers } },
    },
  });
}
