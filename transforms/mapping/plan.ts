// What compiling a feed-mapping block yields besides the binding: the plan validate.ts checks
// against the feed's schema (reads, arguments, expected leaf types), and the problems collected on
// the way, so one start-up error lists them all; with the small checks every compile step shares.
import { FeedConfigError, type CallScope, type FeedInputKey, type Pagination } from './types.js';
import { parsePath, PathSyntaxError, type ParsedPath, type PathSegment } from './paths.js';
import { UnitValueError } from './units.js';
import { RecordError, type ScopeInputs } from './kinds.js';
import type { ValueMap } from './block-schema.js';

/** How a leaf value is used: text (string/enum target), a plain number, or money (numbers or decimal strings). */
export type LeafClass = 'text' | 'enum' | 'number' | 'money';

export type Expect =
  /** A list of objects (`items`). */
  | { kind: 'list' }
  /** One object (`path` + `fields`). */
  | { kind: 'object' }
  /** A scalar (or a list of scalars when `list`); `values`: the canonical enum values, for enum targets. */
  | { kind: 'leaf'; accepts: LeafClass; list: boolean; mapKeys?: string[]; values?: readonly string[] };

export interface PlannedRead {
  /** Config key, for errors: e.g. `fields.energyBlocks.fields.price`. */
  key: string;
  /** Absolute path of the context this read is relative to. */
  prefix: PathSegment[];
  path: ParsedPath;
  expect: Expect;
  /** The read that established the context (items / object path), if any. */
  parent?: PlannedRead;
}

export interface PlannedArg {
  name: string;
  key: string;
  from?: FeedInputKey;
  map?: Record<string, unknown>;
  hasConst: boolean;
  const?: unknown;
}

export interface MappingPlan {
  /** Union member (or the type) of the operation's result that carries the records. */
  resultType: string | null;
  items: ParsedPath | null;
  reads: PlannedRead[];
  args: PlannedArg[];
  maxItems: number;
  scope: CallScope;
  /** The inputs a call of this feed gets (always / only sometimes). */
  inputs: ScopeInputs;
  pagination: Pagination | null;
}

/** Most problems spelled out in one error; the rest are counted. */
const MAX_LISTED_PROBLEMS = 20;

/** Collects config problems so one start-up error lists them all. */
export class Problems {
  readonly list: { key: string; detail: string }[] = [];
  add(key: string, detail: string): void {
    this.list.push({ key, detail });
  }
  throwIfAny(source: string): void {
    if (this.list.length === 0) return;
    const [first, ...rest] = this.list;
    const listed = rest.slice(0, MAX_LISTED_PROBLEMS - 1).map((p) => `${p.key}: ${p.detail}`);
    if (rest.length > listed.length) listed.push('…');
    const more = rest.length ? ` (and ${rest.length} more: ${listed.join('; ')})` : '';
    throw new FeedConfigError(source, first!.key, first!.detail + more);
  }
}

export const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
export const list = (xs: readonly string[]): string => xs.join(', ');

export const BAD = Symbol('bad');

/** Runs a check of the block (a path's syntax, a const or default checked as a value the feed sent); BAD, and a problem at key, if it fails. */
export function attempt<T>(p: Problems, key: string, check: () => T): T | typeof BAD {
  try {
    return check();
  } catch (e) {
    if (!(e instanceof PathSyntaxError || e instanceof RecordError || e instanceof UnitValueError)) throw e;
    p.add(key, e.message);
    return BAD;
  }
}

export function pathOf(p: Problems, key: string, raw: string): ParsedPath | null {
  const path = attempt(p, key, () => parsePath(raw));
  return path === BAD ? null : path;
}

/** A map of the block as a prototype-less copy (a feed value "__proto__" or "toString" is a plain key). */
export const ownMap = (map: ValueMap | undefined): Record<string, unknown> | undefined => map && Object.assign(Object.create(null), map);

/** A value a map can be keyed by: text, a finite number or a boolean. */
export function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';
}
