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
//   scope:       request (default): called once per partner request with its inputs (a feed answering
//                per ZIP) | utility (offers only): called once per choice territory serving the ZIP,
//                in parallel, with the territory's utility id; the answer is reused for other ZIPs of
//                the territory for cacheSeconds (default 60; 0 = not kept).
//                The inputs a feed gets (kinds.ts `scopes`): offers/request zipCode, customerClass,
//                and utilityId only when the partner names one; offers/utility utilityId,
//                customerClass; territories zipCode; stateStats state; premises zipCode, address.
//                A required feed argument must come from an input that is always given.
//   pagination:  a feed answering in pages, followed within timeoutMs (for all pages) and maxPages
//                (default 10); more pages than that are left out with a truncation warning.
//                  { cursor: { arg: <feed argument>, next: <page path of the next cursor> }, maxPages }
//                    the first call goes without the argument; an absent, null or '' cursor ends.
//                  { page: { arg: <feed argument>, first: 1, sizeArg: <feed argument>, size: 50 }, maxPages }
//                    a page with fewer than `size` records (or none) is the last.
//   resultType:  when the operation returns a union (an OpenAPI operation with error responses:
//                `VoltifyOffersResponse | VoltifyError`), the member that carries the records; the
//                selection becomes `{ __typename ... on <resultType> { ... } }` and a payload of
//                another member is a FeedPayloadError.
//   items:       path of the record list in the payload ('.' = the payload is the list); without it
//                the payload is one record.
//   fields:      canonical key -> field spec (which keys exist and which are required: kinds.ts)
//
// Field spec: a path string, or { path, unit, map, default, const, items, fields }:
//   path      where the value is, relative to the record (or to the enclosing `path`/`items` element);
//             for single values also a context path:
//               $request.<input>   an input of the call (e.g. $request.utilityId of a utility-scoped
//                                  feed, whose offers do not repeat it); must be always given
//               $page.<path>       a field of the page outside the record list (e.g. $page.territory)
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
  CALL_SCOPES,
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
import { describeType, isGraphQLName, isObjectLike, parsePath, PathSyntaxError, readPath, type ParsedPath, type PathSegment } from './paths.js';
import { convertUnit, DIMENSION_OF, unitInfo, unitsOfDimension, UnitValueError, UNITS, type UnitName } from './units.js';
import { checkRanges } from './plausibility.js';
import {
  AUTOMATIC_KEYS,
  KIND_NAMES,
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

export { FEED_INPUT_KEYS, type FeedInputKey };

export const DEFAULT_TIMEOUT_MS = 2000;
export const DEFAULT_MAX_ITEMS = 10_000;
export const DEFAULT_MAX_PAGES = 10;
export const DEFAULT_UTILITY_CACHE_SECONDS = 60;

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

const TOP_KEYS = ['kind', 'operation', 'scope', 'timeoutMs', 'sampleZip', 'sampleState', 'maxItems', 'pagination', 'cacheSeconds', 'args', 'resultType', 'items', 'fields'];
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

  const scope = scopeOf(p, def, cfg.scope);
  const inputs: ScopeInputs = (def && def.scopes[scope]) || { always: [], sometimes: [] };
  const timeoutMs = intSetting(p, cfg, 'timeoutMs', 1, 600_000, DEFAULT_TIMEOUT_MS);
  const maxItems = intSetting(p, cfg, 'maxItems', 1, 1_000_000, DEFAULT_MAX_ITEMS);
  const cacheSeconds = cacheSecondsOf(p, cfg, scope);
  const sampleZip = stringSetting(p, cfg, 'sampleZip', /^[0-9]{5}$/, 'a 5-digit ZIP code');
  const sampleState = stringSetting(p, cfg, 'sampleState', /^[A-Z]{2}$/, 'a two-letter state code');

  const args = compileArgs(p, cfg.args, scope, inputs, def?.kind);

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
  const pages = compilePagination(p, cfg.pagination, args, items, reads);

  let rootTable: TableReader | undefined;
  const units = new Map<string, UnitName>();
  if (def) {
    if (cfg.fields === undefined) p.add('fields', `required: the mapping of the ${def.kind} record`);
    else {
      const c: Ctx = { p, reads, kind: def.kind, scope, inputs, units, field: '', prefix: items ? items.segments : [], parent: itemsRead };
      rootTable = compileTable(c, def.fields, cfg.fields, 'fields', AUTOMATIC_KEYS[def.kind]);
    }
  }
  p.throwIfAny(source);

  const kind = def!;
  const plan: MappingPlan = { resultType, items, reads, args, maxItems, scope, inputs, pagination: pages?.pagination ?? null };
  const shape: PayloadShape = { source, kind, resultType, items, maxItems, table: rootTable!, units, next: pages?.next ?? null };
  const binding: CompiledFeedBinding = {
    source,
    kind: kind.kind,
    operation: operation as string,
    selectionSet: buildSelectionSet(reads, resultType),
    timeoutMs,
    scope,
    pagination: plan.pagination,
    cacheSeconds,
    ...(sampleZip !== undefined ? { sampleZip } : {}),
    ...(sampleState !== undefined ? { sampleState } : {}),
    plan,
    args: (input: FeedInput) => buildArgs(args, input),
    map: (payload: unknown, request?: FeedInput) => mapPayload(shape, payload, request ?? {}),
  };
  return Object.freeze(binding);
}

function scopeOf(p: Problems, def: KindDef<FeedKind> | undefined, raw: unknown): CallScope {
  const supported = def ? (Object.keys(def.scopes) as CallScope[]) : [...CALL_SCOPES];
  if (raw === undefined) return supported[0]!;
  if (typeof raw !== 'string' || !(CALL_SCOPES as readonly string[]).includes(raw)) {
    p.add('scope', `expected one of ${list(CALL_SCOPES)}, got ${describeType(raw)}`);
    return supported[0]!;
  }
  if (!supported.includes(raw as CallScope)) {
    p.add('scope', `${def!.kind} feeds are called per ${list(supported)} only, not per ${raw}`);
    return supported[0]!;
  }
  return raw as CallScope;
}

function cacheSecondsOf(p: Problems, cfg: Record<string, unknown>, scope: CallScope): number {
  if (scope !== 'utility') {
    if (cfg.cacheSeconds !== undefined) p.add('cacheSeconds', 'applies to utility-scoped feeds only (scope: utility)');
    return 0;
  }
  return intSetting(p, cfg, 'cacheSeconds', 0, 86_400, DEFAULT_UTILITY_CACHE_SECONDS);
}

function intSetting(p: Problems, cfg: Record<string, unknown>, key: string, min: number, max: number, fallback: number, label = key): number {
  const v = cfg[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    p.add(label, `expected an integer ${min}..${max}, got ${describeType(v)}`);
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

function compileArgs(p: Problems, raw: unknown, scope: CallScope, inputs: ScopeInputs, kind: FeedKind | undefined): PlannedArg[] {
  const out = parseArgs(p, raw);
  const given = [...inputs.always, ...inputs.sometimes];
  return out.filter((a) => {
    if (!kind || !a.from || given.includes(a.from)) return true;
    p.add(a.key, `${a.from} is never given to a ${scope}-scoped ${kind} feed (it gets ${list(given)})`);
    return false;
  });
}

function parseArgs(p: Problems, raw: unknown): PlannedArg[] {
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

// ------------------------------------------------------------------------------------------ pagination

/** Where the next page starts, read from a page and the number of records it listed. */
type NextReader = (page: unknown, listed: number) => NonNullable<MappedPayload<unknown>['next']>;

function compilePagination(
  p: Problems,
  raw: unknown,
  args: PlannedArg[],
  items: ParsedPath | null,
  reads: PlannedRead[],
): { pagination: Pagination; next: NextReader } | null {
  if (raw === undefined || raw === null) return null;
  if (!isObjectLike(raw)) {
    p.add('pagination', `expected { cursor: { arg, next } } or { page: { arg, size } }, got ${describeType(raw)}`);
    return null;
  }
  for (const k of Object.keys(raw)) if (!['cursor', 'page', 'maxPages'].includes(k)) p.add(`pagination.${k}`, 'unknown setting (known: cursor, page, maxPages)');
  const maxPages = intSetting(p, raw, 'maxPages', 1, 1000, DEFAULT_MAX_PAGES, 'pagination.maxPages');
  if ((raw.cursor === undefined) === (raw.page === undefined)) {
    p.add('pagination', 'set exactly one of cursor or page');
    return null;
  }
  if (!items) p.add('items', 'a paginated feed needs items: the record list of each page');
  const style = raw.cursor !== undefined ? 'cursor' : 'page';
  const spec = raw[style];
  const at = `pagination.${style}`;
  if (!isObjectLike(spec)) {
    p.add(at, `expected a mapping of settings, got ${describeType(spec)}`);
    return null;
  }
  const known = style === 'cursor' ? ['arg', 'next'] : ['arg', 'first', 'sizeArg', 'size'];
  for (const k of Object.keys(spec)) if (!known.includes(k)) p.add(`${at}.${k}`, `unknown setting (known: ${list(known)})`);
  const argName = (k: string, required: boolean): string | null => {
    const v = spec[k];
    if (v === undefined && !required) return null;
    if (typeof v !== 'string' || !isGraphQLName(v)) {
      p.add(`${at}.${k}`, `expected the name of a feed argument, got ${describeType(v)}`);
      return null;
    }
    if (args.some((a) => a.name === v)) p.add(`${at}.${k}`, `argument "${v}" is under args too; pagination sets it`);
    return v;
  };
  const arg = argName('arg', true);
  if (style === 'cursor') {
    if (spec.next === undefined) {
      p.add(`${at}.next`, 'required: the path of the next cursor in a page (e.g. paging.next)');
      return null;
    }
    const next = pathOf(p, `${at}.next`, spec.next);
    if (!next || !arg) return null;
    reads.push({ key: `${at}.next`, prefix: [], path: next, expect: { kind: 'leaf', accepts: 'text', list: false } });
    return {
      pagination: { style, arg, maxPages },
      next: (page) => {
        const v = readPath(page, next, 'one');
        return { cursor: typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null };
      },
    };
  }
  const sizeArg = argName('sizeArg', false);
  const first = intSetting(p, spec, 'first', 0, 1_000_000, 1, `${at}.first`);
  if (spec.size === undefined) p.add(`${at}.size`, 'required: the number of records a full page has');
  const size = intSetting(p, spec, 'size', 1, 100_000, 1, `${at}.size`);
  if (!arg) return null;
  return { pagination: { style, arg, first, sizeArg, size, maxPages }, next: (_page, listed) => ({ more: listed >= size }) };
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
  return (ctx, where, env) => {
    const out: Values = {};
    for (const [name, read] of readers) {
      const v = read(ctx, where, env);
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

/** A single value: shape of the spec, unit, map, then a constant or a read (record, page or request). */
function compileScalar(c: Ctx, def: FieldDef, vt: ScalarType, spec: Spec, key: string, name: string): FieldReader | undefined {
  if (!scalarSpecShapeOk(c, spec, key, name)) return undefined;
  const unit = scalarUnit(c, vt, spec, key, name);
  if (unit === null) return undefined;
  if (unit) c.units.set(`${c.field}${name}`, unit);
  let map: Record<string, unknown> | undefined;
  if (spec.map !== undefined) {
    map = mapOf(c.p, `${key}.map`, spec.map);
    if (!map) return undefined;
  }
  const finalize = scalarFinalizer(def, vt, unit, map);
  if (hasOwn(spec, 'const')) return scalarConstant(c, spec.const, finalize, key, name);
  return scalarRead(c, vt, spec, key, name, unit, map, finalize);
}

type Finalize = (v: unknown, label: string) => unknown;

function scalarSpecShapeOk(c: Ctx, spec: Spec, key: string, name: string): boolean {
  if (disallow(c, spec, key, ['items', 'fields'], `${name} is a single value; items/fields do not apply`)) return false;
  const hasConst = hasOwn(spec, 'const');
  if (hasConst && (spec.path !== undefined || hasOwn(spec, 'default'))) {
    c.p.add(key, 'const excludes path and default');
    return false;
  }
  if (!hasConst && spec.path === undefined) {
    c.p.add(`${key}.path`, 'required (or const)');
    return false;
  }
  return true;
}

/** The feed's unit of a quantity (its kind's default when the YAML names none); undefined for non-quantities, null on a problem. */
function scalarUnit(c: Ctx, vt: ScalarType, spec: Spec, key: string, name: string): UnitName | undefined | null {
  if (vt.type !== 'quantity') {
    if (spec.unit === undefined) return undefined;
    c.p.add(`${key}.unit`, `${name} takes no unit`);
    return null;
  }
  const dim = DIMENSION_OF[vt.target];
  if (spec.unit === undefined) {
    if (vt.defaultUnit) return vt.defaultUnit;
    c.p.add(`${key}.unit`, `required: ${name} is ${dim}; state the feed's unit (one of ${list(unitsOfDimension(dim))})`);
    return null;
  }
  const info = unitInfo(spec.unit);
  if (!info) c.p.add(`${key}.unit`, `unknown unit ${JSON.stringify(spec.unit)} (known: ${list(Object.keys(UNITS))})`);
  else if (info.dimension !== dim) c.p.add(`${key}.unit`, `${info.name} is ${info.dimension}, but ${name} is ${dim} (one of ${list(unitsOfDimension(dim))})`);
  else return info.name;
  return null;
}

/** A value as read (or defaulted) -> the canonical value: map, null handling, type and unit. */
function scalarFinalizer(def: FieldDef, vt: ScalarType, unit: UnitName | undefined, map: Record<string, unknown> | undefined): Finalize {
  const nullable = (vt.type === 'string' || vt.type === 'quantity') && vt.nullable === true;
  const omittable = !def.required && def.absent === undefined;
  return (v, label) => {
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
}

function scalarConstant(c: Ctx, raw: unknown, finalize: Finalize, key: string, name: string): FieldReader | undefined {
  let value: unknown;
  try {
    value = finalize(raw, name);
  } catch (e) {
    c.p.add(`${key}.const`, errorText(e));
    return undefined;
  }
  return () => value;
}

const REQUEST_PREFIX = '$request.';
const PAGE_PREFIX = '$page.';

/** Where a path reads from: the record (or enclosing element), the page, or the call's inputs. */
type ReadFrom = { from: 'context' | 'page'; path: ParsedPath } | { from: 'request'; input: FeedInputKey; path: ParsedPath };

function readFrom(c: Ctx, raw: unknown, key: string): ReadFrom | null {
  if (typeof raw === 'string' && raw.startsWith('$')) {
    if (raw.startsWith(PAGE_PREFIX)) {
      const path = pathOf(c.p, key, raw.slice(PAGE_PREFIX.length));
      return path && { from: 'page', path: { ...path, text: raw } };
    }
    const input = raw.slice(REQUEST_PREFIX.length);
    if (!raw.startsWith(REQUEST_PREFIX) || !(FEED_INPUT_KEYS as readonly string[]).includes(input)) {
      c.p.add(key, `unknown context path ${JSON.stringify(raw)} (use $request.<input> with an input of ${list(FEED_INPUT_KEYS)}, or $page.<path>)`);
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
): FieldReader | undefined {
  const at = readFrom(c, spec.path, `${key}.path`);
  if (!at) return undefined;
  const hasDefault = hasOwn(spec, 'default');
  if (hasDefault && spec.default !== null) {
    try {
      finalize(spec.default, name);
    } catch (e) {
      c.p.add(`${key}.default`, errorText(e));
      return undefined;
    }
  }
  if (at.from !== 'request') {
    const accepts: LeafClass =
      vt.type === 'quantity' ? (UNITS[unit!].moneyLike ? 'money' : 'number') : vt.type === 'int' ? 'number' : vt.type === 'enum' ? 'enum' : 'text';
    const expect: Expect = { kind: 'leaf', accepts, list: false };
    if (map) expect.mapKeys = Object.keys(map);
    if (vt.type === 'enum') expect.values = vt.values;
    // A page path is checked from the result's root, whatever record list encloses it.
    c.reads.push(at.from === 'page' ? { key, prefix: [], path: at.path, expect } : { key, prefix: c.prefix, path: at.path, parent: c.parent, expect });
  }
  const { path } = at;
  const read =
    at.from === 'request'
      ? (_ctx: Record<string, unknown>, env: ReadEnv) => (env.request as Record<string, unknown>)[at.input]
      : at.from === 'page'
        ? (_ctx: Record<string, unknown>, env: ReadEnv) => readPath(env.page, path, 'one')
        : (ctx: Record<string, unknown>) => readPath(ctx, path, 'one');
  const dflt = spec.default;
  return (ctx, where, env) => {
    let v = read(ctx, env);
    if ((v === undefined || v === null) && hasDefault) v = dflt;
    return finalize(v, `${where}${name} (${path.text})`);
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
  const table = compileTable({ ...inner, field: `${c.field}${name}.` }, fields, spec.fields, `${key}.fields`);
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
  return (ctx, where, env) => {
    const { obj, label } = nested.locate(ctx, where);
    if (obj === undefined || obj === null) {
      if (vt.nullable) return null;
      throw new RecordError(`${label}: missing`);
    }
    if (!isObjectLike(obj)) throw new RecordError(`${label}: expected an object, got ${describeType(obj)}`);
    return table(obj, `${where}${name}.`, env);
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
    const table = compileTable({ ...c, field: `${c.field}${name}.`, prefix: [...c.prefix, ...items.segments], parent: read }, vt.fields, spec.fields, `${key}.fields`);
    if (!table) return undefined;
    return (ctx, where, env) => {
      const v = readPath(ctx, items, 'many');
      const label = `${where}${name} (${items.text})`;
      if (v === undefined || v === null) return atLeast([], label);
      if (!Array.isArray(v)) throw new RecordError(`${label}: expected a list, got ${describeType(v)}`);
      if (v.length > MAX_NESTED_ITEMS) throw new RecordError(`${label}: ${v.length} entries, more than ${MAX_NESTED_ITEMS}`);
      const out = v.map((el, i) => {
        if (!isObjectLike(el)) throw new RecordError(`${where}${name}[${i}]: expected an object, got ${describeType(el)}`);
        return table(el, `${where}${name}[${i}].`, env);
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
    return atLeast([table(obj, `${where}${name}[0].`, env)], label);
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
  const mapped: MappedPayload<CanonicalByKind[K]> = { records: out, rejected, doubts };
  if (shape.next) mapped.next = shape.next(payload, records.length);
  return mapped;
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
