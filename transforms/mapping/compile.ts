// Compiles one source's `feed-mapping` YAML block into a FeedBinding (types.ts). The block's shape,
// and what each key means, is the JSON Schema of block-schema.ts, checked first. Then what a shape
// cannot say: path syntax (paths.ts), context paths ($request.<input> must be an input the scope
// always gives, $page.<path> reads the page outside the record list), units that suit the field
// (units.ts), arguments from inputs the scope never gives, pagination arguments also under args,
// and const/default values, which go through map and unit like a value the feed sent. What the
// feed's schema must hold (operation, arguments, paths, leaf types) is validate.ts's.
//
// Per record: a configured field that is absent/null with no default rejects the record as
// "missing", unless the canonical field is nullable (-> null), a list (-> []) or an optional key
// without a neutral value (e.g. stateStats generation.WIND: left out). A value of the
// wrong type, a negative amount, money with more decimals than its unit allows, an unknown enum
// value... rejects the record with { index, reason }; map() never throws for a record.
import {
  FEED_INPUT_KEYS,
  FeedConfigError,
  FeedPayloadError,
  type CallScope,
  type CanonicalByKind,
  type Doubt,
  type FeedBinding,
  type FeedInput,
  type FeedInputKey,
  type FeedKind,
  type MappedPayload,
  type Pagination,
  type Rejection,
} from './types.js';
import { describeType, isObjectLike, parsePath, PathSyntaxError, readPath, type ParsedPath, type PathSegment } from './paths.js';
import { convertUnit, DIMENSION_OF, unitsOfDimension, UnitValueError, UNITS, type UnitName } from './units.js';
import { carriersOf, checkRanges, type RangeFinding } from './plausibility.js';
import { frozen, mappedOnce } from './shared-mapping.js';
import {
  kindDef,
  MAX_NESTED_ITEMS,
  RecordError,
  type FieldDef,
  type FieldTable,
  type KindDef,
  type ScopeInputs,
  type ValueType,
  type Values,
} from './kinds.js';
import {
  blockShapeProblems,
  DEFAULT_MAX_ITEMS,
  DEFAULT_MAX_PAGES,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_UTILITY_CACHE_SECONDS,
  type ArgSpec,
  type FieldSpec,
  type FieldSpecs,
  type MappingBlock,
  type PaginationSpec,
  type ValueMap,
} from './block-schema.js';

export { FEED_INPUT_KEYS, type FeedInputKey, DEFAULT_MAX_ITEMS, DEFAULT_TIMEOUT_MS };

// ------------------------------------------------------------------------------------ plan (for validation)

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

/** What compileFeedMapping returns: a FeedBinding plus the plan validateAgainstSchema checks. */
export interface CompiledFeedBinding<K extends FeedKind = FeedKind> extends FeedBinding<K> {
  readonly plan: MappingPlan;
}

export function isCompiledBinding(b: unknown): b is CompiledFeedBinding {
  return isObjectLike(b) && isObjectLike((b as { plan?: unknown }).plan);
}

// --------------------------------------------------------------------------------------------- problems

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

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const list = (xs: readonly string[]): string => xs.join(', ');

// ---------------------------------------------------------------------------------------------- compile

/**
 * Compiles a source's feed-mapping config. Throws FeedConfigError (naming source and key) on any
 * problem: first the block's shape (block-schema.ts), then what the shape cannot say.
 */
export function compileFeedMapping(source: string, rawConfig: unknown): CompiledFeedBinding {
  if (typeof source !== 'string' || source === '') {
    throw new FeedConfigError(String(source || '(unnamed)'), 'source', 'the feed-mapping transform must be set on a named source');
  }
  const p = new Problems();
  for (const s of blockShapeProblems(rawConfig)) p.add(s.key, s.detail);
  p.throwIfAny(source);
  const cfg = rawConfig as MappingBlock;
  const kind = kindDef(cfg.kind)!;
  const scope = cfg.scope ?? (Object.keys(kind.scopes)[0] as CallScope);
  const inputs = kind.scopes[scope]!;
  const args = compileArgs(p, cfg.args ?? {}, scope, inputs, kind.kind);
  const resultType = cfg.resultType ?? null;
  const items = cfg.items !== undefined ? pathOf(p, 'items', cfg.items) : null;

  const reads: PlannedRead[] = [];
  const itemsRead: PlannedRead | undefined = items ? { key: 'items', prefix: [], path: items, expect: { kind: 'list' } } : undefined;
  if (itemsRead) reads.push(itemsRead);
  const pages = compilePagination(p, cfg.pagination, args, reads);
  const units = new Map<string, UnitName>();
  const c: Ctx = { p, reads, kind: kind.kind, scope, inputs, units, field: '', prefix: items ? items.segments : [], parent: itemsRead };
  const table = compileTable(c, kind.fields, cfg.fields, 'fields');
  p.throwIfAny(source);

  const maxItems = cfg.maxItems ?? DEFAULT_MAX_ITEMS;
  const plan: MappingPlan = { resultType, items, reads, args, maxItems, scope, inputs, pagination: pages?.pagination ?? null };
  const shape: PayloadShape = { source, kind, resultType, items, maxItems, table, units, next: pages?.next ?? null };
  const mapOnce = mappedOnce((payload, request) => mapPayload(shape, payload, request));
  const binding: CompiledFeedBinding = {
    source,
    kind: kind.kind,
    operation: cfg.operation,
    selectionSet: buildSelectionSet(reads, resultType),
    timeoutMs: cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    scope,
    pagination: plan.pagination,
    cacheSeconds: scope === 'utility' ? (cfg.cacheSeconds ?? DEFAULT_UTILITY_CACHE_SECONDS) : 0,
    ...(cfg.sampleZip !== undefined ? { sampleZip: cfg.sampleZip } : {}),
    ...(cfg.sampleState !== undefined ? { sampleState: cfg.sampleState } : {}),
    ...(cfg.unitCheck !== undefined ? { unitCheck: cfg.unitCheck } : {}),
    units,
    plan,
    args: (input: FeedInput) => buildArgs(args, input),
    map: (payload: unknown, request?: FeedInput) => mapOnce(payload, request ?? {}),
  };
  return Object.freeze(binding);
}

const BAD = Symbol('bad');

/** Runs a check of the block (a path's syntax, a const or default checked as a value the feed sent); BAD, and a problem at key, if it fails. */
function attempt<T>(p: Problems, key: string, check: () => T): T | typeof BAD {
  try {
    return check();
  } catch (e) {
    if (!(e instanceof PathSyntaxError || e instanceof RecordError || e instanceof UnitValueError)) throw e;
    p.add(key, e.message);
    return BAD;
  }
}

function pathOf(p: Problems, key: string, raw: string): ParsedPath | null {
  const path = attempt(p, key, () => parsePath(raw));
  return path === BAD ? null : path;
}

/** A map of the block as a prototype-less copy (a feed value "__proto__" or "toString" is a plain key). */
const ownMap = (map: ValueMap | undefined): Record<string, unknown> | undefined => map && Object.assign(Object.create(null), map);

// ------------------------------------------------------------------------------------------------- args

function compileArgs(p: Problems, raw: Record<string, ArgSpec>, scope: CallScope, inputs: ScopeInputs, kind: FeedKind): PlannedArg[] {
  const given = [...inputs.always, ...inputs.sometimes];
  const out: PlannedArg[] = [];
  for (const [name, spec] of Object.entries(raw)) {
    const key = `args.${name}`;
    if (typeof spec === 'object' && hasOwn(spec, 'const')) {
      out.push({ name, key, hasConst: true, const: (spec as { const: unknown }).const });
      continue;
    }
    const { from, map } = typeof spec === 'string' ? { from: spec, map: undefined } : (spec as { from: FeedInputKey; map?: ValueMap });
    if (given.includes(from)) out.push({ name, key, from, map: ownMap(map), hasConst: false });
    else p.add(key, `${from} is never given to a ${scope}-scoped ${kind} feed (it gets ${list(given)})`);
  }
  return out;
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';
}

// ------------------------------------------------------------------------------------------ pagination

/** Where the next page starts, read from a page and the number of records it listed. */
type NextReader = (page: unknown, listed: number) => NonNullable<MappedPayload<unknown>['next']>;

function compilePagination(
  p: Problems,
  raw: PaginationSpec | null | undefined,
  args: PlannedArg[],
  reads: PlannedRead[],
): { pagination: Pagination; next: NextReader } | null {
  if (!raw) return null;
  const maxPages = raw.maxPages ?? DEFAULT_MAX_PAGES;
  const at = raw.cursor ? 'pagination.cursor' : 'pagination.page';
  // The block's shape holds exactly one of cursor and page, and the argument names.
  const argName = <T extends string | undefined>(k: string, v: T): T => {
    if (v !== undefined && args.some((a) => a.name === v)) p.add(`${at}.${k}`, `argument "${v}" is under args too; pagination sets it`);
    return v;
  };
  if (raw.cursor) {
    const arg = argName('arg', raw.cursor.arg);
    const next = pathOf(p, `${at}.next`, raw.cursor.next);
    if (!next) return null;
    reads.push({ key: `${at}.next`, prefix: [], path: next, expect: { kind: 'leaf', accepts: 'text', list: false } });
    return {
      pagination: { style: 'cursor', arg, maxPages },
      next: (page) => {
        const v = readPath(page, next, 'one');
        return { cursor: typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null };
      },
    };
  }
  const { arg, first = 1, sizeArg, size } = raw.page!;
  const pagination: Pagination = {
    style: 'page',
    arg: argName('arg', arg),
    first,
    sizeArg: argName('sizeArg', sizeArg) ?? null,
    size,
    maxPages,
  };
  return { pagination, next: (_page, listed) => ({ more: listed >= size }) };
}

function buildArgs(args: PlannedArg[], input: FeedInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const given = (isObjectLike(input) ? input : {}) as Record<string, unknown>;
  for (const a of args) {
    if (a.hasConst) {
      out[a.name] = a.const;
      continue;
    }
    const v = hasOwn(given, a.from!) ? given[a.from!] : undefined;
    if (v === undefined || v === null) continue;
    out[a.name] = a.map && isScalar(v) && hasOwn(a.map, String(v)) ? a.map[String(v)] : v;
  }
  return out;
}

// ----------------------------------------------------------------------------------------------- fields

interface Ctx {
  p: Problems;
  reads: PlannedRead[];
  kind: FeedKind;
  scope: CallScope;
  inputs: ScopeInputs;
  /** The feed's unit per canonical field path (for naming a likely unit mistake). */
  units: Map<string, UnitName>;
  /** Canonical path of the current table, with a trailing '.' ('' at the record). */
  field: string;
  /** Absolute path of the current context. */
  prefix: PathSegment[];
  parent?: PlannedRead;
}

/** What `$page.` and `$request.` paths read: the page the record came in, the call's inputs. */
interface ReadEnv {
  page: unknown;
  request: FeedInput;
}

/** Reads a table of canonical fields from a context object; `where` prefixes rejection labels. */
type TableReader = (ctx: Record<string, unknown>, where: string, env: ReadEnv) => Values;
/** Reads one canonical field; returns undefined to leave the key out. Throws RecordError. */
type FieldReader = (ctx: Record<string, unknown>, where: string, env: ReadEnv) => unknown;

function compileTable(c: Ctx, table: FieldTable, raw: FieldSpecs, key: string): TableReader {
  // The block's shape holds the table's keys: no unknown ones, the required ones present.
  // Names and readers side by side, read with an index: no iterator or pair per field and record.
  const names: string[] = [];
  const readers: FieldReader[] = [];
  for (const [name, def] of Object.entries(table)) {
    const spec = hasOwn(raw, name) ? raw[name] : undefined;
    if (spec === undefined) {
      const absent = def.absent;
      names.push(name);
      readers.push(() => (Array.isArray(absent) ? [] : absent));
      continue;
    }
    const r = compileField(c, def, spec, `${key}.${name}`, name);
    if (r) {
      names.push(name);
      readers.push(r);
    }
  }
  return (ctx, where, env) => {
    const out: Values = {};
    for (let i = 0; i < readers.length; i++) {
      const v = readers[i]!(ctx, where, env);
      if (v !== undefined) out[names[i]!] = v;
    }
    return out;
  };
}

type Spec = Exclude<FieldSpec, string>;

function compileField(c: Ctx, def: FieldDef, rawSpec: FieldSpec, key: string, name: string): FieldReader | undefined {
  const spec: Spec = typeof rawSpec === 'string' ? { path: rawSpec } : rawSpec;
  const vt = def.value;
  switch (vt.type) {
    case 'string':
    case 'enum':
    case 'int':
    case 'quantity':
      return compileScalar(c, def, vt, spec, key, name);
    case 'stringList':
      return compileStringList(c, vt, spec, key, name);
    case 'object':
      return compileObject(c, vt, spec, key, name);
    case 'list':
      return compileList(c, vt, spec, key, name);
  }
}

type ScalarType = Extract<ValueType, { type: 'string' | 'enum' | 'int' | 'quantity' }>;

/** A single value: unit, map, then a constant or a read (record, page or request). */
function compileScalar(c: Ctx, def: FieldDef, vt: ScalarType, spec: Spec, key: string, name: string): FieldReader | undefined {
  const unit = scalarUnit(c, vt, spec, key, name);
  if (unit === null) return undefined;
  const recordUnit = compileRecordUnit(c, spec, key);
  if (recordUnit === null) return undefined;
  // A unit read per record names no single likely mistake.
  if (unit && !recordUnit) c.units.set(`${c.field}${name}`, unit);
  const map = ownMap(spec.map);
  const asText = spec.asText === true;
  if (asText && vt.type !== 'int' && vt.type !== 'quantity') {
    c.p.add(`${key}.asText`, `${name} is not a number; asText reads numbers sent as decimal text`);
    return undefined;
  }
  const finalize = scalarFinalizer(def, vt, unit, map, asText);
  if (recordUnit) return scalarRead(c, vt, spec, key, name, unit, map, finalize, recordUnit);
  if (hasOwn(spec, 'const')) {
    const value = attempt(c.p, `${key}.const`, () => finalize(spec.const, '', name));
    return value === BAD ? undefined : () => value;
  }
  return scalarRead(c, vt, spec, key, name, unit, map, finalize);
}

/**
 * A value as read -> its canonical value. The value's label in errors is `where + what`, joined
 * only when there is an error to name it in: a record's fields are read on every feed call.
 * `unit`: the record's own unit, when the block reads it per record.
 */
type Finalize = (v: unknown, where: string, what: string, unit?: UnitName) => unknown;

/** Conversions a quantity field keeps (feed values repeat from call to call): bounded, then started afresh. */
const CONVERTED_MAX = 2048;

/** The feed's unit of a quantity (its kind's default when the YAML names none); undefined for non-quantities, null on a problem. */
function scalarUnit(c: Ctx, vt: ScalarType, spec: Spec, key: string, name: string): UnitName | undefined | null {
  if (vt.type !== 'quantity') return undefined; // the block's shape has no unit for other values
  const dim = DIMENSION_OF[vt.target];
  if (spec.unit === undefined) {
    if (vt.defaultUnit) return vt.defaultUnit;
    c.p.add(`${key}.unit`, `required: ${name} is ${dim}; state the feed's unit (one of ${list(unitsOfDimension(dim))})`);
    return null;
  }
  if (typeof spec.unit === 'object') {
    // Read per record (compileRecordUnit): every unit it may name must suit the field; the first stands for the rest at compile time.
    const names = Object.values(spec.unit.map);
    const wrong = names.filter((u) => UNITS[u].dimension !== dim);
    if (wrong.length) {
      c.p.add(
        `${key}.unit.map`,
        `${list(wrong)} ${wrong.length > 1 ? 'are' : 'is'} not ${dim}, but ${name} is (one of ${list(unitsOfDimension(dim))})`,
      );
      return null;
    }
    return names[0]!;
  }
  const info = UNITS[spec.unit];
  if (info.dimension === dim) return info.name;
  c.p.add(`${key}.unit`, `${info.name} is ${info.dimension}, but ${name} is ${dim} (one of ${list(unitsOfDimension(dim))})`);
  return null;
}

/** The unit of one record: read at `unit.path` and mapped (MONTH -> months); unknown values reject the record. */
type RecordUnit = (ctx: Record<string, unknown>, env: ReadEnv, where: string, what: string) => UnitName;

function compileRecordUnit(c: Ctx, spec: Spec, key: string): RecordUnit | null | undefined {
  if (typeof spec.unit !== 'object') return undefined;
  if (hasOwn(spec, 'const')) {
    c.p.add(`${key}.const`, 'a constant cannot take its unit from the record; name the unit (unit: <name>)');
    return null;
  }
  const unitMap = spec.unit.map;
  const at = readFrom(c, spec.unit.path, `${key}.unit.path`);
  if (!at) return null;
  if (at.from === 'request') {
    c.p.add(`${key}.unit.path`, 'a unit is read from the record or the page ($page.<path>), not from the request');
    return null;
  }
  // Every value the feed's enum can send must name a unit (values: none of ours, so each needs a map entry).
  const expect: Expect = { kind: 'leaf', accepts: 'enum', list: false, mapKeys: Object.keys(unitMap), values: [] };
  c.reads.push(
    at.from === 'page'
      ? { key: `${key}.unit`, prefix: [], path: at.path, expect }
      : { key: `${key}.unit`, prefix: c.prefix, path: at.path, parent: c.parent, expect },
  );
  const { path } = at;
  return (ctx, env, where, what) => {
    const v = at.from === 'page' ? readPath(env.page, path, 'one') : readPath(ctx, path, 'one');
    if (isScalar(v) && hasOwn(unitMap, String(v))) return unitMap[String(v)]!;
    throw new RecordError(
      `${where}${what}: unit ${describeType(v).replace(/^string /, '')} at ${path.text} is not in unit.map (${list(Object.keys(unitMap))})`,
    );
  };
}

/** A value as read (or defaulted) -> the canonical value: map, null handling, type and unit. */
function scalarFinalizer(
  def: FieldDef,
  vt: ScalarType,
  unit: UnitName | undefined,
  map: Record<string, unknown> | undefined,
  asText = false,
): Finalize {
  const nullable = (vt.type === 'string' || vt.type === 'quantity') && vt.nullable === true;
  const omittable = !def.required && def.absent === undefined;
  // A quantity's exact conversion (decimal text, BigInt scaling, range checks) is a pure function
  // of the value read and its unit: each field remembers the values it converted, per unit.
  // Failures are not kept.
  const converted = vt.type === 'quantity' ? new Map<UnitName | undefined, Map<unknown, unknown>>() : null;
  return (v, where, what, recordUnit) => {
    if (map && isScalar(v) && hasOwn(map, String(v))) {
      const original = v;
      v = map[String(v)];
      if (v === null && !nullable) throw new RecordError(`${where}${what}: ${describeType(original)} is mapped to null`);
    }
    if (v === null || v === undefined) {
      if (nullable) return null;
      if (omittable) return undefined;
      throw new RecordError(`${where}${what}: missing`);
    }
    const u = recordUnit ?? unit;
    if (!converted) return checkScalar(vt, u, v, where, what, asText);
    let memo = converted.get(u);
    if (!memo) converted.set(u, (memo = new Map()));
    const known = memo.get(v);
    if (known !== undefined) return known;
    const out = checkScalar(vt, u, v, where, what, asText);
    if (memo.size >= CONVERTED_MAX) memo.clear();
    if (typeof v === 'number' || typeof v === 'string') memo.set(v, out);
    return out;
  };
}

const DECIMAL_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** A number the feed sent as text (asText): a plain decimal, nothing else ("1e3", " 12", "+5" are rejected). */
function numberText(v: string, label: string): string {
  if (!DECIMAL_TEXT.test(v)) throw new RecordError(`${label}: expected a number as decimal text, got ${describeType(v)}`);
  return v;
}

const REQUEST_PREFIX = '$request.';
const PAGE_PREFIX = '$page.';

/** Where a path reads from: the record (or enclosing element), the page, or the call's inputs. */
type ReadFrom = { from: 'context' | 'page'; path: ParsedPath } | { from: 'request'; input: FeedInputKey; path: ParsedPath };

function readFrom(c: Ctx, raw: string, key: string): ReadFrom | null {
  if (raw.startsWith('$')) {
    if (raw.startsWith(PAGE_PREFIX)) {
      const path = pathOf(c.p, key, raw.slice(PAGE_PREFIX.length));
      return path && { from: 'page', path: { ...path, text: raw } };
    }
    const input = raw.slice(REQUEST_PREFIX.length);
    if (!raw.startsWith(REQUEST_PREFIX) || !(FEED_INPUT_KEYS as readonly string[]).includes(input)) {
      c.p.add(
        key,
        `unknown context path ${JSON.stringify(raw)} (use $request.<input> with an input of ${list(FEED_INPUT_KEYS)}, or $page.<path>)`,
      );
      return null;
    }
    if (!c.inputs.always.includes(input as FeedInputKey)) {
      c.p.add(key, `${raw} is not always given to a ${c.scope}-scoped ${c.kind} feed (always given: ${list(c.inputs.always)})`);
      return null;
    }
    return { from: 'request', input: input as FeedInputKey, path: { text: raw, segments: [] } };
  }
  const path = pathOf(c.p, key, raw);
  return path && { from: 'context', path };
}

function scalarRead(
  c: Ctx,
  vt: ScalarType,
  spec: Spec,
  key: string,
  name: string,
  unit: UnitName | undefined,
  map: Record<string, unknown> | undefined,
  finalize: Finalize,
  recordUnit?: RecordUnit,
): FieldReader | undefined {
  const at = readFrom(c, spec.path!, `${key}.path`);
  if (!at) return undefined;
  const hasDefault = hasOwn(spec, 'default');
  if (hasDefault && spec.default !== null && attempt(c.p, `${key}.default`, () => finalize(spec.default, '', name)) === BAD)
    return undefined;
  if (at.from !== 'request') {
    const moneyLike =
      typeof spec.unit === 'object' ? Object.values(spec.unit.map).every((u) => UNITS[u].moneyLike) : UNITS[unit!]?.moneyLike;
    // asText: the contract may type the value as text (or as a number).
    const accepts: LeafClass = spec.asText
      ? 'money'
      : vt.type === 'quantity'
        ? moneyLike
          ? 'money'
          : 'number'
        : vt.type === 'int'
          ? 'number'
          : vt.type === 'enum'
            ? 'enum'
            : 'text';
    const expect: Expect = { kind: 'leaf', accepts, list: false };
    if (map) expect.mapKeys = Object.keys(map);
    if (vt.type === 'enum') expect.values = vt.values;
    // A page path is checked from the result's root, whatever record list encloses it.
    c.reads.push(
      at.from === 'page' ? { key, prefix: [], path: at.path, expect } : { key, prefix: c.prefix, path: at.path, parent: c.parent, expect },
    );
  }
  const { path } = at;
  const read =
    at.from === 'request'
      ? (_ctx: Record<string, unknown>, env: ReadEnv) => (env.request as Record<string, unknown>)[at.input]
      : at.from === 'page'
        ? (_ctx: Record<string, unknown>, env: ReadEnv) => readPath(env.page, path, 'one')
        : (ctx: Record<string, unknown>) => readPath(ctx, path, 'one');
  const dflt = spec.default;
  const what = `${name} (${path.text})`;
  return (ctx, where, env) => {
    let v = read(ctx, env);
    if ((v === undefined || v === null) && hasDefault) v = dflt;
    return finalize(v, where, what, v === undefined || v === null ? undefined : recordUnit?.(ctx, env, where, what));
  };
}

function checkScalar(vt: ScalarType, unit: UnitName | undefined, v: unknown, where: string, what: string, asText = false): unknown {
  if (asText && typeof v === 'string' && vt.type === 'int') v = Number(numberText(v, where + what));
  switch (vt.type) {
    case 'string': {
      if (typeof v !== 'string') throw new RecordError(`${where}${what}: expected text, got ${describeType(v)}`);
      if (!vt.nullable && v.length === 0) throw new RecordError(`${where}${what}: empty`);
      if (vt.pattern && !vt.pattern.test(v)) throw new RecordError(`${where}${what}: expected ${vt.patternText}, got ${describeType(v)}`);
      return v;
    }
    case 'enum': {
      if (typeof v !== 'string' || !vt.values.includes(v)) {
        throw new RecordError(`${where}${what}: unknown value ${describeType(v)} (expected one of ${list(vt.values)}; add it to map)`);
      }
      return v;
    }
    case 'int': {
      if (typeof v !== 'number' || !Number.isSafeInteger(v))
        throw new RecordError(`${where}${what}: expected a whole number, got ${describeType(v)}`);
      if (v < vt.min || v > vt.max) throw new RecordError(`${where}${what}: ${v} is outside ${vt.min}..${vt.max}`);
      return v + 0;
    }
    case 'quantity': {
      try {
        const value = asText && typeof v === 'string' ? numberText(v, where + what) : v;
        return convertUnit(value, unit!, vt.target, where + what, { integer: vt.integer, allowNegative: vt.allowNegative, text: asText });
      } catch (e) {
        if (e instanceof UnitValueError) throw new RecordError(e.message);
        throw e;
      }
    }
  }
}

/**
 * A rejection label (`where` of a nested object or list entry) joined only when a message names it:
 * every record's nested values are read on every feed call, and their labels were strings built
 * per value. It stands in for the string wherever one is expected (template literals and `+` call
 * toString); `index` >= 0 adds `[index` before the closing `tail`.
 */
class Label {
  constructor(
    private readonly where: string,
    private readonly name: string,
    private readonly tail: string,
    private readonly index: number,
  ) {}
  toString(): string {
    return this.index >= 0 ? `${this.where}${this.name}[${this.index}${this.tail}` : `${this.where}${this.name}${this.tail}`;
  }
}

function joined(where: string, name: string, tail: string, index = -1): string {
  return new Label(where, name, tail, index) as unknown as string;
}

type StringListType = Extract<ValueType, { type: 'stringList' }>;

function compileStringList(c: Ctx, vt: StringListType, spec: Spec, key: string, name: string): FieldReader | undefined {
  const check = (v: unknown, label: string): string[] => {
    if (!Array.isArray(v)) throw new RecordError(`${label}: expected a list, got ${describeType(v)}`);
    if (v.length > MAX_NESTED_ITEMS) throw new RecordError(`${label}: ${v.length} entries, more than ${MAX_NESTED_ITEMS}`);
    return v.map((s, i) => {
      if (typeof s !== 'string') throw new RecordError(`${label}[${i}]: expected text, got ${describeType(s)}`);
      if (vt.pattern && !vt.pattern.test(s)) throw new RecordError(`${label}[${i}]: expected ${vt.patternText}, got ${describeType(s)}`);
      return s;
    });
  };
  if (hasOwn(spec, 'const')) {
    const value = attempt(c.p, `${key}.const`, () => check(spec.const, name));
    return value === BAD ? undefined : () => [...value];
  }
  const path = pathOf(c.p, `${key}.path`, spec.path!);
  if (!path) return undefined;
  const hasDefault = hasOwn(spec, 'default') && spec.default !== null;
  if (hasDefault && attempt(c.p, `${key}.default`, () => check(spec.default, name)) === BAD) return undefined;
  c.reads.push({ key, prefix: c.prefix, path, parent: c.parent, expect: { kind: 'leaf', accepts: 'text', list: true } });
  return (ctx, where) => {
    let v = readPath(ctx, path, 'many');
    if (v === undefined || v === null) v = hasDefault ? spec.default : [];
    return check(v, `${where}${name} (${path.text})`);
  };
}

/** Plans the read of one object at `spec.path` (or the record itself) and compiles its fields. */
function compileObjectAt(c: Ctx, fields: FieldTable, spec: Spec, key: string, name: string) {
  let path: ParsedPath | null = null;
  let inner: Ctx = c;
  if (spec.path !== undefined) {
    path = pathOf(c.p, `${key}.path`, spec.path);
    if (!path) return undefined;
    const read: PlannedRead = { key: `${key}.path`, prefix: c.prefix, path, parent: c.parent, expect: { kind: 'object' } };
    c.reads.push(read);
    inner = { ...c, prefix: [...c.prefix, ...path.segments], parent: read };
  }
  const table = compileTable({ ...inner, field: `${c.field}${name}.` }, fields, spec.fields!, `${key}.fields`);
  const at = path;
  return {
    table,
    locate: (ctx: Parameters<TableReader>[0], where: string) => ({
      obj: at ? readPath(ctx, at, 'one') : ctx,
      label: joined(where, name, at ? ` (${at.text})` : ''),
    }),
  };
}

type ObjectType = Extract<ValueType, { type: 'object' }>;

function compileObject(c: Ctx, vt: ObjectType, spec: Spec, key: string, name: string): FieldReader | undefined {
  if (hasOwn(spec, 'const')) return () => null; // the block's shape allows { const: null } alone, for a nullable object
  const nested = compileObjectAt(c, vt.fields, spec, key, name);
  if (!nested) return undefined;
  const { table } = nested;
  return (ctx, where, env) => {
    const { obj, label } = nested.locate(ctx, where);
    if (obj === undefined || obj === null) {
      if (vt.nullable) return null;
      throw new RecordError(`${label}: missing`);
    }
    if (!isObjectLike(obj)) throw new RecordError(`${label}: expected an object, got ${describeType(obj)}`);
    return table(obj, joined(where, name, '.'), env);
  };
}

type ListType = Extract<ValueType, { type: 'list' }>;

function compileList(c: Ctx, vt: ListType, spec: Spec, key: string, name: string): FieldReader | undefined {
  const atLeast = (out: Values[], label: string): Values[] => {
    if (vt.minLength && out.length < vt.minLength)
      throw new RecordError(`${label}: ${out.length} entries, at least ${vt.minLength} needed`);
    return out;
  };
  if (hasOwn(spec, 'const')) return () => []; // the block's shape allows { const: [] } alone, for a list that may be empty

  if (spec.items !== undefined) {
    const items = pathOf(c.p, `${key}.items`, spec.items);
    if (!items) return undefined;
    const read: PlannedRead = { key: `${key}.items`, prefix: c.prefix, path: items, parent: c.parent, expect: { kind: 'list' } };
    c.reads.push(read);
    const itemsText = ` (${items.text})`;
    const table = compileTable(
      { ...c, field: `${c.field}${name}.`, prefix: [...c.prefix, ...items.segments], parent: read },
      vt.fields,
      spec.fields!,
      `${key}.fields`,
    );
    return (ctx, where, env) => {
      const v = readPath(ctx, items, 'many');
      const label = joined(where, name, itemsText);
      if (v === undefined || v === null) return atLeast([], label);
      if (!Array.isArray(v)) throw new RecordError(`${label}: expected a list, got ${describeType(v)}`);
      if (v.length > MAX_NESTED_ITEMS) throw new RecordError(`${label}: ${v.length} entries, more than ${MAX_NESTED_ITEMS}`);
      const out = v.map((el, i) => {
        if (!isObjectLike(el)) throw new RecordError(`${where}${name}[${i}]: expected an object, got ${describeType(el)}`);
        return table(el, joined(where, name, '].', i), env);
      });
      return atLeast(out, label);
    };
  }

  // One entry made from an object (at path, or the record itself).
  const nested = compileObjectAt(c, vt.fields, spec, key, name);
  if (!nested) return undefined;
  const { table } = nested;
  return (ctx, where, env) => {
    const { obj, label } = nested.locate(ctx, where);
    if (obj === undefined || obj === null) return atLeast([], label);
    if (!isObjectLike(obj)) throw new RecordError(`${label}: expected an object, got ${describeType(obj)}`);
    return atLeast([table(obj, joined(where, name, '].', 0), env)], label);
  };
}

// ------------------------------------------------------------------------------------------------- map

/** What mapPayload needs of a compiled mapping. */
interface PayloadShape {
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

function mapPayload<K extends FeedKind>(shape: PayloadShape, payload: unknown, request: FeedInput): MappedPayload<CanonicalByKind[K]> {
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

// --------------------------------------------------------------------------------------- selection set

interface SelNode {
  children: Map<string, SelNode>;
  context: boolean;
}

/**
 * The selection set (with braces) covering every read, filter keys included; with `resultType`,
 * `{ __typename ... on <resultType> { ... } }`.
 */
export function buildSelectionSet(reads: readonly PlannedRead[], resultType: string | null = null): string {
  const root: SelNode = { children: new Map(), context: true };
  const child = (n: SelNode, name: string): SelNode => {
    let c = n.children.get(name);
    if (!c) n.children.set(name, (c = { children: new Map(), context: false }));
    return c;
  };
  for (const r of reads) {
    let node = root;
    for (const seg of [...r.prefix, ...r.path.segments]) {
      node = child(node, seg.name);
      for (const sel of seg.selectors) if (sel.type === 'filter') child(node, sel.key);
    }
    if (r.expect.kind !== 'leaf') node.context = true;
  }
  const render = (n: SelNode): string => {
    if (n.children.size === 0) return n.context ? '{ __typename }' : '';
    return `{ ${[...n.children].map(([name, c]) => (c.children.size || c.context ? `${name} ${render(c)}` : name)).join(' ')} }`;
  };
  const body = render(root);
  return resultType ? `{ __typename ... on ${resultType} ${body} }` : body;
}
