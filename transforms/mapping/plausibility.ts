// Checks mapped canonical values against the plausibility table (domain/plausibility.ts) and,
// for a value out of range, names the unit it would be plausible in ("looks like USD/MWh").
import { describeQuantity, describeRange, PLAUSIBLE_RANGES, within, type PlausibleRange } from '../../domain/plausibility.js';
import { isObjectLike } from './paths.js';
import { UNITS, unitsOfDimension, type UnitName } from './units.js';
import type { Carrier, Rejection } from './types.js';

export interface RangeFinding {
  /** Canonical field path, e.g. `energyBlocks.price`. */
  field: string;
  /** soft: served but doubtful; hard: the record is dropped. */
  level: 'soft' | 'hard';
  message: string;
  /** The units the value would be plausible in (empty when none). */
  likely: UnitName[];
}

/** Pushes every number at a path of mapped values onto `out`; lists on the way are walked. */
function numbersAt(v: unknown, segs: readonly string[], i: number, out: number[]): void {
  if (Array.isArray(v)) {
    for (const x of v) numbersAt(x, segs, i, out);
    return;
  }
  if (i === segs.length) {
    if (typeof v === 'number') out.push(v);
    return;
  }
  if (!isObjectLike(v) || !Object.prototype.hasOwnProperty.call(v, segs[i]!)) return;
  numbersAt(v[segs[i]!], segs, i + 1, out);
}

/** The ranges of each kind with their paths split once (every mapped record is checked against them). */
const CHECKS = new Map<string, { field: string; segs: string[]; range: PlausibleRange }[]>();
function checksOf(kind: string) {
  let checks = CHECKS.get(kind);
  if (!checks) {
    const table = Object.prototype.hasOwnProperty.call(PLAUSIBLE_RANGES, kind) ? PLAUSIBLE_RANGES[kind]! : {};
    checks = Object.entries(table).map(([field, range]) => ({ field, segs: field.split('.'), range }));
    CHECKS.set(kind, checks);
  }
  return checks;
}

/** Every number at a dotted path of mapped values (lists on the way walked). */
export function numbersOf(values: unknown, field: string): number[] {
  const out: number[] = [];
  numbersAt(values, field.split('.'), 0, out);
  return out;
}

/** Units of the same dimension in which the feed's number would fall in the soft range. */
export function likelyUnits(value: number, unit: UnitName, range: PlausibleRange): UnitName[] {
  const raw = value / UNITS[unit].scale;
  const distance = (u: UnitName) => Math.abs(Math.log(Math.max(raw * UNITS[u].scale, 1e-9) / range.typical));
  const fits = unitsOfDimension(UNITS[unit].dimension).filter(
    (u) => UNITS[u].scale !== UNITS[unit].scale && within(raw * UNITS[u].scale, range.soft),
  );
  if (fits.length === 0) return [];
  // The reading nearest a usual value; units of the same size (USD/MWh, mills/kWh) are named together.
  const best = fits.reduce((a, b) => (distance(b) < distance(a) ? b : a));
  return fits.filter((u) => UNITS[u].scale === UNITS[best].scale);
}

function finding(field: string, value: number, unit: UnitName | undefined, range: PlausibleRange): RangeFinding | null {
  if (within(value, range.soft)) return null;
  const level = within(value, range.hard) ? 'soft' : 'hard';
  const bounds = level === 'soft' ? range.soft : range.hard;
  const guess = unit ? likelyUnits(value, unit, range) : [];
  const hint = guess.length
    ? `; looks like ${guess.map((u) => UNITS[u].label).join(' or ')}, not ${UNITS[unit!].label} (unit: ${guess.join(' or ')})`
    : '';
  const what = level === 'soft' ? 'plausible range' : 'possible range';
  return {
    field,
    level,
    message: `${field} ${describeQuantity(value, range.quantity)} is outside the ${what} ${describeRange(bounds, range.quantity)}${hint}`,
    likely: guess,
  };
}

/**
 * Findings for one mapped record of `kind` (values as compile.ts reads them, canonical units);
 * `units` gives the feed's unit per canonical field path, for naming the likely mistake.
 */
export function checkRanges(kind: string, values: Record<string, unknown>, units: ReadonlyMap<string, UnitName>): RangeFinding[] {
  const out: RangeFinding[] = [];
  // One scratch list for every field of the record (most records have a few numbers per field).
  const numbers: number[] = [];
  for (const { field, segs, range } of checksOf(kind)) {
    numbers.length = 0;
    numbersAt(values, segs, 0, numbers);
    for (const v of numbers) {
      if (within(v, range.soft)) continue;
      const f = finding(field, v, units.get(field), range);
      if (f) out.push(f);
    }
  }
  return out;
}

/** Records needed before doubtful values of one field count as a unit mistake rather than outliers. */
export const SYSTEMATIC_MIN_RECORDS = 2;

/**
 * For each served record (`position` in the served list) and each field of the plausibility table
 * it carries with a non-zero value: the units its value would be plausible in when it is doubtful
 * (null when plausible, or when no unit would make it so).
 */
export function carriersOf(
  kind: string,
  kept: readonly { index: number; values: Record<string, unknown>; findings: readonly RangeFinding[] }[],
): Carrier[] {
  const table = Object.prototype.hasOwnProperty.call(PLAUSIBLE_RANGES, kind) ? PLAUSIBLE_RANGES[kind]! : {};
  const out: Carrier[] = [];
  kept.forEach((r, position) => {
    for (const field of Object.keys(table)) {
      if (!numbersOf(r.values, field).some((v) => v !== 0)) continue;
      const doubt = r.findings.find((f) => f.field === field && f.level === 'soft' && f.likely.length > 0);
      out.push({ field, position, index: r.index, likely: doubt ? doubt.likely.join(' or ') : null, message: doubt?.message });
    }
  });
  return out;
}

/**
 * A unit mistake across one feed call (all its pages): a field whose every non-zero value, in at
 * least SYSTEMATIC_MIN_RECORDS records, is outside its plausible range and points to the same other
 * unit, as cents declared as USD make every base charge 100 times too large. Each value is possible,
 * so no record is dropped by itself; together they are dropped like impossible ones (a zero is the
 * same in any unit and stays). Changes `result` in place.
 */
export function dropSystematic<T>(result: { records: T[]; rejected: Rejection[]; carriers?: Carrier[] }): void {
  const byField = new Map<string, Carrier[]>();
  for (const c of result.carriers ?? []) byField.set(c.field, [...(byField.get(c.field) ?? []), c]);
  const drop = new Map<number, Rejection>();
  for (const [field, carriers] of byField) {
    if (carriers.length < SYSTEMATIC_MIN_RECORDS) continue;
    const likely = carriers[0]!.likely;
    if (likely === null || carriers.some((c) => c.likely !== likely)) continue;
    const reason = `implausible: every one of the ${carriers.length} non-zero ${field} values is outside its plausible range, e.g. ${carriers[0]!.message}`;
    for (const c of carriers)
      if (!drop.has(c.position)) drop.set(c.position, { index: c.index, reason, implausible: field, systematic: true });
  }
  if (drop.size === 0) return;
  result.records = result.records.filter((_, position) => !drop.has(position));
  result.rejected = [...result.rejected, ...drop.values()];
  delete result.carriers;
}
