import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MoneyFormatError,
  formatMicro,
  microFromCents,
  microFromUsdPerMwh,
  microToNumber,
  parseMicro,
  roundDiv,
  toExactDecimal,
} from '../../domain/money.js';

function reason(fn: () => unknown): MoneyFormatError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MoneyFormatError);
    return e as MoneyFormatError;
  }
  throw new Error('expected MoneyFormatError');
}

describe('parseMicro', () => {
  it('converts decimal numbers and strings exactly', () => {
    expect(parseMicro(0.1, 'f')).toBe(100_000);
    expect(parseMicro(9.95, 'f')).toBe(9_950_000);
    expect(parseMicro(0.051893, 'f')).toBe(51_893);
    expect(parseMicro('12.345678', 'f')).toBe(12_345_678);
    expect(parseMicro(100, 'f')).toBe(100_000_000);
    expect(parseMicro('0', 'f')).toBe(0);
    expect(parseMicro(0.000001, 'f')).toBe(1);
    expect(parseMicro('1.5000000', 'f')).toBe(1_500_000); // trailing zeros carry no precision
  });

  it('keeps the sign, normalizes -0, and can refuse negatives', () => {
    expect(parseMicro(-1.5, 'f')).toBe(-1_500_000);
    expect(Object.is(parseMicro(-0, 'f'), 0)).toBe(true);
    expect(Object.is(parseMicro('-0', 'f'), 0)).toBe(true);
    expect(Object.is(parseMicro('-0.000', 'f'), 0)).toBe(true);
    expect(reason(() => parseMicro(-0.01, 'fee', { nonNegative: true })).field).toBe('fee');
    expect(parseMicro(-0, 'f', { nonNegative: true })).toBe(0);
  });

  it('rejects more than 6 decimals, naming the field', () => {
    const e = reason(() => parseMicro(1.1234567, 'pricing.amount'));
    expect(e.field).toBe('pricing.amount');
    expect(e.message).toContain('pricing.amount');
    expect(e.reason).toMatch(/more than 6 decimal/);
    reason(() => parseMicro(0.1 + 0.2, 'f')); // 0.30000000000000004
    reason(() => parseMicro('0.0000001', 'f'));
  });

  it('expands String() exponent forms exactly', () => {
    expect(String(1e-7)).toBe('1e-7');
    expect(reason(() => parseMicro(1e-7, 'f')).reason).toMatch(/decimal places/);
    expect(reason(() => parseMicro('1e-7', 'f')).reason).toMatch(/decimal places/);
    expect(reason(() => parseMicro(5e-7, 'f')).reason).toMatch(/decimal places/);
    expect(toExactDecimal('1.5e-7', 'f')).toEqual({ digits: 15n, scale: 8 });
    expect(toExactDecimal(1e21, 'f')).toEqual({ digits: 10n ** 21n, scale: 0 });
    expect(toExactDecimal('-2.5e+3', 'f')).toEqual({ digits: -2500n, scale: 0 });
    expect(reason(() => parseMicro(1e21, 'f')).reason).toMatch(/too large/);
  });

  it('rejects exponent text String() would not produce, and malformed strings', () => {
    for (const bad of [
      '1E5',
      '1e5',
      '1e+05',
      '10e-7',
      '1.e-7',
      '1e-9999',
      ' 1.5',
      '1.5 ',
      '1 .5',
      '',
      '+1',
      '.5',
      '5.',
      '0x10',
      '1_000',
      '1,5',
      '007',
      'NaN',
      'Infinity',
      '-',
      '１２',
      '1.5\u0000',
      '--1',
    ]) {
      expect(() => parseMicro(bad, 'f'), bad).toThrow(MoneyFormatError);
    }
    expect(() => parseMicro('1'.repeat(10_000), 'f')).toThrow(MoneyFormatError);
  });

  it('rejects NaN, infinities, non-number types and unsafe results', () => {
    for (const bad of [NaN, Infinity, -Infinity]) expect(() => parseMicro(bad, 'f')).toThrow(MoneyFormatError);
    for (const bad of [null, undefined, true, {}, [], 1n]) {
      expect(() => parseMicro(bad as unknown as number, 'f')).toThrow(MoneyFormatError);
    }
    expect(parseMicro('9007199254.740991', 'f')).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseMicro('-9007199254.740991', 'f')).toBe(-Number.MAX_SAFE_INTEGER);
    expect(reason(() => parseMicro('9007199254.740992', 'f')).reason).toMatch(/too large/);
    expect(() => parseMicro(1e20, 'f')).toThrow(MoneyFormatError);
    expect(() => parseMicro(Number.MAX_VALUE, 'f')).toThrow(MoneyFormatError);
  });

  it('round-trips format -> parse for every safe integer, and through JSON numbers up to 15 digits', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (m) => {
        expect(parseMicro(formatMicro(m, 6), 'f')).toBe(m);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: -(10 ** 15) + 1, max: 10 ** 15 - 1 }), (m) => {
        const n = JSON.parse(JSON.stringify(microToNumber(m, 6))) as number;
        expect(parseMicro(n, 'f')).toBe(m);
      }),
    );
  });
});

describe('unit conversions', () => {
  it('cents -> micro', () => {
    expect(microFromCents(12.4, 'c')).toBe(124_000);
    expect(microFromCents(10.9, 'c')).toBe(109_000);
    expect(microFromCents('0.0001', 'c')).toBe(1);
    expect(microFromCents(15.27, 'c')).toBe(152_700);
    expect(() => microFromCents(12.34567, 'c')).toThrow(MoneyFormatError);
    expect(() => microFromCents(-1, 'c', { nonNegative: true })).toThrow(MoneyFormatError);
  });

  it('USD/MWh -> micro per kWh', () => {
    expect(microFromUsdPerMwh(45.5, 'w')).toBe(45_500);
    expect(microFromUsdPerMwh('0.001', 'w')).toBe(1);
    expect(microFromUsdPerMwh(-12, 'w')).toBe(-12_000); // negative wholesale prices exist
    expect(() => microFromUsdPerMwh(45.1234, 'w')).toThrow(MoneyFormatError);
  });
});

describe('roundDiv', () => {
  it('rounds halves away from zero', () => {
    expect(roundDiv(5, 10)).toBe(1);
    expect(roundDiv(4, 10)).toBe(0);
    expect(roundDiv(15, 10)).toBe(2);
    expect(roundDiv(-5, 10)).toBe(-1);
    expect(roundDiv(-4, 10)).toBe(0);
    expect(Object.is(roundDiv(-4, 10), 0)).toBe(true);
    expect(roundDiv(5, -10)).toBe(-1);
    expect(roundDiv(-15, -10)).toBe(2);
    expect(roundDiv(Number.MAX_SAFE_INTEGER, 2)).toBe(4503599627370496);
    expect(() => roundDiv(1, 0)).toThrow(RangeError);
    expect(() => roundDiv(0.5, 1)).toThrow(RangeError);
    expect(() => roundDiv(2 ** 53, 1)).toThrow(RangeError);
  });

  it('matches a BigInt reference', () => {
    const nonZero = fc.maxSafeInteger().filter((d) => d !== 0);
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.oneof(nonZero, fc.integer({ min: 1, max: 1000 })), (n, d) => {
        const N = BigInt(n);
        const D = BigInt(d);
        const aN = N < 0n ? -N : N;
        const aD = D < 0n ? -D : D;
        let q = aN / aD;
        if (2n * (aN % aD) >= aD) q += 1n;
        const expected = N < 0n !== D < 0n ? -q : q;
        expect(roundDiv(n, d)).toBe(Number(expected));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('formatMicro / microToNumber', () => {
  it('writes exact fixed-point text', () => {
    expect(formatMicro(124_000)).toBe('0.124000');
    expect(formatMicro(124_000, 4)).toBe('0.1240');
    expect(formatMicro(-1_500_000, 2)).toBe('-1.50');
    expect(formatMicro(5, 0)).toBe('0');
    expect(formatMicro(500_000, 0)).toBe('1');
    expect(formatMicro(-500_000, 0)).toBe('-1');
    expect(formatMicro(-4, 5)).toBe('0.00000');
    expect(formatMicro(12_345, 2)).toBe('0.01');
    expect(formatMicro(Number.MAX_SAFE_INTEGER, 6)).toBe('9007199254.740991');
    expect(() => formatMicro(1, 7)).toThrow(RangeError);
    expect(() => formatMicro(0.5, 2)).toThrow(RangeError);
  });

  it('numbers print as that exact text', () => {
    expect(microToNumber(123_451, 6)).toBe(0.123451);
    expect(microToNumber(102_100_000, 1)).toBe(102.1);
    expect(String(microToNumber(300_000, 6))).toBe('0.3');
    expect(Object.is(microToNumber(-4, 5), 0)).toBe(true);
    expect(() => microToNumber(1, 7)).toThrow(RangeError);
    expect(() => microToNumber(0.5, 2)).toThrow(RangeError);
  });

  it('a number is the one its exact text parses to, for every safe integer and every precision', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.integer({ min: 0, max: 6 }), (m, d) => {
        expect(Object.is(microToNumber(m, d), Number(formatMicro(m, d)))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    // Halves, the largest amounts and amounts just past a rounding step, at every precision.
    for (const m of [
      5,
      50,
      500,
      5_000,
      50_000,
      500_000,
      -5,
      -500_000,
      4_999,
      5_001,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      123_456_789_012_345,
    ])
      for (let d = 0; d <= 6; d++) expect(Object.is(microToNumber(m, d), Number(formatMicro(m, d)))).toBe(true);
  });
});
