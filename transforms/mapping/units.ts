// Units a feed states its numbers in, and their exact conversion to our canonical units.
//
//   unit            dimension   canonical result
//   usd             money       integer micro-USD              (at most 6 decimals of USD)
//   cents           money       integer micro-USD              (at most 4 decimals of cents)
//   usd_per_kwh     rate        integer micro-USD per kWh      (at most 6 decimals)
//   cents_per_kwh   rate        integer micro-USD per kWh      (at most 4 decimals): 12.4 -> 124000
//   usd_per_mwh     rate        integer micro-USD per kWh      (at most 3 decimals): 120.55 -> 120550
//   mills_per_kwh   rate        integer micro-USD per kWh      (a mill is 1/10 cent; same as usd_per_mwh)
//   months          duration    months
//   years           duration    months (x12; must come out a whole number of months)
//   kwh             energy      kWh or MWh, as the canonical field wants (exact decimal shift)
//   mwh             energy      kWh or MWh, as the canonical field wants (exact decimal shift)
//   gwh             energy      kWh or MWh (a GWh is a thousand MWh, EIA's unit for state sales)
//   percent         share       percent, 0..100
//   fraction        share       percent (x100), so 0..1 -> 0..100
//
// Values: JSON numbers (or BigInt from a BigInt scalar). A *string* is accepted only for the
// money-like units (money and rate), and only when it is a plain decimal ("12.40", "-3", "0.5";
// no exponent, no '+', no spaces, no leading zeros); anything else is rejected. Rationale: some
// feeds ship money as decimal strings to keep it exact, while a string where a count/duration/
// energy is expected is a feed bug we would rather see than guess at. A mapping that knows its feed
// sends every number as text (EIA's API v2) says so per field (`asText: true`, option `text`).
//
// All conversions go through the value's exact decimal text (domain/money.ts), never a float
// multiply, so 1.1 MWh is exactly 1100 kWh, and 0.1 years is rejected (1.2 months is not whole).
import { MoneyFormatError, microFromCents, microFromUsdPerMwh, parseMicro, toExactDecimal } from '../../domain/money.js';
import { describeType } from './paths.js';

export type Dimension = 'money' | 'rate' | 'duration' | 'energy' | 'share';
export type UnitName =
  | 'usd'
  | 'cents'
  | 'usd_per_kwh'
  | 'cents_per_kwh'
  | 'usd_per_mwh'
  | 'mills_per_kwh'
  | 'months'
  | 'years'
  | 'kwh'
  | 'mwh'
  | 'gwh'
  | 'percent'
  | 'fraction';

/** What a canonical field holds. */
export type CanonicalQuantity = 'micro' | 'microPerKwh' | 'months' | 'kwh' | 'mwh' | 'percent';

interface UnitInfo {
  name: UnitName;
  dimension: Dimension;
  /** Money and rates: decimal strings accepted, converted through domain/money.ts. */
  moneyLike: boolean;
  /** Canonical units per unit (micro-USD per USD, months per year...): for naming a likely unit mistake. */
  scale: number;
  /** How people write it. */
  label: string;
}

export const UNITS: Readonly<Record<UnitName, UnitInfo>> = Object.freeze({
  usd: { name: 'usd', dimension: 'money', moneyLike: true, scale: 1e6, label: 'USD' },
  cents: { name: 'cents', dimension: 'money', moneyLike: true, scale: 1e4, label: 'cents' },
  usd_per_kwh: { name: 'usd_per_kwh', dimension: 'rate', moneyLike: true, scale: 1e6, label: 'USD/kWh' },
  cents_per_kwh: { name: 'cents_per_kwh', dimension: 'rate', moneyLike: true, scale: 1e4, label: 'cents/kWh' },
  usd_per_mwh: { name: 'usd_per_mwh', dimension: 'rate', moneyLike: true, scale: 1e3, label: 'USD/MWh' },
  mills_per_kwh: { name: 'mills_per_kwh', dimension: 'rate', moneyLike: true, scale: 1e3, label: 'mills/kWh' },
  months: { name: 'months', dimension: 'duration', moneyLike: false, scale: 1, label: 'months' },
  years: { name: 'years', dimension: 'duration', moneyLike: false, scale: 12, label: 'years' },
  kwh: { name: 'kwh', dimension: 'energy', moneyLike: false, scale: 1, label: 'kWh' },
  mwh: { name: 'mwh', dimension: 'energy', moneyLike: false, scale: 1000, label: 'MWh' },
  gwh: { name: 'gwh', dimension: 'energy', moneyLike: false, scale: 1_000_000, label: 'GWh' },
  percent: { name: 'percent', dimension: 'share', moneyLike: false, scale: 1, label: 'percent' },
  fraction: { name: 'fraction', dimension: 'share', moneyLike: false, scale: 100, label: 'a fraction of 1' },
} satisfies Record<UnitName, UnitInfo>);

export const UNIT_NAMES = Object.keys(UNITS) as UnitName[];

export const DIMENSION_OF: Readonly<Record<CanonicalQuantity, Dimension>> = Object.freeze({
  micro: 'money',
  microPerKwh: 'rate',
  months: 'duration',
  kwh: 'energy',
  mwh: 'energy',
  percent: 'share',
});

export function unitsOfDimension(dim: Dimension): UnitName[] {
  return UNIT_NAMES.filter((u) => UNITS[u].dimension === dim);
}

/** A value that does not convert; its message becomes the record's rejection reason. */
export class UnitValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnitValueError';
  }
}

interface ConvertOptions {
  /** Money/rates are rejected below zero unless this is set. */
  allowNegative?: boolean;
  /** The result must be an integer (e.g. kWh tier bounds). */
  integer?: boolean;
  /** Plain decimal strings are accepted for every unit (the mapping declared `asText`). */
  text?: boolean;
}

/**
 * Converts `value` stated in `unit` to the canonical quantity `target`. `field` names the value in
 * errors. Throws UnitValueError; a unit of the wrong dimension is a programming/config error (Error).
 */
export function convertUnit(value: unknown, unit: UnitName, target: CanonicalQuantity, field: string, opts: ConvertOptions = {}): number {
  const info = UNITS[unit];
  if (!info || info.dimension !== DIMENSION_OF[target]) {
    throw new Error(`unit ${unit} cannot give ${target}`);
  }
  if (info.moneyLike) return money(value, unit, field, opts);

  const d = exact(value, unit, field, opts.text === true);
  if (d.digits < 0n && !opts.allowNegative) throw new UnitValueError(`${field}: must not be negative (got ${describeType(value)})`);
  let result: Decimal;
  switch (unit) {
    case 'months':
    case 'kwh':
    case 'percent':
      result = d;
      break;
    case 'years':
      result = { digits: d.digits * 12n, scale: d.scale };
      break;
    case 'mwh':
      result = { digits: d.digits * 1000n, scale: d.scale };
      break;
    case 'gwh':
      result = { digits: d.digits * 1_000_000n, scale: d.scale };
      break;
    case 'fraction':
      result = { digits: d.digits * 100n, scale: d.scale };
      break;
    default:
      throw new Error(`unhandled unit ${unit}`);
  }
  if (target === 'mwh') result = { digits: result.digits, scale: result.scale + 3 }; // kWh -> MWh
  result = normalize(result);

  if (target === 'months' && result.scale > 0) {
    throw new UnitValueError(`${field}: ${describeType(value)} ${unit} is not a whole number of months`);
  }
  if (opts.integer && result.scale > 0) {
    throw new UnitValueError(`${field}: must be a whole number (got ${describeType(value)} ${unit})`);
  }
  if (target === 'percent' && compare(result, { digits: 100n, scale: 0 }) > 0) {
    throw new UnitValueError(`${field}: ${describeType(value)} ${unit} is more than 100 percent`);
  }
  const n = toNumber(result);
  if (!Number.isFinite(n) || (result.scale === 0 && !Number.isSafeInteger(n))) {
    throw new UnitValueError(`${field}: ${describeType(value)} is out of range`);
  }
  return n;
}

function money(value: unknown, unit: UnitName, field: string, opts: ConvertOptions): number {
  let v: number | string;
  if (typeof value === 'number' || typeof value === 'string') v = value;
  else if (typeof value === 'bigint') v = value.toString();
  else throw new UnitValueError(`${field}: expected a number of ${unit}, got ${describeType(value)}`);
  const o = { nonNegative: !opts.allowNegative };
  try {
    switch (unit) {
      case 'usd':
      case 'usd_per_kwh':
        return parseMicro(v, field, o);
      case 'cents':
      case 'cents_per_kwh':
        return microFromCents(v, field, o);
      case 'usd_per_mwh':
      case 'mills_per_kwh':
        return microFromUsdPerMwh(v, field, o);
      default:
        throw new Error(`unhandled money unit ${unit}`);
    }
  } catch (e) {
    if (e instanceof MoneyFormatError) throw new UnitValueError(e.message);
    throw e;
  }
}

interface Decimal {
  digits: bigint;
  scale: number;
}

function exact(value: unknown, unit: UnitName, field: string, text = false): Decimal {
  let v: number | string;
  if (typeof value === 'number' || (text && typeof value === 'string')) v = value;
  else if (typeof value === 'bigint') v = value.toString();
  else throw new UnitValueError(`${field}: expected a number of ${unit}, got ${describeType(value)}`);
  try {
    return toExactDecimal(v, field);
  } catch (e) {
    if (e instanceof MoneyFormatError) throw new UnitValueError(`${field}: ${e.reason} (got ${describeType(value)})`);
    throw e;
  }
}

function normalize(d: Decimal): Decimal {
  let { digits, scale } = d;
  while (scale > 0 && digits % 10n === 0n) {
    digits /= 10n;
    scale--;
  }
  return { digits, scale };
}

function compare(a: Decimal, b: Decimal): number {
  const s = Math.max(a.scale, b.scale);
  const x = a.digits * 10n ** BigInt(s - a.scale);
  const y = b.digits * 10n ** BigInt(s - b.scale);
  return x === y ? 0 : x < y ? -1 : 1;
}

/** The double nearest the exact decimal (via its text, so e.g. 1.234 prints back as 1.234). */
function toNumber(d: Decimal): number {
  if (d.scale === 0) return Number(d.digits);
  const neg = d.digits < 0n;
  const abs = (neg ? -d.digits : d.digits).toString().padStart(d.scale + 1, '0');
  return Number(`${neg ? '-' : ''}${abs.slice(0, -d.scale)}.${abs.slice(-d.scale)}`) + 0;
}
