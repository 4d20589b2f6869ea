// Checks mapped canonical values against the plausibility table (domain/plausibility.ts) and,
// for a value out of range, names the unit it would be plausible in ("looks like USD/MWh").
import { describeQuantity, describeRange, PLAUSIBLE_RANGES, within, type PlausibleRange } from '../../domain/plausibility.js';
import { isObjectLike } from './paths.js';
import { UNITS, unitsOfDimension, type UnitName } from './units.js';

export interface RangeFinding {
  /** Canonical field path, e.g. `energyBlocks.price`. */
  field: string;
  /** soft: served but doubtful; hard: the record is dropped. */
  level: 'soft' | 'hard';
  message: string;
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
