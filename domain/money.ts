// Exact money conversions. Upstream money arrives as JSON numbers (or decimal strings); we go
// through the decimal text and integer/BigInt arithmetic only, never a float multiply, so
// 0.1 + 0.2 style errors can't reach a price. Canonical unit: integer micro-dollars (1e-6 USD).
import type { Micro } from './canonical.js';

export class MoneyFormatError extends Error {
  override readonly name = 'MoneyFormatError';
  readonly field: string;
  readonly reason: string;
  readonly value: unknown;
  constructor(field: string, reason: string, value: unknown) {
    super(`${field}: ${reason} (got ${preview(value)})`);
    this.field = field;
    this.reason = reason;
    this.value = value;
  }
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  } catch {
    text = typeof value;
  }
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** An exact decimal: value = digits / 10^scale. */
interface ExactDecimal {
  digits: bigint;
  scale: number;
}

// Plain decimal text, no leading zeros, no '+', no spaces.
const PLAIN = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;
// Exponent text exactly as String(number) writes it: one leading digit, lower-case e, signed exponent.
const EXPONENT = /^(-?)([1-9])(?:\.([0-9]+))?e([+-])([1-9][0-9]{0,2})$/;
const MAX_TEXT = 100;

/**
 * The exact decimal value of a JSON number (via its shortest round-trip text String(n), which is
 * what the upstream JSON said) or of a decimal string. Throws MoneyFormatError on anything else.
 */
export function toExactDecimal(value: number | string, field: string): ExactDecimal {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new MoneyFormatError(field, 'not a finite number', value);
    text = String(value); // -0 prints as "0"
  } else if (typeof value === 'string') {
    if (value.length > MAX_TEXT) throw new MoneyFormatError(field, 'decimal text too long', value);
    text = value;
  } else {
    throw new MoneyFormatError(field, 'expected a number or decimal string', value);
  }

  let m = PLAIN.exec(text);
  if (m) {
    const [, sign, int, frac = ''] = m;
    return build(sign!, int! + frac, frac.length);
  }
  m = EXPONENT.exec(text);
  if (m) {
    const [, sign, lead, frac = '', expSign, expDigits] = m;
    const exp = (expSign === '-' ? -1 : 1) * Number(expDigits);
    // lead.frac × 10^exp  ==  (lead+frac) / 10^(frac.length - exp)
    const scale = frac.length - exp;
    const digits = lead! + frac;
    return scale >= 0 ? build(sign!, digits, scale) : build(sign!, digits + '0'.repeat(-scale), 0);
  }
  throw new MoneyFormatError(field, 'not a plain decimal number', value);
}

function build(sign: string, digits: string, scale: number): ExactDecimal {
  // Drop trailing fractional zeros: "1.50" is the same amount as "1.5".
  let end = digits.length;
  while (scale > 0 && digits[end - 1] === '0') {
    end--;
    scale--;
  }
  const n = BigInt(digits.slice(0, end));
  return { digits: sign === '-' ? -n : n, scale };
}

/** value × 10^places as a safe integer, or MoneyFormatError if that isn't an exact integer. */
function scaled(value: number | string, field: string, places: number, unit: string): number {
  const d = toExactDecimal(value, field);
  if (d.scale > places) {
    throw new MoneyFormatError(field, `more than ${places} decimal places of ${unit}`, value);
  }
  const n = d.digits * 10n ** BigInt(places - d.scale);
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new MoneyFormatError(field, 'amount too large', value);
  }
  return Number(n); // BigInt has no -0, so "-0" gives 0
}

interface ParseOptions {
  /** Reject amounts below zero (prices, fees and credits are never negative in our feeds). */
  nonNegative?: boolean | undefined;
}

function checkSign(micro: number, value: unknown, field: string, opts?: ParseOptions): Micro {
  if (opts?.nonNegative && micro < 0) throw new MoneyFormatError(field, 'must not be negative', value);
  return micro;
}

/** USD (number or decimal string) -> integer micro-USD. At most 6 decimals. Sign is kept unless opts.nonNegative. */
export function parseMicro(value: number | string, field: string, opts?: ParseOptions): Micro {
  return checkSign(scaled(value, field, 6, 'USD'), value, field, opts);
}

/** Cents -> micro-USD (1 cent = 10_000 micro): 12.4 -> 124000. At most 4 decimals of cents. */
export function microFromCents(value: number | string, field: string, opts?: ParseOptions): Micro {
  return checkSign(scaled(value, field, 4, 'cents'), value, field, opts);
}

/** USD per MWh -> micro-USD per kWh (÷1000 kWh, ×1e6 micro = ×1000). At most 3 decimals of USD/MWh. */
export function microFromUsdPerMwh(value: number | string, field: string, opts?: ParseOptions): Micro {
  return checkSign(scaled(value, field, 3, 'USD/MWh'), value, field, opts);
}

function assertSafeInt(n: number, what: string): void {
  if (!Number.isSafeInteger(n)) throw new RangeError(`${what} must be a safe integer, got ${n}`);
}

/** n / d rounded to the nearest integer, halves away from zero. Exact for all safe integers. */
export function roundDiv(n: number, d: number): number {
  assertSafeInt(n, 'roundDiv numerator');
  assertSafeInt(d, 'roundDiv divisor');
  if (d === 0) throw new RangeError('roundDiv by zero');
  const r = n % d; // exact on safe integers; sign follows n
  const q = (n - r) / d; // exact: n - r is a multiple of d
  const ar = Math.abs(r);
  const ad = Math.abs(d);
  const up = ar * 2 >= ad ? (n < 0 !== d < 0 ? -1 : 1) : 0;
  return q + up + 0; // "+ 0" turns -0 into 0
}

/**
 * Exact decimal text of micro-USD with `decimals` (0..6) fraction digits. If the amount has more
 * precision than that it is rounded half away from zero (e.g. formatMicro(12345, 2) = "0.01").
 */
export function formatMicro(micro: Micro, decimals = 6): string {
  const units = unitsOf(micro, decimals);
  const abs = String(Math.abs(units)).padStart(decimals + 1, '0');
  const sign = units < 0 ? '-' : '';
  if (decimals === 0) return sign + abs;
  return `${sign}${abs.slice(0, -decimals)}.${abs.slice(-decimals)}`;
}

/**
 * Number(formatMicro(...)): the double nearest that decimal, so JSON shows exactly that text.
 * Computed without the text: the rounded units and 10^decimals are exact doubles, and IEEE division
 * rounds their exact quotient (the decimal's value) to the nearest double, as Number() rounds the
 * text. Called per plan, tier and month, it was a string built and parsed each time.
 */
export function microToNumber(micro: Micro, decimals = 6): number {
  return unitsOf(micro, decimals) / 10 ** decimals;
}

/** micro-USD in units of 10^-decimals USD (0..6), rounded half away from zero. */
function unitsOf(micro: Micro, decimals: number): number {
  assertSafeInt(micro, 'micro');
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 6) {
    throw new RangeError(`decimals must be an integer 0..6, got ${decimals}`);
  }
  return roundDiv(micro, 10 ** (6 - decimals));
}
