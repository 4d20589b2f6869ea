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

// The walks below visit every number at a path of mapped values (lists on the way walked) and use
// each where it is read: every mapped record of every feed call goes through them, and numbers
// gathered into a list first were boxed (money in micro-units is past the small-integer range),
// the largest share of a miss's garbage.

/** Whether any number at the path is not 0. */
function anyNonZeroAt(v: unknown, segs: readonly string[], i: number): boolean {
  if (Array.isArray(v)) {
    for (let k = 0; k < v.length; k++) if (anyNonZeroAt(v[k], segs, i)) return true;
    return false;
  }
  if (i === segs.length) return typeof v === 'number' && v !== 0;
  if (!isObjectLike(v) || !Object.prototype.hasOwnProperty.call(v, segs[i]!)) return false;
  return anyNonZeroAt(v[segs[i]!], segs, i + 1);
}

interface Check {
  field: string;
  segs: string[];
  range: PlausibleRange;
}

/** Adds a finding to `out` for every number at the check's path outside its soft range; returns `out` (made when first needed). */
function findingsAt(
  v: unknown,
  check: Check,
  i: number,
  units: ReadonlyMap<string, UnitName>,
  out: RangeFinding[] | null,
): RangeFinding[] | null {
  if (Array.isArray(v)) {
    for (let k = 0; k < v.length; k++) out = findingsAt(v[k], check, i, units, out);
    return out;
  }
  const { segs } = check;
  if (i === segs.length) {
    if (typeof v !== 'number' || within(v, check.range.soft)) return out;
    const f = finding(check.field, v, units.get(check.field), check.range);
    if (f) (out ??= []).push(f);
    return out;
  }
  if (!isObjectLike(v) || !Object.prototype.hasOwnProperty.call(v, segs[i]!)) return out;
  return findingsAt(v[segs[i]!], check, i + 1, units, out);
}

/** The ranges of each kind with their paths split once (every mapped record is checked against them). */
const CHECKS = new Map<string, Check[]>();
function checksOf(kind: string): Check[] {
  let checks = CHECKS.get(kind);
  if (!checks) {
    const table = Object.prototype.hasOwnProperty.call(PLAUSIBLE_RANGES, kind) ? PLAUSIBLE_RANGES[kind]! : {};
    checks = Object.entries(table).map(([field, range]) => ({ field, segs: field.split('.'), range }));
    CHECKS.set(kind, checks);
  }
  return checks;
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
  let out: RangeFinding[] | null = null;
  // Indexed loops here and in the walks: an iterator's result objects were not optimised away.
  const checks = checksOf(kind);
  for (let k = 0; k < checks.length; k++) out = findingsAt(values, checks[k]!, 0, units, out);
  return out ?? [];
}

/** Records needed before doubtful values of one field count as a unit mistake rather than outliers. */
const SYSTEMATIC_MIN_RECORDS = 2;

/**
 * For each served record (`position` in the served list) and each field of the plausibility table
 * it carries with a non-zero value: the units its value would be plausible in when it is doubtful
 * (null when plausible, or when no unit would make it so).
 */
export function carriersOf(
  kind: string,
  kept: readonly { index: number; values: Record<string, unknown>; findings: readonly RangeFinding[] }[],
): Carrier[] {
  const out: Carrier[] = [];
  // Every served record of every call is walked: the paths split once per kind.
  const checks = checksOf(kind);
  kept.forEach((r, position) => {
    for (let k = 0; k < checks.length; k++) {
      const { field, segs } = checks[k]!;
      if (!anyNonZeroAt(r.values, segs, 0)) continue;
      let doubt: RangeFinding | undefined;
      for (let j = 0; j < r.findings.length && !doubt; j++) {
        const f = r.findings[j]!;
        if (f.field === field && f.level === 'soft' && f.likely.length > 0) doubt = f;
      }
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
  for (const c of result.carriers ?? []) {
    const list = byField.get(c.field);
    if (list) list.push(c);
    else byField.set(c.field, [c]);
  }
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
