// Offer selection for the plan queries: territory and class filters, duplicate dropping, order.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bySortKey, offersFor } from '../../resolvers/plans.js';
import type { CanonicalOffer, Territory } from '../../domain/canonical.js';

const offer = (over: Partial<CanonicalOffer> = {}): CanonicalOffer => ({
  feed: 'Voltify',
  offerId: 'A',
  supplierName: 'S',
  title: 'T',
  customerClass: 'RESIDENTIAL',
  utilityId: 'ONCOR',
  rateType: 'FIXED',
  termMonths: 12,
  energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 120000 }],
  baseMonthlyMicro: 0,
  credits: [],
  minimumUsageFee: null,
  renewablePercent: 0,
  cancellationFeeMicro: 0,
  enrollmentFeeMicro: 0,
  ...over,
});
const territory = (utilityId: string): Territory => ({
  utilityId,
  name: utilityId,
  state: 'TX',
  timeZone: 'America/Chicago',
  market: 'DEREGULATED',
  ownership: 'IOU',
  delivery: { fixedMonthlyMicro: 4230000, perKwhMicro: 51893 },
  commercialDelivery: { fixedMonthlyMicro: 15580000, perKwhMicro: 47458 },
  bundledRate: null,
  priceToCompare: null,
  calendar: null,
  switching: {
    kind: 'OFF_CYCLE',
    leadBusinessDays: 2,
    meterReadCycleDays: 30,
    meterReadAnchorDate: null,
    meterReadDates: [],
    sameDayCutoff: '17:00',
  },
  holidays: [],
});

describe('offersFor', () => {
  it('prices business offers with commercial delivery charges, and offers nothing where a class has none', () => {
    const business = offersFor([offer({ offerId: 'C', customerClass: 'COMMERCIAL' })], [territory('ONCOR')], 'COMMERCIAL');
    expect(business.map((o) => o.delivery)).toEqual([{ fixedMonthlyMicro: 15580000, perKwhMicro: 47458 }]);
    const noCommercial = { ...territory('ONCOR'), commercialDelivery: null };
    expect(offersFor([offer({ offerId: 'C', customerClass: 'COMMERCIAL' })], [noCommercial], 'COMMERCIAL')).toEqual([]);
    expect(offersFor([offer()], [{ ...territory('ONCOR'), delivery: null }], 'RESIDENTIAL')).toEqual([]);
  });

  it('keeps offers of the served utilities and class only', () => {
    const out = offersFor(
      [offer(), offer({ offerId: 'B', utilityId: 'PECO' }), offer({ offerId: 'C', customerClass: 'COMMERCIAL' })],
      [territory('ONCOR')],
      'RESIDENTIAL',
    );
    expect(out.map((o) => o.offer.offerId)).toEqual(['A']);
    expect(out[0]!.delivery.fixedMonthlyMicro).toBe(4230000);
  });

  it('drops a repeated offer and the same offer carried by a second feed', () => {
    const out = offersFor(
      [offer(), offer(), offer({ feed: 'Brightgrid', offerId: 'x-1' }), offer({ offerId: 'D', title: 'Other' })],
      [territory('ONCOR')],
      'RESIDENTIAL',
    );
    expect(out.map((o) => `${o.offer.feed}/${o.offer.offerId}`)).toEqual(['Voltify/A', 'Voltify/D']);
  });

  it('keeps offers that look alike but differ in any priced field', () => {
    const energy = [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 120001 }];
    const out = offersFor(
      [offer(), offer({ feed: 'Brightgrid', offerId: 'x-1', energyBlocks: energy }), offer({ offerId: 'E', baseMonthlyMicro: 1 })],
      [territory('ONCOR')],
      'RESIDENTIAL',
    );
    expect(out.map((o) => `${o.offer.feed}/${o.offer.offerId}`)).toEqual(['Voltify/A', 'Brightgrid/x-1', 'Voltify/E']);
  });

  it('drops exactly what comparing whole offers drops, in feed order', () => {
    // Reference: an offer is dropped when its (feed, id, utility) or its whole content was seen.
    const reference = (offers: CanonicalOffer[]) => {
      const seen = new Set<string>();
      return offers.filter((o) => {
        const { feed: _f, offerId: _i, ...content } = o;
        const keys = [`${o.feed}/${o.offerId}/${o.utilityId}`, JSON.stringify(content)];
        if (keys.some((k) => seen.has(k))) return false;
        keys.forEach((k) => seen.add(k));
        return true;
      });
    };
    const arbOffer = fc
      .record({
        feed: fc.constantFrom('Voltify', 'Brightgrid'),
        offerId: fc.constantFrom('A', 'B', 'C'),
        title: fc.constantFrom('T', 'U'),
        termMonths: fc.constantFrom(0, 12),
        baseMonthlyMicro: fc.constantFrom(0, 9_950_000),
        renewablePercent: fc.constantFrom(0, 100),
      })
      .map((o) => offer(o));
    fc.assert(
      fc.property(fc.array(arbOffer, { maxLength: 30 }), (offers) => {
        expect(offersFor(offers, [territory('ONCOR')], 'RESIDENTIAL').map((o) => o.offer)).toEqual(reference(offers));
      }),
      { numRuns: 500 },
    );
  });
});

describe('bySortKey', () => {
  it('orders by price, then by id so equal prices keep a stable order', () => {
    const rows = [
      { sortMicro: 2, id: 'b' },
      { sortMicro: 1, id: 'z' },
      { sortMicro: 2, id: 'a' },
    ];
    expect(rows.sort(bySortKey).map((r) => r.id)).toEqual(['z', 'a', 'b']);
  });
});
