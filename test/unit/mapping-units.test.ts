import { describe, expect, it } from 'vitest';
import { convertUnit, UnitValueError } from '../../transforms/mapping/units.js';

describe('money and rates -> integer micro-dollars', () => {
  it('converts exactly', () => {
    expect(convertUnit(12.4, 'cents_per_kwh', 'microPerKwh', 'price')).toBe(124_000);
    expect(convertUnit(120.55, 'usd_per_mwh', 'microPerKwh', 'price')).toBe(120_550);
    expect(convertUnit(0.1189, 'usd_per_kwh', 'microPerKwh', 'price')).toBe(118_900);
    expect(convertUnit(0.051893, 'usd_per_kwh', 'microPerKwh', 'price')).toBe(51_893);
    expect(convertUnit(9.95, 'usd', 'micro', 'fee')).toBe(9_950_000);
    expect(convertUnit(995, 'cents', 'micro', 'fee')).toBe(9_950_000);
    expect(() => convertUnit(0.1 + 0.2, 'usd', 'micro', 'x')).toThrow(UnitValueError);
  });

  it('accepts plain decimal strings for money', () => {
    expect(convertUnit('12.40', 'cents_per_kwh', 'microPerKwh', 'price')).toBe(124_000);
    expect(convertUnit('120.55', 'usd_per_mwh', 'microPerKwh', 'price')).toBe(120_550);
    expect(convertUnit('0', 'usd', 'micro', 'fee')).toBe(0);
  });

  it.each(['1e3', ' 1', '+1', '01', '.5', '1.', 'abc', '', '0x10', '1,5'])('rejects money text %j', (s) => {
    expect(() => convertUnit(s, 'usd', 'micro', 'fee')).toThrow(UnitValueError);
  });

  it('rejects more decimals than the unit allows', () => {
    expect(() => convertUnit(0.1234567, 'usd', 'micro', 'fee')).toThrow(/decimal/);
    expect(() => convertUnit(12.34567, 'cents_per_kwh', 'microPerKwh', 'p')).toThrow(/decimal/);
    expect(() => convertUnit(120.5555, 'usd_per_mwh', 'microPerKwh', 'p')).toThrow(/decimal/);
  });

  it('rejects negatives unless allowed, and non-numbers', () => {
    expect(() => convertUnit(-1, 'usd', 'micro', 'fee')).toThrow(/negative/);
    expect(convertUnit(-1, 'usd', 'micro', 'fee', { allowNegative: true })).toBe(-1_000_000);
    for (const v of [null, undefined, true, {}, [], NaN, Infinity]) {
      expect(() => convertUnit(v, 'usd', 'micro', 'fee')).toThrow(UnitValueError);
    }
  });

  it('names the field in errors', () => {
    expect(() => convertUnit('x', 'usd', 'micro', 'baseMonthly')).toThrow(/baseMonthly/);
  });
});

describe('durations, energy and shares', () => {
  it('years -> months (x12), whole months only', () => {
    expect(convertUnit(2, 'years', 'months', 't')).toBe(24);
    expect(convertUnit(1.5, 'years', 'months', 't')).toBe(18);
    expect(convertUnit(12, 'months', 'months', 't')).toBe(12);
    expect(() => convertUnit(0.1, 'years', 'months', 't')).toThrow(/whole number of months/);
    expect(() => convertUnit(1.5, 'months', 'months', 't')).toThrow(/whole number of months/);
    expect(() => convertUnit(-1, 'months', 'months', 't')).toThrow(/negative/);
  });

  it('MWh <-> kWh exactly', () => {
    expect(convertUnit(1.1, 'mwh', 'kwh', 'e')).toBe(1100); // 1.1 * 1000 is 1100.0000000000002 in floats
    expect(convertUnit(1000, 'kwh', 'kwh', 'e')).toBe(1000);
    expect(convertUnit(1234, 'kwh', 'mwh', 'e')).toBe(1.234);
    expect(convertUnit(52345.678, 'mwh', 'mwh', 'e')).toBe(52345.678);
    expect(() => convertUnit(0.5, 'kwh', 'kwh', 'e', { integer: true })).toThrow(/whole number/);
    expect(convertUnit(0.0015, 'mwh', 'kwh', 'e', { integer: false })).toBe(1.5);
  });

  it('percent and fraction -> percent 0..100', () => {
    expect(convertUnit(25, 'percent', 'percent', 'g')).toBe(25);
    expect(convertUnit(0.25, 'fraction', 'percent', 'g')).toBe(25);
    expect(convertUnit(0.333, 'fraction', 'percent', 'g')).toBe(33.3);
    expect(convertUnit(1, 'fraction', 'percent', 'g')).toBe(100);
    expect(() => convertUnit(101, 'percent', 'percent', 'g')).toThrow(/more than 100/);
    expect(() => convertUnit(1.01, 'fraction', 'percent', 'g')).toThrow(/more than 100/);
    expect(() => convertUnit(-5, 'percent', 'percent', 'g')).toThrow(/negative/);
  });

  it('takes no strings for non-money units', () => {
    expect(() => convertUnit('12', 'months', 'months', 't')).toThrow(/expected a number/);
    expect(() => convertUnit('100', 'percent', 'percent', 'g')).toThrow(/expected a number/);
    expect(() => convertUnit('5', 'kwh', 'kwh', 'e')).toThrow(/expected a number/);
  });

  it('accepts BigInt values', () => {
    expect(convertUnit(3n, 'years', 'months', 't')).toBe(36);
    expect(convertUnit(5n, 'usd', 'micro', 'fee')).toBe(5_000_000);
  });

  it('refuses a unit of the wrong dimension (a programming error, not a record error)', () => {
    expect(() => convertUnit(1, 'usd', 'months', 't')).toThrow(Error);
    expect(() => convertUnit(1, 'usd', 'months', 't')).not.toThrow(UnitValueError);
  });
});
