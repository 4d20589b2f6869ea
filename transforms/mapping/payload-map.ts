// A page of a feed's payload mapped to canonical records with the compiled readers: the record list
// found (and the result type checked), each record read or rejected with its reason, the ranges and
// the next page's position noted.
import {
  FeedPayloadError,
  type CanonicalByKind,
  type Doubt,
  type FeedInput,
  type FeedKind,
  type MappedPayload,
  type Rejection,
} from './types.js';
import { describeType, isObjectLike, readPath, type ParsedPath } from './paths.js';
import type { UnitName } from './units.js';
import { carriersOf, checkRanges, type RangeFinding } from './plausibility.js';
import { frozen } from './shared-mapping.js';
import { RecordError, type KindDef, type Values } from './kinds.js';
import type { TableReader, ReadEnv } from './values.js';
import type { NextReader } from './arguments.js';

/** What mapPayload needs of a compiled mapping. */
export interface PayloadShape {
  source: string;
  kind: KindDef<FeedKind>;
  resultType: string | null;
  items: ParsedPath | null;
  maxItems: number;
  table: TableReader;
  units: ReadonlyMap<string, UnitName>;
  next: NextReader | null;
}

/** The record list of a payload (one page); throws FeedPayloadError when the payload is unusable. */
function recordsOf(shape: PayloadShape, payload: unknown): unknown[] {
  const { source, resultType, items } = shape;
  if (items && items.segments.length === 0) {
    if (!Array.isArray(payload)) throw new FeedPayloadError(source, `expected a list of records, got ${describeType(payload)}`);
    return payload;
  }
  if (!isObjectLike(payload)) throw new FeedPayloadError(source, `expected an object payload, got ${describeType(payload)}`);
  const typename = Object.prototype.hasOwnProperty.call(payload, '__typename') ? payload.__typename : undefined;
  if (resultType && typeof typename === 'string' && typename !== resultType) {
    const error = typeof payload.error === 'string' ? `: ${payload.error.slice(0, 200)}` : '';
    throw new FeedPayloadError(source, `answered ${typename}, not ${resultType}${error}`);
  }
  if (!items) return [payload];
  const v = readPath(payload, items, 'many');
  if (!Array.isArray(v)) throw new FeedPayloadError(source, `items (${items.text}) is not a list (got ${describeType(v)})`);
  return v;
}

export function mapPayload<K extends FeedKind>(
  shape: PayloadShape,
  payload: unknown,
  request: FeedInput,
): MappedPayload<CanonicalByKind[K]> {
  const { source, kind, maxItems, table } = shape;
  const records = recordsOf(shape, payload);
  const env: ReadEnv = { page: payload, request };
  const out: CanonicalByKind[K][] = [];
  const rejected: Rejection[] = [];
  const doubts: Doubt[] = [];
  const seen = new Map<string, number>();
  // Records served so far with their values and doubts, for a unit mistake across the payload.
  const kept: { index: number; values: Values; findings: RangeFinding[] }[] = [];
  const n = Math.min(records.length, maxItems);
  for (let i = 0; i < n; i++) {
    try {
      const rec = records[i];
      if (!isObjectLike(rec)) throw new RecordError(`expected an object, got ${describeType(rec)}`);
      const values = table(rec, '', env);
      const record = kind.build(values, source) as CanonicalByKind[K];
      if (kind.key) {
        const id = String(values[kind.key]);
        const first = seen.get(id);
        if (first !== undefined) throw new RecordError(`${kind.key}: duplicate ${JSON.stringify(id)} (first at index ${first})`);
        seen.set(id, i);
      }
      const findings = checkRanges(kind.kind, values, shape.units);
      const hard = findings.find((f) => f.level === 'hard');
      if (hard) {
        rejected.push({ index: i, reason: `implausible: ${hard.message}`, implausible: hard.field });
        continue;
      }
      for (const f of findings) doubts.push({ index: i, field: f.field, message: f.message });
      kept.push({ index: i, values, findings });
      out.push(frozen(record));
    } catch (e) {
      const reason = e instanceof RecordError ? e.message : `could not be mapped: ${e instanceof Error ? e.message : String(e)}`;
      rejected.push({ index: i, reason });
    }
  }
  if (records.length > maxItems) {
    rejected.push({
      index: maxItems,
      reason: `records ${maxItems}..${records.length - 1} not mapped: the feed sent ${records.length}, more than maxItems (${maxItems})`,
    });
  }
  const mapped: MappedPayload<CanonicalByKind[K]> = { records: out, rejected, doubts };
  // Not enumerable: bookkeeping for the call as a whole (callPaged), not part of what a page maps to.
  Object.defineProperty(mapped, 'carriers', { value: carriersOf(kind.kind, kept), enumerable: false, writable: true, configurable: true });
  if (shape.next) mapped.next = shape.next(payload, records.length);
  // Shared by every caller of the exchange (shared-mapping.ts): read-only from here.
  return frozen(mapped);
}
