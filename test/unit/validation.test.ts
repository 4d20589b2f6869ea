import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InputError, US_STATES, address, annualUsage, isoDate, monthlyUsage, state, utilityId, zipCode } from '../../domain/validation.js';

function inputError(fn: () => unknown, argument: string): InputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    const err = e as InputError;
    expect(err.argument).toBe(argument);
    expect(err.message).toContain(argument);
    expect(err.code).toBe('BAD_USER_INPUT');
    return err;
  }
  throw new Error('expected InputError');
}

const HOSTILE: unknown[] = [
  null,
  undefined,
  '',
  ' ',
  0,
  -1,
  1.5,
  NaN,
  Infinity,
  true,
  {},
  [],
  ['75001'],
  75001n,
  '\u0000',
  '75001\u0000',
  'x'.repeat(10_000),
  '<script>',
  "' OR 1=1 --",
  '\u202e',
  '\ud800',
];

describe('zipCode', () => {
  it('accepts exactly 5 ASCII digits', () => {
    expect(zipCode('75001')).toBe('75001');
    expect(zipCode('00501')).toBe('00501');
  });
  it('rejects hostile values', () => {
    for (const bad of [
      ...HOSTILE,
      '00000',
      '7500',
      '750011',
      ' 75001',
      '75001 ',
      '7500١',
      '٧٥٠٠١',
      '７５００１',
      '75001\n',
      '75-01',
      '75001-1234',
      75001,
      '+7500',
      '7500a',
      '\u00007500',
    ]) {
      inputError(() => zipCode(bad), 'zipCode');
    }
    inputError(() => zipCode('x', 'input.zip'), 'input.zip');
  });
  it('never echoes the input', () => {
    expect(inputError(() => zipCode('<img src=x>'), 'zipCode').message).not.toContain('<img');
  });
});

describe('usage', () => {
  it('monthlyUsage: integer 1..100000, null ok', () => {
    expect(monthlyUsage(null)).toBeNull();
    expect(monthlyUsage(undefined)).toBeNull();
    expect(monthlyUsage(1)).toBe(1);
    expect(monthlyUsage(100_000)).toBe(100_000);
    for (const bad of [0, -1, 100_001, 1.5, NaN, Infinity, '1000', 1000n, true, {}, -0.5, 2 ** 53]) {
      inputError(() => monthlyUsage(bad), 'monthlyUsage');
    }
  });
  it('annualUsage: integer 1..100000000, required', () => {
    expect(annualUsage(1)).toBe(1);
    expect(annualUsage(100_000_000)).toBe(100_000_000);
    for (const bad of [null, undefined, 0, 100_000_001, 12.5, '12000', NaN]) inputError(() => annualUsage(bad), 'annualUsage');
  });
});

describe('state', () => {
  it('has the 50 states and DC', () => {
    expect(Object.keys(US_STATES)).toHaveLength(51);
    expect(US_STATES.DC).toBe('District of Columbia');
    expect(US_STATES.TX).toBe('Texas');
    expect(US_STATES.PR).toBeUndefined();
  });
  it('normalizes case', () => {
    expect(state('tx')).toBe('TX');
    expect(state('Dc')).toBe('DC');
    for (const code of Object.keys(US_STATES)) expect(state(code.toLowerCase())).toBe(code);
  });
  it('rejects unknown codes and hostile values', () => {
    for (const bad of [...HOSTILE, 'PR', 'GU', 'XX', 'T', 'TEX', ' TX', 'TX ', 'T\u0000', 'ＴＸ', 'tX\n', '__', 'hasOwnProperty', 'to']) {
      const e = inputError(() => state(bad), 'state');
      expect(e.message).toMatch(/US state code/);
    }
  });
});

describe('utilityId', () => {
  it('accepts upper-case tokens exactly', () => {
    expect(utilityId('ONCOR')).toBe('ONCOR');
    expect(utilityId('CENTERPOINT_2')).toBe('CENTERPOINT_2');
    expect(utilityId('A'.repeat(40))).toBe('A'.repeat(40));
  });
  it('rejects everything else', () => {
    for (const bad of [...HOSTILE, 'oncor', 'Oncor', 'O', '1ONCOR', '_ONCOR', 'ONCOR-1', 'ONCOR ', 'A'.repeat(41), 'ONCÖR', 'ONCOR\n']) {
      inputError(() => utilityId(bad), 'utilityId');
    }
  });
});

describe('address', () => {
  it('accepts ordinary addresses, trimmed and NFC-normalized', () => {
    expect(address('  1500 Marilla St  ')).toBe('1500 Marilla St');
    expect(address("12 O'Brien Rd., Apt #4-B, c/o Smith & Sons")).toBe("12 O'Brien Rd., Apt #4-B, c/o Smith & Sons");
    expect(address('1 Calle Pen\u0303asco')).toBe('1 Calle Peñasco');
    expect(address('x'.repeat(200))).toHaveLength(200);
  });
  it('rejects hostile values', () => {
    for (const bad of [
      null,
      undefined,
      42,
      {},
      '',
      '   ',
      'x'.repeat(201),
      'x'.repeat(10_000),
      '1500 Main\u0000St',
      '1500\tMain',
      '1500 Main\nSt',
      'a<b',
      'a;b',
      'a"b',
      '\u202eevil',
      '\ud800',
      'a\u200bb',
      '1500 Main St ١',
      'rm -rf $HOME',
      'a\u00a0b',
    ]) {
      inputError(() => address(bad), 'address');
    }
  });
  it('never throws anything but InputError and returns allowed text only', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.anything()), (v) => {
        try {
          const out = address(v);
          expect(out.length).toBeGreaterThan(0);
          expect(out.length).toBeLessThanOrEqual(200);
          expect(out).not.toMatch(/[\u0000-\u001f\u007f]/);
        } catch (e) {
          expect(e).toBeInstanceOf(InputError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('isoDate', () => {
  it('accepts real YYYY-MM-DD dates only', () => {
    expect(isoDate('2028-02-29', 'requestedDate')).toBe('2028-02-29');
    expect(isoDate('2026-12-31')).toBe('2026-12-31');
    for (const bad of [
      '2027-02-29',
      '2026-02-30',
      '2026-13-01',
      '2026-00-10',
      '2026-1-01',
      ' 2026-01-01',
      '2026-01-01T00:00:00Z',
      '1999-12-31',
      '2200-01-01',
      '',
      '２０２６-01-01',
      '2026/01/01',
      'x'.repeat(100_000),
      null,
      undefined,
      20260101,
      {},
      ['2026-01-01'],
    ]) {
      expect(() => isoDate(bad, 'requestedDate'), String(bad).slice(0, 20)).toThrow(
        /Invalid requestedDate: must be a date written YYYY-MM-DD/,
      );
    }
  });
  it('never throws anything but InputError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.anything()), (v) => {
        try {
          expect(isoDate(v)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        } catch (e) {
          expect(e).toBeInstanceOf(InputError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
