import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { CanonicalOffer, DeliveryCharges } from '../../domain/canonical.js';
import { parseMicro } from '../../domain/money.js';
import {
  annualEstimate,
  basePriceMicro,
  basePriceUsdPerKwh,
  monthlyBillMicro,
  monthlySplit,
  rateTier,
  rateTiers,
  tierUsages,
  type RateTier,
} from '../../domain/pricing.js';
import { offer } from '../support/offer.js';

const NO_DELIVERY: DeliveryCharges = { fixedMonthlyMicro: 0, perKwhMicro: 0 };
const ONCOR: DeliveryCharges = { fixedMonthlyMicro: 4_230_000, perKwhMicro: 51_893 };

/** The docs/feeds.md voltify example. */
const VOLTIFY = offer({
  energyBlocks: [
    { fromKwh: 0, toKwh: 1000, microUsdPerKwh: 124_000 },
    { fromKwh: 1000, toKwh: null, microUsdPerKwh: 109_000 },
  ],
  baseMonthlyMicro: 9_950_000,
  credits: [{ minKwh: 1000, micro: 100_000_000 }],
  minimumUsageFee: { belowKwh: 500, micro: 9_950_000 },
});

// ---- independent checks of the published relation ------------------------------------------
// Plain throws instead of expect(): these run 100k+ times and must stay cheap.

function same(actual: unknown, expected: unknown, what: string, t: RateTier): void {
  if (!Object.is(actual, expected)) {
    throw new Error(`${what}: got ${String(actual)}, expected ${String(expected)} for ${JSON.stringify(t)}`);
  }
}

/** Exact: u × r on integers, half-up to 0.1 USD. Also asserts there is no tie. */
function checkExact(t: RateTier): void {
  const r = parseMicro(t.allInRateUsdPerKwh, 'rate'); // the published number, back to integers
  const bill = parseMicro(t.avgMonthlyBillUsd, 'bill');
  same(r, t.allInRateMicro, 'published rate', t);
  same(bill, t.billDeci * 100_000, 'published bill', t);
  const p = t.usageKwh * r;
  same(p % 100_000 === 50_000, false, 'tie', t);
  same(Math.floor(p / 100_000) + (p % 100_000 >= 50_000 ? 1 : 0), t.billDeci, 'exact half-up', t);
}

/** What a JS client would write. */
function checkFloat(t: RateTier): void {
  same(Math.round(t.usageKwh * t.allInRateUsdPerKwh * 10) / 10, t.avgMonthlyBillUsd, 'float Math.round', t);
}

/** Half-even on the exact decimal product, and Python's round(u*r, 1) on the float product. */
function checkBankers(t: RateTier): void {
  const p = BigInt(t.usageKwh) * BigInt(parseMicro(t.allInRateUsdPerKwh, 'rate'));
  let q = p / 100_000n;
  const rem = p % 100_000n;
  if (rem > 50_000n || (rem === 50_000n && q % 2n === 1n)) q += 1n;
  same(Number(q), t.billDeci, 'half-even', t);
  same(pythonRound1(t.usageKwh * t.allInRateUsdPerKwh), t.billDeci, 'python round', t);
}

/** round(x, 1) * 10 as CPython computes it: half-even on the exact binary value of x (x >= 0). */
function pythonRound1(x: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = biased === 0 ? frac : frac | (1n << 52n);
  const e = biased === 0 ? -1074 : biased - 1075;
  let num = mant * 10n;
  let den = 1n;
  if (e >= 0) num <<= BigInt(e);
  else den <<= BigInt(-e);
  let q = num / den;
  const twice = 2n * (num % den);
  if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  return Number(q);
}

function checkAll(t: RateTier): void {
  checkExact(t);
  checkFloat(t);
  checkBankers(t);
  // The published rate is within 1 micro/kWh of the exact all-in rate.
  same(Math.abs(t.usageKwh * t.allInRateMicro - t.exactBillMicro) <= t.usageKwh, true, 'rate error', t);
}

// ---- generators ------------------------------------------------------------------------------

const rateArb = fc.oneof(
  fc.integer({ min: 0, max: 400_000 }),
  fc.integer({ min: 0, max: 4_000 }).map((x) => x * 100), // "round" prices make ties likelier
);
const usageArb = fc.oneof(
  fc.integer({ min: 1, max: 100_000 }),
  fc.integer({ min: 1, max: 10_000 }).map((x) => x * 10),
  fc.constantFrom(1, 500, 750, 1000, 1500, 2000, 99_999, 100_000),
);
const offerArb = fc
  .record({
    blocks: fc.array(fc.record({ width: fc.integer({ min: 1, max: 3000 }), rate: rateArb }), { minLength: 1, maxLength: 3 }),
    base: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: 50_000_000 }),
      fc.integer({ min: 0, max: 5000 }).map((x) => x * 10_000),
    ),
    credits: fc.array(fc.record({ minKwh: fc.integer({ min: 0, max: 3000 }), micro: fc.integer({ min: 0, max: 200_000_000 }) }), {
      maxLength: 3,
    }),
    fee: fc.option(fc.record({ belowKwh: fc.integer({ min: 1, max: 2000 }), micro: fc.integer({ min: 0, max: 20_000_000 }) }), {
      nil: null,
    }),
    fixed: fc.integer({ min: 0, max: 20_000_000 }),
    perKwh: fc.integer({ min: 0, max: 100_000 }),
  })
  .map(({ blocks, base, credits, fee, fixed, perKwh }) => {
    let from = 0;
    const energyBlocks = blocks.map((b, i) => {
      const to = i === blocks.length - 1 ? null : from + b.width;
      const block = { fromKwh: from, toKwh: to, microUsdPerKwh: b.rate };
      if (to !== null) from = to;
      return block;
    });
    return {
      offer: offer({ energyBlocks, baseMonthlyMicro: base, credits, minimumUsageFee: fee }),
      delivery: { fixedMonthlyMicro: fixed, perKwhMicro: perKwh },
    };
  });

/** Brute force: price every kWh on its own. */
function referenceBill(o: CanonicalOffer, d: DeliveryCharges, u: number): number {
  let total = o.baseMonthlyMicro + d.fixedMonthlyMicro;
  for (let k = 0; k < u; k++) {
    const b = o.energyBlocks.find((x) => k >= x.fromKwh && (x.toKwh === null || k < x.toKwh))!;
    total += b.microUsdPerKwh + d.perKwhMicro;
  }
  if (o.minimumUsageFee && u < o.minimumUsageFee.belowKwh) total += o.minimumUsageFee.micro;
  for (const c of o.credits) if (u >= c.minKwh) total -= c.micro;
  return Math.max(0, total);
}

// ---- tests -----------------------------------------------------------------------------------

describe('monthlyBillMicro', () => {
  it('prices the feeds.md example', () => {
    // 500 kWh: 62.00 energy + 9.95 base + 4.23 + 25.9465 delivery; no min fee at exactly 500
    expect(monthlyBillMicro(VOLTIFY, ONCOR, 500)).toBe(102_126_500);
    expect(monthlyBillMicro(VOLTIFY, ONCOR, 499)).toBe(102_126_500 - 124_000 - 51_893 + 9_950_000);
    // 1000 kWh: 124.00 + 9.95 + 4.23 + 51.893 - 100 credit
    expect(monthlyBillMicro(VOLTIFY, ONCOR, 1000)).toBe(90_073_000);
    expect(monthlyBillMicro(VOLTIFY, ONCOR, 2000)).toBe(250_966_000);
    expect(monthlyBillMicro(VOLTIFY, ONCOR, 0)).toBe(9_950_000 + 4_230_000 + 9_950_000);
  });

  it('applies every qualifying credit and clamps at zero', () => {
    const o = offer({
      credits: [
        { minKwh: 0, micro: 1_000_000 },
        { minKwh: 100, micro: 2_000_000 },
        { minKwh: 101, micro: 5 },
      ],
    });
    expect(monthlyBillMicro(o, NO_DELIVERY, 100)).toBe(100 * 120_000 - 3_000_000);
    const big = offer({ credits: [{ minKwh: 1000, micro: 500_000_000 }] });
    expect(monthlyBillMicro(big, ONCOR, 1000)).toBe(0);
  });

  it('matches a kWh-by-kWh reference', () => {
    fc.assert(
      fc.property(offerArb, fc.integer({ min: 0, max: 4000 }), ({ offer: o, delivery }, u) => {
        expect(monthlyBillMicro(o, delivery, u)).toBe(referenceBill(o, delivery, u));
      }),
      { numRuns: 1000 },
    );
  });

  it('rejects malformed offers and usages', () => {
    expect(() => monthlyBillMicro(VOLTIFY, ONCOR, -1)).toThrow(RangeError);
    expect(() => monthlyBillMicro(VOLTIFY, ONCOR, 1.5)).toThrow(RangeError);
    const closed = offer({ energyBlocks: [{ fromKwh: 0, toKwh: 1000, microUsdPerKwh: 1 }] });
    expect(monthlyBillMicro(closed, ONCOR, 1000)).toBeGreaterThan(0);
    expect(() => monthlyBillMicro(closed, ONCOR, 1001)).toThrow(/no energy price/);
    const gap = offer({
      energyBlocks: [
        { fromKwh: 0, toKwh: 10, microUsdPerKwh: 1 },
        { fromKwh: 11, toKwh: null, microUsdPerKwh: 1 },
      ],
    });
    expect(() => monthlyBillMicro(gap, ONCOR, 5)).toThrow(RangeError);
    expect(() => monthlyBillMicro(offer({ energyBlocks: [] }), ONCOR, 1)).toThrow(/no energy price/);
    expect(() => monthlyBillMicro(offer({ baseMonthlyMicro: 0.5 }), ONCOR, 1)).toThrow(RangeError);
    expect(() => monthlyBillMicro(offer({ credits: [{ minKwh: 0, micro: -1 }] }), ONCOR, 1)).toThrow(RangeError);
  });
});

describe('rateTiers', () => {
  it('publishes the feeds.md example', () => {
    const tiers = rateTiers(VOLTIFY, ONCOR, tierUsages());
    expect(tiers.map((t) => [t.usageKwh, t.allInRateUsdPerKwh, t.avgMonthlyBillUsd])).toEqual([
      [500, 0.204253, 102.1],
      [1000, 0.090073, 90.1],
      [2000, 0.125483, 251],
    ]);
    tiers.forEach(checkAll);
  });

  it('rates differ across tiers when there is a base charge', () => {
    const o = offer({ baseMonthlyMicro: 9_950_000 });
    const rates = rateTiers(o, ONCOR, [500, 1000, 2000]).map((t) => t.allInRateUsdPerKwh);
    expect(rates).toEqual([0.200253, 0.186073, 0.178983]);
    expect(new Set(rates).size).toBe(3);
  });

  it('nudges an exact tie upward', () => {
    // 1000 kWh × 0.12345 = 123.45 exactly: a tie. Publish 0.123451 -> 123.451 -> 123.5.
    const t = rateTier(offer({ energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 123_450 }] }), NO_DELIVERY, 1000);
    expect(t.exactBillMicro).toBe(123_450_000);
    expect(t.allInRateUsdPerKwh).toBe(0.123451);
    expect(t.avgMonthlyBillUsd).toBe(123.5);
    checkAll(t);
  });

  it('nudges a tie toward the exact rate', () => {
    const flat = (rate: number, credit: number) =>
      offer({ energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: rate }], credits: credit ? [{ minKwh: 0, micro: credit }] : [] });
    // u = 10, bill = 10 × 5_000 + 3 = 50_003: rate 5_000 (exact 5_000.3) -> 50_000 tie -> nudge up to 5_001.
    const up = rateTier(flat(5_000, 0), { fixedMonthlyMicro: 3, perKwhMicro: 0 }, 10);
    expect(up.allInRateMicro).toBe(5_001);
    checkAll(up);
    // u = 10, bill = 10 × 5_000 - 3 = 49_997: rate 5_000 (exact 4_999.7) -> tie -> nudge down to 4_999.
    const down = rateTier(flat(5_000, 3), NO_DELIVERY, 10);
    expect(down.exactBillMicro).toBe(49_997);
    expect(down.allInRateMicro).toBe(4_999);
    expect(down.avgMonthlyBillUsd).toBe(0);
    checkAll(down);
  });

  it('rejects usage 0', () => {
    expect(() => rateTiers(VOLTIFY, ONCOR, [0])).toThrow(RangeError);
    expect(() => rateTier(VOLTIFY, ONCOR, 2.5)).toThrow(RangeError);
  });

  it('CORE: avgMonthlyBillUsd == round(usage × rate, 1) under every rounding convention (100k offers)', () => {
    fc.assert(
      fc.property(offerArb, usageArb, ({ offer: o, delivery }, u) => {
        checkAll(rateTier(o, delivery, u));
      }),
      { numRuns: 100_000 },
    );
  }, 60_000);

  it('holds on constructed ties (exact, above and below the tie)', () => {
    // Solve u × R ≡ 50000 (mod 100000) for R, then build bills at, just above and just below u × R.
    const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
    const inverse = (a: number, m: number): number => {
      let [r0, r1, s0, s1] = [a, m, 1, 0];
      while (r1) {
        const q = Math.floor(r0 / r1);
        [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
      }
      return ((s0 % m) + m) % m;
    };
    const tieCase = fc
      .record({
        u: fc.integer({ min: 1, max: 99_999 }),
        k: fc.integer({ min: 0, max: 50 }),
        side: fc.constantFrom(-1, 0, 1),
        frac: fc.double({ min: 0, max: 1, noNaN: true }),
      })
      .filter(({ u }) => 50_000 % gcd(u, 100_000) === 0)
      .map(({ u, k, side, frac }) => {
        const g = gcd(u, 100_000);
        const m = 100_000 / g;
        const base = ((50_000 / g) * inverse((u / g) % m, m)) % m;
        const R = base + k * m + m; // > 0
        const maxDelta = Math.floor((u - 1) / 2); // stays within the half-up rounding to R
        const delta = side * Math.floor(frac * maxDelta);
        return { u, R, delta };
      });
    let ties = 0;
    fc.assert(
      fc.property(tieCase, ({ u, R, delta }) => {
        expect((u * R) % 100_000).toBe(50_000);
        const o = offer({
          energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: R }],
          credits: delta < 0 ? [{ minKwh: 0, micro: -delta }] : [],
        });
        const t = rateTier(o, { fixedMonthlyMicro: Math.max(0, delta), perKwhMicro: 0 }, u);
        ties++;
        expect(t.allInRateMicro).toBe(delta < 0 ? R - 1 : R + 1);
        checkAll(t);
      }),
      { numRuns: 10_000 },
    );
    expect(ties).toBeGreaterThan(0);
  });
});

describe('tierUsages', () => {
  it('merges the customer usage into the defaults, sorted and unique', () => {
    expect(tierUsages()).toEqual([500, 1000, 2000]);
    expect(tierUsages(null)).toEqual([500, 1000, 2000]);
    expect(tierUsages(1200)).toEqual([500, 1000, 1200, 2000]);
    expect(tierUsages(1000)).toEqual([500, 1000, 2000]);
    expect(tierUsages(50)).toEqual([50, 500, 1000, 2000]);
    expect(tierUsages(7, [30, 10, 10])).toEqual([7, 10, 30]);
  });
});

describe('basePrice', () => {
  it('is the first block energy charge', () => {
    expect(basePriceMicro(VOLTIFY)).toBe(124_000);
    expect(basePriceUsdPerKwh(VOLTIFY)).toBe(0.124);
    expect(() => basePriceUsdPerKwh(offer({ energyBlocks: [] }))).toThrow(RangeError);
  });
});

describe('annualEstimate', () => {
  const smb = offer({ customerClass: 'COMMERCIAL', baseMonthlyMicro: 25_000_000, credits: [{ minKwh: 10_000, micro: 50_000_000 }] });

  it('splits the year evenly into integer months', () => {
    expect(monthlySplit(120_005)).toEqual([10_001, 10_001, 10_001, 10_001, 10_001, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
    expect(monthlySplit(5)).toEqual([1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), (a) => {
        const m = monthlySplit(a);
        expect(m.reduce((s, x) => s + x, 0)).toBe(a);
        expect(Math.max(...m) - Math.min(...m)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 2000 },
    );
  });

  it('sums twelve monthly bills', () => {
    const e = annualEstimate(smb, ONCOR, 120_005);
    const expected = 5 * monthlyBillMicro(smb, ONCOR, 10_001) + 7 * monthlyBillMicro(smb, ONCOR, 10_000);
    expect(e.annualMicro).toBe(expected);
    expect(e.annualCostUsd).toBe(Number((expected / 1e6).toFixed(2)));
    expect(e.allInRateMicro).toBe(Math.round(expected / 120_005));
    // Equal to 12 × the monthly bill when the year divides evenly.
    expect(annualEstimate(smb, ONCOR, 120_000).annualMicro).toBe(12 * monthlyBillMicro(smb, ONCOR, 10_000));
  });

  it('tiers at monthly equivalents of the commercial annual levels', () => {
    const e = annualEstimate(smb, ONCOR, 100_000);
    expect(e.tiers.map((t) => [t.annualUsageKwh, t.usageKwh])).toEqual([
      [60_000, 5_000],
      [100_000, 8_333],
      [120_000, 10_000],
      [240_000, 20_000],
    ]);
    e.tiers.forEach(checkAll);
    expect(annualEstimate(smb, ONCOR, 5, []).tiers).toEqual([]); // 5/12 rounds to 0 kWh/month
    expect(() => annualEstimate(smb, ONCOR, 0)).toThrow(RangeError);
    expect(annualEstimate(smb, ONCOR, 100_000_000).tiers.at(-1)!.usageKwh).toBe(8_333_333);
  });
});
