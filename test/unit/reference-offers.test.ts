// Seeded reference offers are plausible: a bill-credit plan's all-in rate stays
// above the utility's delivery charge per kWh plus a supply margin at every usage, for every
// seeded offer of every supplier feed, utility and customer class.
import { describe, expect, it } from 'vitest';
import type { CanonicalOffer, DeliveryCharges } from '../../domain/canonical.js';
import { monthlyBillMicro } from '../../domain/pricing.js';
import { DEREGULATED_UTILITIES, type Utility } from '../../sources/reference-upstream/data/utilities.js';
import { offersFor, type OfferSpec } from '../../sources/reference-upstream/data/offers.js';
import { gridwiseOffers, type GridwiseOfferSpec } from '../../sources/reference-upstream/data/gridwise.js';
import { SUPPLY_MARGIN_MICRO_PER_KWH } from '../../sources/reference-upstream/data/markets.js';

const micro = (usd: number) => Math.round(usd * 1_000_000);

function fromSpec(o: OfferSpec): CanonicalOffer {
  return {
    feed: o.feed,
    offerId: `${o.feed}-${o.index}`,
    supplierName: o.supplierName,
    title: o.productName,
    customerClass: o.customerClass === 'residential' ? 'RESIDENTIAL' : 'COMMERCIAL',
    utilityId: o.utilityId,
    rateType: o.rate,
    termMonths: o.termMonths,
    energyBlocks: o.tiers.map((t) => ({ ...t })),
    baseMonthlyMicro: micro(o.baseUsdPerMonth),
    credits: o.credits.map((c) => ({ minKwh: c.minKwh, micro: micro(c.creditUsd) })),
    minimumUsageFee: o.minimumUsage && { belowKwh: o.minimumUsage.belowKwh, micro: micro(o.minimumUsage.feeUsd) },
    renewablePercent: o.renewablePercent,
    cancellationFeeMicro: 0,
    enrollmentFeeMicro: 0,
  };
}

function fromGridwise(o: GridwiseOfferSpec): CanonicalOffer {
  return {
    feed: 'gridwise',
    offerId: o.id,
    supplierName: o.vendor,
    title: o.label,
    customerClass: o.cls === 'res' ? 'RESIDENTIAL' : 'COMMERCIAL',
    utilityId: o.utilityId,
    rateType: 'FIXED',
    termMonths: Math.round(o.years * 12),
    energyBlocks: o.blocks.map((b) => ({ fromKwh: b.fromKwh, toKwh: b.toKwh, microUsdPerKwh: b.centsPerMwh * 10 })),
    baseMonthlyMicro: o.monthlyFeeCents * 10_000,
    credits: o.credits.map((c) => ({ minKwh: c.thresholdKwh, micro: c.amountCents * 10_000 })),
    minimumUsageFee: o.minimumUsage && { belowKwh: o.minimumUsage.belowKwh, micro: o.minimumUsage.chargeCents * 10_000 },
    renewablePercent: 0,
    cancellationFeeMicro: 0,
    enrollmentFeeMicro: 0,
  };
}

function delivery(u: Utility, cls: CanonicalOffer['customerClass']): DeliveryCharges {
  const c = cls === 'COMMERCIAL' ? u.delivery!.commercial : u.delivery!.residential;
  return { fixedMonthlyMicro: micro(c.fixedMonthlyUsd), perKwhMicro: micro(c.perKwhUsd) };
}

const all: { offer: CanonicalOffer; delivery: DeliveryCharges }[] = [];
for (const u of DEREGULATED_UTILITIES) {
  for (const feed of ['voltify', 'brightgrid'] as const) {
    for (const cls of ['residential', 'commercial'] as const) {
      for (const o of offersFor(feed, u.utilityId, cls))
        all.push({ offer: fromSpec(o), delivery: delivery(u, cls === 'residential' ? 'RESIDENTIAL' : 'COMMERCIAL') });
    }
  }
  for (const cls of ['res', 'com'] as const) {
    for (const o of gridwiseOffers(u.utilityId, cls))
      all.push({ offer: fromGridwise(o), delivery: delivery(u, cls === 'res' ? 'RESIDENTIAL' : 'COMMERCIAL') });
  }
}

describe('seeded offers', () => {
  it('cover every deregulated utility, with bill-credit plans among them', () => {
    expect(new Set(all.map((a) => a.offer.utilityId)).size).toBe(DEREGULATED_UTILITIES.length);
    expect(all.filter((a) => a.offer.credits.length > 0).length).toBeGreaterThan(20);
  });

  it('never price below delivery per kWh plus the supply margin, at any usage from 1 to 5000 kWh', () => {
    const usages = [1, 10, 100, ...Array.from({ length: 100 }, (_, i) => 50 * (i + 1))];
    const failures: string[] = [];
    for (const { offer, delivery: d } of all) {
      const thresholds = offer.credits.flatMap((c) => [c.minKwh, c.minKwh + 1]);
      for (const usage of [...usages, ...thresholds]) {
        const bill = monthlyBillMicro(offer, d, usage);
        if (bill < usage * (d.perKwhMicro + SUPPLY_MARGIN_MICRO_PER_KWH))
          failures.push(`${offer.offerId} ${offer.utilityId} ${offer.title} at ${usage} kWh`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it('Bluebonnet Saver 12 (75001, $100 credit at 1000 kWh) is about 10 c/kWh all-in at 1000 kWh, no longer below delivery', () => {
    const saver = all.find((a) => a.offer.utilityId === 'ONCOR' && a.offer.title === 'Bluebonnet Saver 12' && a.offer.credits.length > 0);
    expect(saver).toBeDefined();
    const rate = monthlyBillMicro(saver!.offer, saver!.delivery, 1000) / 1000;
    expect(rate).toBeGreaterThan(saver!.delivery.perKwhMicro + SUPPLY_MARGIN_MICRO_PER_KWH);
    expect(rate).toBeGreaterThanOrEqual(95_000);
  });
});
