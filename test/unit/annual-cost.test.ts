// A household's year on a plan: properties of the annual cost (every month is the bill `rates`
// gives, the total is the rounded exact sum), the ranking by it, the rate spread, the spread of an
// annual usage by a state's shape, the usage-shape feed mapping and the argument checks.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadYaml } from '@graphql-mesh/utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeliveryCharges } from '../../domain/canonical.js';
import { annualCost, rateSpread, spreadByShape, SPREAD_USAGES } from '../../domain/annual-cost.js';
import { monthlyBillMicro, rateTier } from '../../domain/pricing.js';
import { InputError, annualUsageKwh, usageProfile } from '../../domain/validation.js';
import { bySortKey, residentialPlan } from '../../resolvers/plans.js';
import { bindingsFromConfig, type CompiledFeedBinding } from '../../transforms/mapping/index.js';
import { offer } from '../support/offer.js';

const SETTINGS = { enrollmentBaseUrl: 'https://enroll.example.com', utmSource: 'test', fillPartnerRef: false };

// ---- generators: plans with tiered blocks, credits, minimum-usage fees and delivery charges -----

const offerArb = fc
  .record({
    id: fc.string({ minLength: 1, maxLength: 6 }),
    blocks: fc.array(fc.record({ width: fc.integer({ min: 1, max: 3000 }), rate: fc.integer({ min: 0, max: 400_000 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
    base: fc.integer({ min: 0, max: 50_000_000 }),
    credits: fc.array(fc.record({ minKwh: fc.integer({ min: 0, max: 3000 }), micro: fc.integer({ min: 0, max: 200_000_000 }) }), {
      maxLength: 2,
    }),
    fee: fc.option(fc.record({ belowKwh: fc.integer({ min: 1, max: 2000 }), micro: fc.integer({ min: 0, max: 20_000_000 }) }), {
      nil: null,
    }),
    term: fc.constantFrom(0, 1, 6, 12, 24, 36),
    fixed: fc.integer({ min: 0, max: 20_000_000 }),
    perKwh: fc.integer({ min: 0, max: 100_000 }),
  })
  .map(({ id, blocks, base, credits, fee, term, fixed, perKwh }) => {
    let from = 0;
    const energyBlocks = blocks.map((b, i) => {
      const to = i === blocks.length - 1 ? null : from + b.width;
      const block = { fromKwh: from, toKwh: to, microUsdPerKwh: b.rate };
      if (to !== null) from = to;
      return block;
    });
    return {
      offer: offer({ offerId: id, energyBlocks, baseMonthlyMicro: base, credits, minimumUsageFee: fee, termMonths: term }),
      delivery: { fixedMonthlyMicro: fixed, perKwhMicro: perKwh } as DeliveryCharges,
    };
  });

const monthArb = fc.oneof(
  fc.integer({ min: 0, max: 100_000 }),
  fc.integer({ min: 0, max: 3000 }),
  fc.constantFrom(0, 499, 500, 999, 1000, 1001, 2000),
);
const profileArb = fc.array(monthArb, { minLength: 12, maxLength: 12 });

/** Half-up to cents of exact micro-USD, on BigInt: independent of the code under test. */
const centsOf = (micro: bigint) => (micro * 2n + 10_000n) / 20_000n;

describe('annualCost', () => {
  it('each billUsd is the bill at that usage; totalUsd is the rounded exact sum', () => {
    fc.assert(
      fc.property(offerArb, profileArb, ({ offer: o, delivery }, profile) => {
        const year = annualCost(o, delivery, profile);
        let sum = 0n;
        year.months.forEach((m, i) => {
          const bill = monthlyBillMicro(o, delivery, profile[i]!);
          expect(m).toEqual({ month: i + 1, usageKwh: profile[i], billMicro: bill, billUsd: Number(centsOf(BigInt(bill))) / 100 });
          sum += BigInt(bill);
        });
        expect(BigInt(year.totalMicro)).toBe(sum);
        expect(BigInt(year.totalCents)).toBe(centsOf(sum));
        expect(year.totalUsd).toBe(Number(centsOf(sum)) / 100);
        const kwh = profile.reduce((a, b) => a + b, 0);
        if (kwh === 0) expect(year.averageRateUsdPerKwh).toBeNull();
        else expect(year.averageRateUsdPerKwh).toBe(Number((sum * 2n + BigInt(kwh)) / (2n * BigInt(kwh))) / 1e6);
      }),
      { numRuns: 500 },
    );
  });

  it('a flat profile costs twelve times the month (terms shorter than a year priced on the plan all year)', () => {
    const o = offer({ termMonths: 1, baseMonthlyMicro: 9_950_000, credits: [{ minKwh: 1000, micro: 50_000_000 }] });
    const d = { fixedMonthlyMicro: 4_230_000, perKwhMicro: 51_893 };
    const year = annualCost(o, d, new Array(12).fill(1000));
    expect(year.totalMicro).toBe(12 * monthlyBillMicro(o, d, 1000));
  });

  it('rounds the exact sum once, not the rounded months', () => {
    // 0.004 USD a month: each month rounds to 0.00, the year to 0.05.
    const o = offer({ energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 4000 }] });
    const year = annualCost(o, { fixedMonthlyMicro: 0, perKwhMicro: 0 }, new Array(12).fill(1));
    expect(year.months.every((m) => m.billUsd === 0)).toBe(true);
    expect(year.totalUsd).toBe(0.05);
  });

  it('refuses a profile of other than 12 months', () => {
    expect(() => annualCost(offer(), { fixedMonthlyMicro: 0, perKwhMicro: 0 }, [1000])).toThrow(/12 months/);
  });
});

describe('ranking by the year', () => {
  it('orders plans by totalUsd, then by id', () => {
    fc.assert(
      fc.property(fc.array(offerArb, { minLength: 2, maxLength: 8 }), profileArb, (plans, profile) => {
        const ranked = plans
          .map(({ offer: o, delivery }) => residentialPlan(o, delivery, '75001', undefined, SETTINGS, null, null, profile))
          .sort(bySortKey);
        for (let i = 1; i < ranked.length; i++) {
          const [a, b] = [ranked[i - 1]!, ranked[i]!];
          const [ca, cb] = [Math.round(a.annualCost!.totalUsd * 100), Math.round(b.annualCost!.totalUsd * 100)];
          expect(ca <= cb).toBe(true);
          if (ca === cb) expect(a.id < b.id || a.id === b.id).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('without a profile there is no annual cost and the order stays the bill at 1000 kWh', () => {
    const o = offer();
    const d = { fixedMonthlyMicro: 0, perKwhMicro: 0 };
    const p = residentialPlan(o, d, '75001', undefined, SETTINGS, null);
    expect(p.annualCost).toBeNull();
    expect(p.sortMicro).toBe(monthlyBillMicro(o, d, 1000));
  });
});

describe('rateSpread', () => {
  it('is the lowest and highest published tier rate over 500..2000 kWh in 100 kWh steps', () => {
    expect(SPREAD_USAGES).toEqual([500, 600, 700, 800, 900, 1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900, 2000]);
    fc.assert(
      fc.property(offerArb, ({ offer: o, delivery }) => {
        const s = rateSpread(o, delivery);
        const rates = SPREAD_USAGES.map((u) => rateTier(o, delivery, u).allInRateUsdPerKwh);
        expect(s.minRateUsdPerKwh).toBe(Math.min(...rates));
        expect(s.maxRateUsdPerKwh).toBe(Math.max(...rates));
        expect(s.minAtKwh).toBe(SPREAD_USAGES[rates.indexOf(s.minRateUsdPerKwh)]);
        expect(s.maxAtKwh).toBe(SPREAD_USAGES[rates.indexOf(s.maxRateUsdPerKwh)]);
        expect(s.creditThresholdKwh).toBe(o.credits.length ? Math.min(...o.credits.map((c) => c.minKwh)) : null);
      }),
      { numRuns: 300 },
    );
  });

  it('shows where a credit plan is cheapest and what it costs just below', () => {
    const o = offer({
      energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 150_000 }],
      credits: [{ minKwh: 1000, micro: 100_000_000 }],
    });
    const s = rateSpread(o, { fixedMonthlyMicro: 4_230_000, perKwhMicro: 51_893 });
    expect(s).toMatchObject({ minAtKwh: 1000, maxAtKwh: 500, creditThresholdKwh: 1000 });
    expect(rateTier(o, { fixedMonthlyMicro: 4_230_000, perKwhMicro: 51_893 }, 900).allInRateUsdPerKwh).toBeGreaterThan(
      s.minRateUsdPerKwh + 0.1,
    );
  });
});

describe('spreadByShape', () => {
  it('sums to the annual usage, each month within one kWh of its exact share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_200_000 }),
        fc.array(fc.integer({ min: 0, max: 30_000_000 }), { minLength: 12, maxLength: 12 }).filter((w) => w.some((x) => x > 0)),
        (annual, weights) => {
          const months = spreadByShape(annual, weights);
          expect(months.reduce((a, b) => a + b, 0)).toBe(annual);
          const total = weights.reduce((a, b) => a + b, 0);
          months.forEach((kwh, i) => {
            expect(Number.isInteger(kwh)).toBe(true);
            expect(Math.abs(kwh - (annual * weights[i]!) / total)).toBeLessThan(1);
            if (weights[i] === 0) expect(kwh).toBe(0);
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives leftover kWh to the largest remainders, the earliest month on a tie', () => {
    expect(spreadByShape(14, new Array(12).fill(1))).toEqual([2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    // 12000 × 1/14 = 857 rest 2; 12000 × 2/14 = 1714 rest 4: the two kWh left go to July and August.
    expect(spreadByShape(12_000, [1, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1])).toEqual([
      857, 857, 857, 857, 857, 857, 1715, 1715, 857, 857, 857, 857,
    ]);
  });

  it('refuses a shape of other than 12 months or without usage', () => {
    expect(() => spreadByShape(1000, [1, 2, 3])).toThrow(/12 months/);
    expect(() => spreadByShape(1000, new Array(12).fill(0))).toThrow(/needs some usage/);
  });
});

describe('the usage-shape feed (.meshrc.yaml EiaMonthlySales)', () => {
  const MESHRC = fileURLToPath(new URL('../../.meshrc.yaml', import.meta.url));
  const quiet = { log() {}, warn() {}, info() {}, error() {}, debug() {}, child: () => quiet } as never;
  const config = loadYaml(MESHRC, readFileSync(MESHRC, 'utf8'), quiet) as { sources: unknown[] };
  const feed = bindingsFromConfig(config).find((b) => b.source === 'EiaMonthlySales') as CompiledFeedBinding<'usageShape'>;
  const sample = JSON.parse(readFileSync(new URL('../../sources/eia-monthly-sales/sample.json', import.meta.url), 'utf8'));

  it('maps the sample to twelve monthly MWh, January first', () => {
    const { records, rejected } = feed.map(sample);
    expect(rejected).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ state: 'TX', year: 2023 });
    expect(records[0]!.monthlyMwh).toEqual(sample.series[0].data.map((m: { salesThousandMwh: number }) => m.salesThousandMwh * 1000));
  });

  it('maps months in any order, and rejects a series missing or repeating a month', () => {
    const data = sample.series[0].data as { month: number }[];
    const shuffled = feed.map({ ...sample, series: [{ ...sample.series[0], data: [...data].reverse() }] });
    expect(shuffled.records[0]!.monthlyMwh).toEqual(feed.map(sample).records[0]!.monthlyMwh);
    const repeated = feed.map({ ...sample, series: [{ ...sample.series[0], data: [...data.slice(0, 11), { ...data[0] }] }] });
    expect(repeated.records).toEqual([]);
    expect(repeated.rejected[0]!.reason).toMatch(/month 1 is listed twice/);
    expect(feed.map({ ...sample, series: [{ ...sample.series[0], data: data.slice(1) }] }).records).toEqual([]);
    expect(feed.map({ state: 'NH', series: [] })).toMatchObject({ records: [], rejected: [] });
  });
});

describe('usageProfile and annualUsageKwh arguments', () => {
  const refused = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(InputError);
      return (err as InputError).message;
    }
    throw new Error('accepted');
  };

  it('accepts twelve whole numbers 0..100000, and nothing', () => {
    expect(usageProfile(new Array(12).fill(0))).toEqual(new Array(12).fill(0));
    expect(usageProfile([...new Array(11).fill(1), 100_000])).toHaveLength(12);
    expect(usageProfile(undefined)).toBeNull();
    expect(annualUsageKwh(null)).toBeNull();
    expect(annualUsageKwh(1_200_000)).toBe(1_200_000);
  });

  it('refuses other counts and values out of range, naming the argument', () => {
    expect(refused(() => usageProfile(new Array(11).fill(1)))).toMatch(/^Invalid usageProfile: must list exactly 12 .* got 11/);
    expect(refused(() => usageProfile(new Array(13).fill(1)))).toMatch(/exactly 12/);
    expect(refused(() => usageProfile([...new Array(11).fill(1), 1.5]))).toMatch(/usageProfile\[11\]: must be a whole number/);
    expect(refused(() => usageProfile([-1, ...new Array(11).fill(1)]))).toMatch(/usageProfile\[0\].*from 0 to 100000/);
    expect(refused(() => usageProfile([100_001, ...new Array(11).fill(1)]))).toMatch(/usageProfile\[0\]/);
    expect(refused(() => annualUsageKwh(0))).toMatch(/annualUsageKwh.*from 1 to 1200000/);
    expect(refused(() => annualUsageKwh(1_200_001))).toMatch(/annualUsageKwh/);
  });
});
