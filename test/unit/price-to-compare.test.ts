// Savings against the Price to Compare (domain/price-to-compare.ts), exact to the cent.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defaultServiceBillMicro, inEffect, monthlySavingsCents } from '../../domain/price-to-compare.js';
import { monthlyBillMicro } from '../../domain/pricing.js';
import type { CanonicalOffer, PriceToCompare } from '../../domain/canonical.js';

const PECO_PTC: PriceToCompare = { microPerKwh: 98_500, effective: '2026-06-01', expires: '2027-05-31' };
const PECO_DELIVERY = { fixedMonthlyMicro: 11_450_000, perKwhMicro: 79_480 };

const offer = (over: Partial<CanonicalOffer> = {}): CanonicalOffer => ({
  feed: 'Voltify',
  offerId: 'A',
  supplierName: 'S',
  title: 'T',
  customerClass: 'RESIDENTIAL',
  utilityId: 'PECO',
  rateType: 'FIXED',
  termMonths: 12,
  energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 89_900 }],
  baseMonthlyMicro: 4_950_000,
  credits: [],
  minimumUsageFee: null,
  renewablePercent: 0,
  cancellationFeeMicro: 0,
  enrollmentFeeMicro: 0,
  ...over,
});

describe('monthlySavingsCents', () => {
  it('the worked example of docs/partners.md: PECO, 725 kWh, 8.99 c/kWh + $4.95 a month -> $1.29', () => {
    // default service: 725 x 0.0985 + 11.45 + 725 x 0.07948 = 71.4125 + 69.073 = 140.4855
    expect(defaultServiceBillMicro(PECO_PTC, PECO_DELIVERY, 725)).toBe(140_485_500);
    // plan: 725 x 0.0899 + 4.95 + 69.073 = 139.2005
    const bill = monthlyBillMicro(offer(), PECO_DELIVERY, 725);
    expect(bill).toBe(139_200_500);
    // 1.285 rounds half away from zero to 1.29
    expect(monthlySavingsCents(PECO_PTC, PECO_DELIVERY, 725, bill)).toBe(129);
  });

  it('is negative when the plan costs more, and rounds halves away from zero both ways', () => {
    const dear = offer({ energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 108_100 }], baseMonthlyMicro: 0 });
    // 725 x (0.0985 - 0.1081) = -6.96
    expect(monthlySavingsCents(PECO_PTC, PECO_DELIVERY, 725, monthlyBillMicro(dear, PECO_DELIVERY, 725))).toBe(-696);
    expect(monthlySavingsCents(PECO_PTC, { fixedMonthlyMicro: 0, perKwhMicro: 0 }, 1, 98_500 + 5_000)).toBe(-1); // -0.5 cent -> -1
    expect(monthlySavingsCents(PECO_PTC, { fixedMonthlyMicro: 0, perKwhMicro: 0 }, 1, 98_500 - 5_000)).toBe(1);
    expect(monthlySavingsCents(PECO_PTC, { fixedMonthlyMicro: 0, perKwhMicro: 0 }, 1, 98_500 - 4_999)).toBe(0);
  });

  it('equals the exact difference rounded once (property, integer arithmetic oracle)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400_000 }),
        fc.integer({ min: 0, max: 50_000_000 }),
        fc.integer({ min: 0, max: 300_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 0, max: 2_000_000_000 }),
        (ptc, fixed, perKwh, usage, bill) => {
          const diff = BigInt(usage) * BigInt(ptc) + BigInt(fixed) + BigInt(usage) * BigInt(perKwh) - BigInt(bill);
          const abs = diff < 0n ? -diff : diff;
          const cents = (abs + 5_000n) / 10_000n;
          const expected = Number(diff < 0n ? -cents : cents);
          const got = monthlySavingsCents(
            { microPerKwh: ptc, effective: '2026-01-01', expires: '2026-12-31' },
            { fixedMonthlyMicro: fixed, perKwhMicro: perKwh },
            usage,
            bill,
          );
          expect(got).toBe(expected === 0 ? 0 : expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('rejects nonsense usage and overflowing input', () => {
    expect(() => defaultServiceBillMicro(PECO_PTC, PECO_DELIVERY, -1)).toThrow(RangeError);
    expect(() => defaultServiceBillMicro(PECO_PTC, PECO_DELIVERY, 1.5)).toThrow(RangeError);
    expect(() => defaultServiceBillMicro({ ...PECO_PTC, microPerKwh: Number.MAX_SAFE_INTEGER }, PECO_DELIVERY, 100)).toThrow(RangeError);
  });
});

describe('inEffect', () => {
  it('includes the effective and expiry days', () => {
    expect(inEffect(PECO_PTC, '2026-05-31')).toBe(false);
    expect(inEffect(PECO_PTC, '2026-06-01')).toBe(true);
    expect(inEffect(PECO_PTC, '2027-05-31')).toBe(true);
    expect(inEffect(PECO_PTC, '2027-06-01')).toBe(false);
  });
});
