// Prices a partner can reproduce: for random plans (tiered blocks, credits with and without an
// upper bound, minimum-usage fees, delivery charges), every published tier is recomputed from the
// published fields alone (Plan.pricing and Plan.fees) and must match exactly; credits apply only
// inside [minKwh, maxKwh]; the year includes one-time fees and says how long its price is fixed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeliveryCharges } from '../../domain/canonical.js';
import { annualCost, priceFixedMonths } from '../../domain/annual-cost.js';
import { monthlyBillMicro } from '../../domain/pricing.js';
import { residentialPlan } from '../../resolvers/plans.js';
import { offer } from '../support/offer.js';
import { billMicro, recomputedTiers, type PublishedPlan } from '../support/recompute.js';

const SETTINGS = { enrollmentBaseUrl: 'https://enroll.example.com', utmSource: 'test', fillPartnerRef: false };

const planArb = fc
  .record({
    blocks: fc.array(fc.record({ width: fc.integer({ min: 1, max: 3000 }), rate: fc.integer({ min: 0, max: 400_000 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
    base: fc.integer({ min: 0, max: 50_000_000 }),
    credits: fc.array(
      fc.record({
        minKwh: fc.integer({ min: 0, max: 3000 }),
        span: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: null }),
        micro: fc.integer({ min: 0, max: 200_000_000 }).map((m) => m - (m % 10_000)),
      }),
      { maxLength: 2 },
    ),
    fee: fc.option(
      fc.record({
        belowKwh: fc.integer({ min: 1, max: 2000 }),
        micro: fc.integer({ min: 0, max: 20_000_000 }).map((m) => m - (m % 10_000)),
      }),
      { nil: null },
    ),
    fixed: fc.integer({ min: 0, max: 20_000_000 }).map((m) => m - (m % 10_000)),
    perKwh: fc.integer({ min: 0, max: 100_000 }),
    usage: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
  })
  .map(({ blocks, base, credits, fee, fixed, perKwh, usage }) => {
    let from = 0;
    const energyBlocks = blocks.map((b, i) => {
      const to = i === blocks.length - 1 ? null : from + b.width;
      const block = { fromKwh: from, toKwh: to, microUsdPerKwh: b.rate };
      if (to !== null) from = to;
      return block;
    });
    return {
      offer: offer({
        energyBlocks,
        baseMonthlyMicro: base - (base % 10_000),
        credits: credits.map((c) => ({ minKwh: c.minKwh, maxKwh: c.span === null ? null : c.minKwh + c.span, micro: c.micro })),
        minimumUsageFee: fee,
      }),
      delivery: { fixedMonthlyMicro: fixed, perKwhMicro: perKwh } as DeliveryCharges,
      usage,
    };
  });

function published(plan: ReturnType<typeof residentialPlan>): PublishedPlan {
  return { rateType: plan.rateType, pricing: plan.pricing(), fees: plan.fees(), rates: plan.rates() };
}

describe('a partner recomputes every tier from the published fields', () => {
  it('property: each tier is Σ blocks + base + delivery − credits in their window + minimum-usage fee, exactly', () => {
    fc.assert(
      fc.property(planArb, ({ offer: o, delivery, usage }) => {
        const p = published(residentialPlan(o, delivery, '75001', usage, SETTINGS, null));
        expect(
          p.rates.map(({ usageKwh, allInRateUsdPerKwh, avgMonthlyBillUsd }) => ({ usageKwh, allInRateUsdPerKwh, avgMonthlyBillUsd })),
        ).toEqual(recomputedTiers(p));
        for (const t of p.rates) expect(billMicro(p, t.usageKwh)).toBe(monthlyBillMicro(o, delivery, t.usageKwh));
      }),
      { numRuns: 1000 },
    );
  });

  it('a credit with an upper bound applies only inside [minKwh, maxKwh]', () => {
    const o = offer({ credits: [{ minKwh: 1000, maxKwh: 2000, micro: 100_000_000 }] });
    const d = { fixedMonthlyMicro: 0, perKwhMicro: 0 };
    const at = (u: number) => monthlyBillMicro(o, d, u);
    expect(at(999)).toBe(999 * 120_000);
    expect(at(1000)).toBe(1000 * 120_000 - 100_000_000);
    expect(at(2000)).toBe(2000 * 120_000 - 100_000_000);
    expect(at(2001)).toBe(2001 * 120_000);
    const p = residentialPlan(o, d, '75001', undefined, SETTINGS, null);
    expect(p.fees().usageCredits).toEqual([{ minKwh: 1000, maxKwh: 2000, creditUsd: 100 }]);
    expect(
      residentialPlan(offer({ credits: [{ minKwh: 500, micro: 1 }] }), d, '75001', undefined, SETTINGS, null).fees().usageCredits,
    ).toEqual([{ minKwh: 500, maxKwh: null, creditUsd: 0 }]);
  });

  it('publishes the blocks and the delivery charges; no delivery charges answer null', () => {
    const o = offer({
      energyBlocks: [
        { fromKwh: 0, toKwh: 500, microUsdPerKwh: 131_000 },
        { fromKwh: 500, toKwh: null, microUsdPerKwh: 119_500 },
      ],
    });
    const d = { fixedMonthlyMicro: 4_230_000, perKwhMicro: 58_362, effective: '2026-09-01', estimated: true };
    expect(residentialPlan(o, d, '75001', undefined, SETTINGS, null).pricing()).toEqual({
      energyBlocks: [
        { fromKwh: 0, toKwh: 500, usdPerKwh: 0.131 },
        { fromKwh: 500, toKwh: null, usdPerKwh: 0.1195 },
      ],
      delivery: { customerClass: 'RESIDENTIAL', fixedMonthlyUsd: 4.23, perKwhUsd: 0.058362, effectiveDate: '2026-09-01', estimated: true },
    });
    expect(residentialPlan(o, { fixedMonthlyMicro: 0, perKwhMicro: 0 }, '75001', undefined, SETTINGS, null).pricing().delivery).toBeNull();
  });
});

describe('the worked example of docs/partners.md ("Recomputing a price")', () => {
  it('1,200 kWh on the two-block Oncor plan with a 50 USD credit at 1,000-2,000 kWh: 178.3644 USD, 0.148637, 178.4', () => {
    const o = offer({
      energyBlocks: [
        { fromKwh: 0, toKwh: 500, microUsdPerKwh: 131_000 },
        { fromKwh: 500, toKwh: null, microUsdPerKwh: 119_500 },
      ],
      baseMonthlyMicro: 4_950_000,
      credits: [{ minKwh: 1000, maxKwh: 2000, micro: 50_000_000 }],
    });
    const d = { fixedMonthlyMicro: 4_230_000, perKwhMicro: 58_362 };
    expect(monthlyBillMicro(o, d, 1200)).toBe(178_364_400);
    const tier = residentialPlan(o, d, '75001', 1200, SETTINGS, null)
      .rates()
      .find((t) => t.usageKwh === 1200)!;
    expect(tier).toMatchObject({ allInRateUsdPerKwh: 0.148637, avgMonthlyBillUsd: 178.4 });
  });
});

describe('an honest year', () => {
  it('includes the one-time enrollment fee in the total, in no month', () => {
    const o = offer({ enrollmentFeeMicro: 25_000_000 });
    const d = { fixedMonthlyMicro: 0, perKwhMicro: 0 };
    const year = annualCost(o, d, new Array(12).fill(1000));
    expect(year.oneTimeFeesUsd).toBe(25);
    expect(year.months.every((m) => m.billMicro === 120_000_000)).toBe(true);
    expect(year.totalUsd).toBe(12 * 120 + 25);
  });

  it('says for how many months the price is fixed: min(term, 12) for FIXED, 0 otherwise', () => {
    expect(priceFixedMonths({ rateType: 'FIXED', termMonths: 3 })).toBe(3);
    expect(priceFixedMonths({ rateType: 'FIXED', termMonths: 36 })).toBe(12);
    expect(priceFixedMonths({ rateType: 'FIXED', termMonths: 0 })).toBe(0);
    expect(priceFixedMonths({ rateType: 'VARIABLE', termMonths: 12 })).toBe(0);
    expect(priceFixedMonths({ rateType: 'INDEXED', termMonths: 12 })).toBe(0);
  });
});
