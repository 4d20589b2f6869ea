// Compiles one source's `feed-mapping` YAML block into a FeedBinding (types.ts).
//
// YAML block (all keys; anything else is a config error):
//   kind:        offers | territories | stateStats | premises                       (required)
//   operation:   root Query field of the source to call                             (required)
//   timeoutMs:   per-call timeout, integer ms (default 2000)
//   sampleZip / sampleState:  the feed's smoke-test input
//   maxItems:    most records mapped from one payload (default 10000; the rest are reported rejected)
//   args:        feed argument name -> one of
//                  <input key>                  zipCode | utilityId | customerClass | state | address
//                  { from: <input key>, map: { ourValue: feedValue, ... } }   (unmapped values pass as is)
//                  { const: value }
//                an argument whose input is undefined (or null) is left out.
//   resultType:  when the operation returns a union (an OpenAPI operation with error responses:
//                `VoltifyOffersResponse | VoltifyError`), the member that carries the records; the
//                selection becomes `{ __typename ... on <resultType> { ... } }` and a payload of
//                another member is a FeedPayloadError.
//   items:       path of the record list in the payload ('.' = the payload is the list); without it
//                the payload is one record.
//   fields:      canonical key -> field spec (which keys exist and which are required: kinds.ts)
//
// Field spec: a path string, or { path, unit, map, default, const, items, fields }:
//   path      where the value is, relative to the record (or to the enclosing `path`/`items` element)
//   const     a fixed value instead of a path
//   default   used when the path is absent or null. default and const are what the feed would have
//             sent: they go through `map` and `unit` like a read value.
//   map       feed value (as text) -> our value; values not in the map pass unchanged (then checked);
//             mapping a value to null rejects records with it (unless the field is nullable). Keys
//             are the values as the GraphQL result has them: enum values are the generated names
//             (a JSON Schema enum `fixed-rate` arrives as `fixed_rate`).
//   unit      see units.ts; money and rates must state one, kWh/MWh/months/percent fields have one
//   items     (list fields) path of a list; each element is mapped with `fields`. Absent/null -> [].
//   fields    (object and list fields) the nested canonical keys. With `path`: the object at that
//             path (absent/null -> null for a nullable object, [] for a list); without `path` the
//             nested keys read from the enclosing record itself.
//
// Per record: a configured field that is absent/null with no default rejects the record as
// "missing", unless the canonical field is nullable (-> null), a list (-> []) or an optional key
// without a neutral value (e.g. stateStats generation.WIND: left out). A value of the
// wrong type, a negative amount, money with more decimals than its unit allows, an unknown enum
// value... rejects the record with { index, reason }; map() never throws for a record.
import {
  FeedConfigError,
  FeedPayloadError,
  type CanonicalByKind,
  type FeedBinding,
  type FeedInput,
  type FeedKind,
  type MappedPayload,
} from './types.js';
import { describeType, isGraphQLName, isObjectLike, parsePath, PathSyntaxError, readPath, type ParsedPath, type PathSegment } from './paths.js';
import { convertUnit, DIMENSION_OF, unitInfo, unitsOfDimension, UnitValueError, UNITS, type UnitName } from './units.js';
import {
  AUTOMATIC_KEYS,
  KIND_NAMES,
  kindDef,
  MAX_NESTED_ITEMS,
  RecordError,
  type FieldDef,
  type FieldTable,
  type KindDef,
  type ValueType,
  type Values,
} from './kinds.js';

export const FEED_INPUT_KEYS = ['zipCode', 'utilityId', 'customerClass', 'state', 'address'] as const satisfies readonly (keyof FeedInput)[];
export type FeedInputKey = (typeof FEED_INPUT_KEYS)[number];

export const DEFAULT_TIMEOUT_MS = 2000;
export const DEFAULT_MAX_ITEMS = 10_000;

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
}

/** What compileFeedMapping returns: a FeedBinding plus the plan validateAgainstSchema checks. */
export interface CompiledFeedBinding<K extends FeedKind = FeedKind> extends FeedBinding<K> {
  readonly plan: MappingPlan;
}

export function isCompiledBinding(b: unknown): b is CompiledFeedBinding {
  return isObjectLike(b) && isObjectLike((b as { plan?: unknown }).plan);
}

// --------------------------------------------------------------------------------------------- problems

/** Collects config problems so one start-up error lists them all. */
export class Problems {
  readonly list: { key: string; detail: string }[] = [];
  add(key: string, detail: string): void {
    this.list.push({ key, detail });
  }
  throwIfAny(source: string): void {
    if (this.list.length === 0) return;
    const [first, ...rest] = this.list;
    const more = rest.length ? ` (and ${rest.length} more: ${rest.map((p) => `${p.key}: ${p.detail}`).join('; ')})` : '';
    throw new FeedConfigError(source, first!.key, first!.detail + more);
  }
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const list = (xs: readonly string[]): string => xs.join(', ');

// ---------------------------------------------------------------------------------------------- compile

const TOP_KEYS = ['kind', 'operation', 'timeoutMs', 'sampleZip', 'sampleState', 'maxItems', 'args', 'resultType', 'items', 'fields'];
const SPEC_KEYS = ['path', 'unit', 'map', 'default', 'const', 'items', 'fields'];

/** Compiles a source's feed-mapping config. Throws FeedConfigError (naming source and key) on any problem. */
export function compileFeedMapping(source: string, rawConfig: unknown): CompiledFeedBinding {
  if (typeof source !== 'string' || source === '') {
    throw new FeedConfigError(String(source || '(unnamed)'), 'source', 'the feed-mapping transform must be set on a named source');
  }
  const p = new Problems();
  if (!isObjectLike(rawConfig)) {
    p.add('(config)', `expected a mapping of settings, got ${describeType(rawConfig)}`);
    p.throwIfAny(source);
  }
  const cfg = rawConfig as Record<string, unknown>;
  for (const k of Object.keys(cfg)) if (!TOP_KEYS.includes(k)) p.add(k, `unknown setting (known: ${list(TOP_KEYS)})`);

  const def = kindDef(cfg.kind);
  if (cfg.kind === undefined) p.add('kind', `required (one of ${list(KIND_NAMES)})`);
  else if (!def) p.add('kind', `unknown kind ${JSON.stringify(cfg.kind)} (one of ${list(KIND_NAMES)})`);

  const operation = cfg.operation;
  if (typeof operation !== 'string' || !isGraphQLName(operation)) p.add('operation', `required: the source's Query field to call (got ${describeType(operation)})`);

  const timeoutMs = intSetting(p, cfg, 'timeoutMs', 1, 600_000, DEFAULT_TIMEOUT_MS);
  const maxItems = intSetting(p, cfg, 'maxItems', 1, 1_000_000, DEFAULT_MAX_ITEMS);
  const sampleZip = stringSetting(p, cfg, 'sampleZip', /^[0-9]{5}$/, 'a 5-digit ZIP code');
  const sampleState = stringSetting(p, cfg, 'sampleState', /^[A-Z]{2}$/, 'a two-letter state code');

  const args = compileArgs(p, cfg.args);

  let resultType: string | null = null;
  if (cfg.resultType !== undefined) {
    if (typeof cfg.resultType !== 'string' || !isGraphQLName(cfg.resultType)) p.add('resultType', `expected a GraphQL type name, got ${describeType(cfg.resultType)}`);
    else resultType = cfg.resultType;
  }

  let items: ParsedPath | null = null;
  if (cfg.items !== undefined) items = pathOf(p, 'items', cfg.items);

  const reads: PlannedRead[] = [];
  let itemsRead: PlannedRead | undefined;
  if (items) {
    itemsRead = { key: 'items', prefix: [], path: items, expect: { kind: 'list' } };
    reads.push(itemsRead);
  }

  let rootTable: TableReader | undefined;
  if (def) {
    if (cfg.fields === undefined) p.add('fields', `required: the mapping of the ${def.kind} record`);
    else {
      const c: Ctx = { p, reads, kind: def.kind, prefix: items ? items.segments : [], parent: itemsRead };
      rootTable = compileTable(c, def.fields, cfg.fields, 'fields', AUTOMATIC_KEYS[def.kind]);
    }
  }
  p.throwIfAny(source);

  const kind = def!;
  const plan: MappingPlan = { resultType, items, reads, args, maxItems };
  const binding: CompiledFeedBinding = {
    source,
    kind: kind.kind,
    operation: operation as string,
    selectionSet: buildSelectionSet(reads, resultType),
    timeoutMs,
    ...(sampleZip !== undefined ? { sampleZip } : {}),
    ...(sampleState !== undefined ? { sampleState } : {}),
    plan,
    args: (input: FeedInput) => buildArgs(args, input),
    map: (payload: unknown) => mapPayload(source, kind, resultType, items, maxItems, rootTable!, payload),
  };
  return Object.freeze(binding);
}

function intSetting(p: Problems, cfg: Record<string, unknown>, key: string, min: number, max: number, fallback: number): number {
  const v = cfg[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    p.add(key, `expected an integer ${min}..${max}, got ${describeType(v)}`);
    return fallback;
  }
  return v;
}

function stringSetting(p: Problems, cfg: Record<string, unknown>, key: string, re: RegExp, what: string): string | undefined {
  const v = cfg[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !re.test(v)) {
    p.add(key, `expected ${what}, got ${describeType(v)}`);
    return undefined;
  }
  return v;
}

function pathOf(p: Problems, key: string, raw: unknown): ParsedPath | null {
  try {
    return parsePath(raw);
  } catch (e) {
    if (e instanceof PathSyntaxError) {
      p.add(key, e.message);
      return null;
    }
    throw e;
  }
}

// ------------------------------------------------------------------------------------------------- args

function compileArgs(p: Problems, raw: unknown): PlannedArg[] {
  if (raw === undefined || raw === null) return [];
  if (!isObjectLike(raw)) {
    p.add('args', `expected a mapping of feed argument -> input, got ${describeType(raw)}`);
    return [];
  }
  const out: PlannedArg[] = [];
  const inputs = `one of ${list(FEED_INPUT_KEYS)}`;
  for (const [name, spec] of Object.entries(raw)) {
    const key = `args.${name}`;
    if (!isGraphQLName(name)) {
      p.add(key, 'not a GraphQL argument name');
      continue;
    }
    if (typeof spec === 'string') {
      if (!(FEED_INPUT_KEYS as readonly string[]).includes(spec)) p.add(key, `unknown input ${JSON.stringify(spec)} (${inputs})`);
      else out.push({ name, key, from: spec as FeedInputKey, hasConst: false });
      continue;
    }
    if (!isObjectLike(spec)) {
      p.add(key, `expected an input name, { from, map } or { const }, got ${describeType(spec)}`);
      continue;
    }
    const keys = Object.keys(spec);
    if (hasOwn(spec, 'const')) {
      if (keys.length !== 1) p.add(key, '{ const } takes no other keys');
      else if (!isScalar(spec.const)) p.add(`${key}.const`, `expected a string, number or boolean, got ${describeType(spec.const)}`);
      else out.push({ name, key, hasConst: true, const: spec.const });
      continue;
    }
    const extra = keys.filter((k) => k !== 'from' && k !== 'map');
    if (extra.length) p.add(key, `unknown keys ${list(extra)} (expected { from, map } or { const })`);
    if (typeof spec.from !== 'string' || !(FEED_INPUT_KEYS as readonly string[]).includes(spec.from)) {
      p.add(`${key}.from`, `expected an input (${inputs}), got ${describeType(spec.from)}`);
      continue;
    }
    let map: Record<string, unknown> | undefined;
    if (spec.map !== undefined) {
      map = mapOf(p, `${key}.map`, spec.map);
      if (!map) continue;
    }
    if (!extra.length) out.push({ name, key, from: spec.from as FeedInputKey, map, hasConst: false });
  }
  return out;
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';
}

function mapOf(p: Problems, key: string, raw: unknown): Record<string, unknown> | undefined {
  if (!isObjectLike(raw)) {
    p.add(key, `expected a mapping of feed value -> our value, got ${describeType(raw)}`);
    return undefined;
  }
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries(raw)) {
    if (v !== null && !isScalar(v)) {
      p.add(`${key}.${k}`, `expected a string, number, boolean or null, got ${describeType(v)}`);
      return undefined;
    }
    out[k] = v;
  }
  return out;
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
  /** Absolute path of the current context. */
  prefix: PathSegment[];
  parent?: PlannedRead;
}

/** Reads a table of canonical fields from a context object; `where` prefixes rejection labels. */
type TableReader = (ctx: Record<string, unknown>, where: string) => Values;
/** Reads one canonical field; returns undefined to leave the key out. Throws RecordError. */
type FieldReader = (ctx: Record<string, unknown>, where: string) => unknown;

function compileTable(c: Ctx, table: FieldTable, raw: unknown, key: string, automatic?: Record<string, string>): TableReader | undefined {
  if (!isObjectLike(raw)) {
    c.p.add(key, `expected a mapping of canonical keys, got ${describeType(raw)}`);
    return undefined;
  }
  for (const k of Object.keys(raw)) {
    if (hasOwn(table, k)) continue;
    if (automatic && hasOwn(automatic, k)) c.p.add(`${key}.${k}`, `not configurable: ${automatic[k]}`);
    else c.p.add(`${key}.${k}`, `unknown canonical key for kind ${c.kind} (known: ${list(Object.keys(table))})`);
  }
  const readers: [string, FieldReader][] = [];
  for (const [name, def] of Object.entries(table)) {
    if (!hasOwn(raw, name) || raw[name] === undefined) {
      if (def.required) c.p.add(`${key}.${name}`, `required for kind ${c.kind}`);
      else {
        const absent = def.absent;
        readers.push([name, () => (Array.isArray(absent) ? [] : absent)]);
      }
      continue;
    }
    const r = compileField(c, def, raw[name], `${key}.${name}`, name);
    if (r) readers.push([name, r]);
  }
  return (ctx, where) => {
    const out: Values = {};
    for (const [name, read] of readers) {
      const v = read(ctx, where);
      if (v !== undefined) out[name] = v;
    }
    return out;
  };
}

interface Spec {
  path?: unknown;
  unit?: unknown;
  map?: unknown;
  default?: unknown;
  const?: unknown;
  items?: unknown;
  fields?: unknown;
}

function compileField(c: Ctx, def: FieldDef, rawSpec: unknown, key: string, name: string): FieldReader | undefined {
  let spec: Spec;
  if (typeof rawSpec === 'string') spec = { path: rawSpec };
  else if (isObjectLike(rawSpec)) {
    spec = rawSpec as Spec;
    const unknown = Object.keys(spec).filter((k) => !SPEC_KEYS.includes(k));
    if (unknown.length) {
      c.p.add(key, `unknown keys ${list(unknown)} (a field is a path or { ${list(SPEC_KEYS)} })`);
      return undefined;
    }
  } else {
    c.p.add(key, `expected a path or { ${list(SPEC_KEYS)} }, got ${describeType(rawSpec)}`);
    return undefined;
  }
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

function disallow(c: Ctx, spec: Spec, key: string, keys: (keyof Spec)[], why: string): boolean {
  const bad = keys.filter((k) => hasOwn(spec, k));
  if (bad.length) c.p.add(`${key}.${bad[0]}`, why);
  return bad.length > 0;
}

type ScalarType = Extract<ValueType, { type: 'string' | 'enum' | 'int' | 'quantity' }>;

function compileScalar(c: Ctx, def: FieldDef, vt: ScalarType, spec: Spec, key: string, name: string): FieldReader | undefined {
  if (disallow(c, spec, key, ['items', 'fields'], `${name} is a single value; items/fields do not apply`)) return undefined;
  const hasConst = hasOwn(spec, 'const');
  const hasDefault = hasOwn(spec, 'default');
  if (hasConst && (spec.path !== undefined || hasDefault)) {
    c.p.add(key, 'const excludes path and default');
    return undefined;
  }
  if (!hasConst && spec.path === undefined) {
    c.p.add(`${key}.path`, 'required (or const)');
    return undefined;
  }

  // unit
  let unit: UnitName | undefined;
  if (vt.type === 'quantity') {
    const dim = DIMENSION_OF[vt.target];
    if (spec.unit === undefined) {
      if (vt.defaultUnit) unit = vt.defaultUnit;
      else c.p.add(`${key}.unit`, `required: ${name} is ${dim}; state the feed's unit (one of ${list(unitsOfDimension(dim))})`);
    } else {
      const info = unitInfo(spec.unit);
      if (!info) c.p.add(`${key}.unit`, `unknown unit ${JSON.stringify(spec.unit)} (known: ${list(Object.keys(UNITS))})`);
      else if (info.dimension !== dim) c.p.add(`${key}.unit`, `${info.name} is ${info.dimension}, but ${name} is ${dim} (one of ${list(unitsOfDimension(dim))})`);
      else unit = info.name;
    }
    if (!unit) return undefined;
  } else if (spec.unit !== undefined) {
    c.p.add(`${key}.unit`, `${name} takes no unit`);
    return undefined;
  }

  let map: Record<string, unknown> | undefined;
  if (spec.map !== undefined) {
    map = mapOf(c.p, `${key}.map`, spec.map);
    if (!map) return undefined;
  }
  const nullable = (vt.type === 'string' || vt.type === 'quantity') && vt.nullable === true;
  const omittable = !def.required && def.absent === undefined;
  const finalize = (v: unknown, label: string): unknown => {
    if (map && isScalar(v) && hasOwn(map, String(v))) {
      const original = v;
      v = map[String(v)];
      if (v === null && !nullable) throw new RecordError(`${label}: ${describeType(original)} is mapped to null`);
    }
    if (v === null || v === undefined) {
      if (nullable) return null;
      if (omittable) return undefined;
      throw new RecordError(`${label}: missing`);
    }
    return checkScalar(vt, unit, v, label);
  };

  if (hasConst) {
    let value: unknown;
    try {
      value = finalize(spec.const, name);
    } catch (e) {
      c.p.add(`${key}.const`, errorText(e));
      return undefined;
    }
    return () => value;
  }

  const path = pathOf(c.p, `${key}.path`, spec.path);
  if (!path) return undefined;
  if (hasDefault && spec.default !== null) {
    try {
      finalize(spec.default, name);
    } catch (e) {
      c.p.add(`${key}.default`, errorText(e));
      return undefined;
    }
  }
  const accepts: LeafClass =
    vt.type === 'quantity' ? (UNITS[unit!].moneyLike ? 'money' : 'number') : vt.type === 'int' ? 'number' : vt.type === 'enum' ? 'enum' : 'text';
  const expect: Expect = { kind: 'leaf', accepts, list: false };
  if (map) expect.mapKeys = Object.keys(map);
  if (vt.type === 'enum') expect.values = vt.values;
  c.reads.push({ key, prefix: c.prefix, path, parent: c.parent, expect });

  const dflt = spec.default;
  return (ctx, where) => {
    let v = readPath(ctx, path, 'one');
    if ((v === undefined || v === null) && hasDefault) v = dflt;
    const label = `${where}${name} (${path.text})`;
    if (v === undefined || v === null) {
      if (nullable) return null;
      if (omittable) return undefined;
      throw new RecordError(`${label}: missing`);
    }
    return finalize(v, label);
  };
}

function errorText(e: unknown): string {
  if (e instanceof RecordError || e instanceof UnitValueError) return e.message;
  throw e;
}

function checkScalar(vt: ScalarType, unit: UnitName | undefined, v: unknown, label: string): unknown {
  switch (vt.type) {
    case 'string': {
      if (typeof v !== 'string') throw new RecordError(`${label}: expected text, got ${describeType(v)}`);
      if (!vt.nullable && v.length === 0) throw new RecordError(`${label}: empty`);
      if (vt.pattern && !vt.pattern.test(v)) throw new RecordError(`${label}: expected ${vt.patternText}, got ${describeType(v)}`);
      return v;
    }
    case 'enum': {
      if (typeof v !== 'string' || !vt.values.includes(v)) {
        throw new RecordError(`${label}: unknown value ${describeType(v)} (expected one of ${list(vt.values)}; add it to map)`);
      }
      return v;
    }
    case 'int': {
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new RecordError(`${label}: expected a whole number, got ${describeType(v)}`);
      if (v < vt.min || v > vt.max) throw new RecordError(`${label}: ${v} is outside ${vt.min}..${vt.max}`);
      return v + 0;
    }
    case 'quantity': {
      try {
        return convertUnit(v, unit!, vt.target, label, { integer: vt.integer, allowNegative: vt.allowNegative });
      } catch (e) {
        if (e instanceof UnitValueError) throw new RecordError(e.message);
        throw e;
      }
    }
  }
}

type StringListType = Extract<ValueType, { type: 'stringList' }>;

function compileStringList(c: Ctx, vt: StringListType, spec: Spec, key: string, name: string): FieldReader | undefined {
  if (disallow(c, spec, key, ['items', 'fields', 'unit', 'map'], `${name} is a list of text; only path, default or const apply`)) return undefined;
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
    if (spec.path !== undefined || hasOwn(spec, 'default')) {
      c.p.add(key, 'const excludes path and default');
      return undefined;
    }
    try {
      const value = check(spec.const, name);
      return () => [...value];
    } catch (e) {
      c.p.add(`${key}.const`, errorText(e));
      return undefined;
    }
  }
  if (spec.path === undefined) {
    c.p.add(`${key}.path`, 'required (or const)');
    return undefined;
  }
  const path = pathOf(c.p, `${key}.path`, spec.path);
  if (!path) return undefined;
  const hasDefault = hasOwn(spec, 'default') && spec.default !== null;
  if (hasDefault) {
    try {
      check(spec.default, name);
    } catch (e) {
      c.p.add(`${key}.default`, errorText(e));
      return undefined;
    }
  }
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
  const table = compileTable(inner, fields, spec.fields, `${key}.fields`);
  if (!table) return undefined;
  const at = path;
  return {
    table,
    locate: (ctx: Parameters<TableReader>[0], where: string) => ({
      obj: at ? readPath(ctx, at, 'one') : ctx,
      label: at ? `${where}${name} (${at.text})` : `${where}${name}`,
    }),
  };
}

type ObjectType = Extract<ValueType, { type: 'object' }>;

function compileObject(c: Ctx, vt: ObjectType, spec: Spec, key: string, name: string): FieldReader | undefined {
  if (disallow(c, spec, key, ['items', 'unit', 'map', 'default'], `${name} is an object: use path (optional) and fields`)) return undefined;
  if (hasOwn(spec, 'const')) {
    if (spec.const !== null || !vt.nullable || Object.keys(spec).length !== 1) {
      c.p.add(`${key}.const`, vt.nullable ? `only { const: null } is allowed for ${name}` : `${name} cannot be a constant`);
      return undefined;
    }
    return () => null;
  }
  if (spec.fields === undefined) {
    c.p.add(`${key}.fields`, `required: the keys of ${name} (${list(Object.keys(vt.fields))})`);
    return undefined;
  }
  const nested = compileObjectAt(c, vt.fields, spec, key, name);
  if (!nested) return undefined;
  const { table } = nested;
  return (ctx, where) => {
    const { obj, label } = nested.locate(ctx, where);
    if (obj === undefined || obj === null) {
      if (vt.nullable) return null;
      throw new RecordError(`${label}: missing`);
    }
    if (!isObjectLike(obj)) throw new RecordError(`${label}: expected an object, got ${describeType(obj)}`);
    return table(obj, `${where}${name}.`);
  };
}

type ListType = Extract<ValueType, { type: 'list' }>;

function compileList(c: Ctx, vt: ListType, spec: Spec, key: string, name: string): FieldReader | undefined {
  if (disallow(c, spec, key, ['unit', 'map', 'default'], `${name} is a list: use items + fields (or path/fields for one element, or const: [])`)) return undefined;
  const atLeast = (out: Values[], label: string): Values[] => {
    if (vt.minLength && out.length < vt.minLength) throw new RecordError(`${label}: ${out.length} entries, at least ${vt.minLength} needed`);
    return out;
  };
  if (hasOwn(spec, 'const')) {
    if (!Array.isArray(spec.const) || spec.const.length !== 0 || Object.keys(spec).length !== 1) {
      c.p.add(`${key}.const`, `only { const: [] } is allowed for ${name}`);
      return undefined;
    }
    if (vt.minLength) {
      c.p.add(`${key}.const`, `${name} needs at least ${vt.minLength} entries`);
      return undefined;
    }
    return () => [];
  }
  if (spec.fields === undefined) {
    c.p.add(`${key}.fields`, `required: the keys of each ${name} entry (${list(Object.keys(vt.fields))})`);
    return undefined;
  }
  if (spec.items !== undefined && spec.path !== undefined) {
    c.p.add(key, 'items and path exclude each other (items: a list; path + fields: one entry)');
    return undefined;
  }

  if (spec.items !== undefined) {
    const items = pathOf(c.p, `${key}.items`, spec.items);
    if (!items) return undefined;
    const read: PlannedRead = { key: `${key}.items`, prefix: c.prefix, path: items, parent: c.parent, expect: { kind: 'list' } };
    c.reads.push(read);
    const table = compileTable({ ...c, prefix: [...c.prefix, ...items.segments], parent: read }, vt.fields, spec.fields, `${key}.fields`);
    if (!table) return undefined;
    return (ctx, where) => {
      const v = readPath(ctx, items, 'many');
      const label = `${where}${name} (${items.text})`;
      if (v === undefined || v === null) return atLeast([], label);
      if (!Array.isArray(v)) throw new RecordError(`${label}: expected a list, got ${describeType(v)}`);
      if (v.length > MAX_NESTED_ITEMS) throw new RecordError(`${label}: ${v.length} entries, more than ${MAX_NESTED_ITEMS}`);
      const out = v.map((el, i) => {
        if (!isObjectLike(el)) throw new RecordError(`${where}${name}[${i}]: expected an object, got ${describeType(el)}`);
        return table(el, `${where}${name}[${i}].`);
      });
      return atLeast(out, label);
    };
  }

  // One entry made from an object (at path, or the record itself).
  const nested = compileObjectAt(c, vt.fields, spec, key, name);
  if (!nested) return undefined;
  const { table } = nested;
  return (ctx, where) => {
    const { obj, label } = nested.locate(ctx, where);
    if (obj === undefined || obj === null) return atLeast([], label);
    if (!isObjectLike(obj)) throw new RecordError(`${label}: expected an object, got ${describeType(obj)}`);
    return atLeast([table(obj, `${where}${name}[0].`)], label);
  };
}

// ------------------------------------------------------------------------------------------------- map

function mapPayload<K extends FeedKind>(
  source: string,
  kind: KindDef<K>,
  resultType: string | null,
  items: ParsedPath | null,
  maxItems: number,
  table: TableReader,
  payload: unknown,
): MappedPayload<CanonicalByKind[K]> {
  let records: unknown[];
  if (items && items.segments.length === 0) {
    if (!Array.isArray(payload)) throw new FeedPayloadError(source, `expected a list of records, got ${describeType(payload)}`);
    records = payload;
  } else {
    if (!isObjectLike(payload)) throw new FeedPayloadError(source, `expected an object payload, got ${describeType(payload)}`);
    const typename = Object.prototype.hasOwnProperty.call(payload, '__typename') ? payload.__typename : undefined;
    if (resultType && typeof typename === 'string' && typename !== resultType) {
      const error = typeof payload.error === 'string' ? `: ${payload.error.slice(0, 200)}` : '';
      throw new FeedPayloadError(source, `answered ${typename}, not ${resultType}${error}`);
    }
    if (items) {
      const v = readPath(payload, items, 'many');
      if (!Array.isArray(v)) throw new FeedPayloadError(source, `items (${items.text}) is not a list (got ${describeType(v)})`);
      records = v;
    } else {
      records = [payload];
    }
  }

  const out: CanonicalByKind[K][] = [];
  const rejected: { index: number; reason: string }[] = [];
  const seen = new Map<string, number>();
  const n = Math.min(records.length, maxItems);
  for (let i = 0; i < n; i++) {
    try {
      const rec = records[i];
      if (!isObjectLike(rec)) throw new RecordError(`expected an object, got ${describeType(rec)}`);
      const values = table(rec, '');
      const record = kind.build(values, source);
      if (kind.key) {
        const id = String(values[kind.key]);
        const first = seen.get(id);
        if (first !== undefined) throw new RecordError(`${kind.key}: duplicate ${JSON.stringify(id)} (first at index ${first})`);
        seen.set(id, i);
      }
      out.push(record);
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
  return { records: out, rejected };
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
