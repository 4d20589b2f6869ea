// Checks a compiled mapping against the source's GraphQL schema (what the handler generated from
// the feed's OpenAPI / JSON Schema): the operation exists on Query, every argument exists and can
// take our value, required arguments are mapped, every path exists on the operation's return type
// (following lists and nullability), lists/objects/scalars are where the mapping expects them, and
// leaf types suit the unit (no Boolean for money, no String for a count...). Enum-typed leaves: every
// `map` key must be a value of the enum (e.g. `fixed-rate` vs the generated `fixed_rate`).
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { FeedConfigError, type FeedBinding } from './types.js';
import { isCompiledBinding, Problems, type Expect, type MappingPlan, type PlannedArg, type PlannedRead } from './compile.js';
import type { PathSegment } from './paths.js';

const MAX_LISTED = 12;
const BUILT_IN_SCALARS = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);

/**
 * A type in our words. The handlers generate type names from contract positions
 * (query_territoryOffers_offers_items_items_supplier) that appear nowhere a feed author looks, so
 * messages say what a value is (text, a list of objects, an enum) and where (its path).
 */
function kindOf(type: GraphQLOutputType | GraphQLInputType | GraphQLNamedType): string {
  const t = getNullableType(type);
  if (isListType(t)) return `a list of ${kindOf(t.ofType).replace(/^an? /, '')}s`;
  if (isEnumType(t)) return 'an enum';
  if (isScalarType(t))
    return BUILT_IN_SCALARS.has(t.name)
      ? { String: 'text', ID: 'an id', Int: 'an integer', Float: 'a number', Boolean: 'a boolean' }[t.name]!
      : 'a custom scalar';
  if (isUnionType(t)) return 'a choice of object types';
  if (isInputObjectType(t)) return 'an input object';
  return 'an object';
}
const names = (xs: string[]): string => (xs.length > MAX_LISTED ? `${xs.slice(0, MAX_LISTED).join(', ')}, …` : xs.join(', '));

/** Throws FeedConfigError (naming the feed and the first key; the message lists every problem). */
export function validateAgainstSchema(binding: FeedBinding, schema: GraphQLSchema): void {
  if (!isCompiledBinding(binding)) {
    throw new FeedConfigError(String(binding?.source), '(binding)', 'not made by compileFeedMapping; cannot validate');
  }
  const p = new Problems();
  const query = schema.getQueryType();
  const fields = query ? query.getFields() : {};
  const field = Object.prototype.hasOwnProperty.call(fields, binding.operation) ? fields[binding.operation] : undefined;
  if (!field) {
    p.add('operation', `the source has no Query field "${binding.operation}" (Query fields: ${names(Object.keys(fields)) || 'none'})`);
    p.throwIfAny(binding.source);
    return;
  }
  const rootList = isListType(getNullableType(field.type));
  const root = resultRoot(p, binding.operation, getNamedType(field.type), binding.plan.resultType, schema);
  if (!root) {
    p.throwIfAny(binding.source);
    return;
  }
  if (!binding.plan.items) {
    if (rootList) p.add('items', `${binding.operation} returns ${kindOf(field.type)}; set items ('.' for the list itself)`);
    else if (!composite(root)) p.add('operation', `${binding.operation} returns ${root.name}, not an object`);
  }
  checkArgs(p, field, binding.plan);

  const failed = new Set<PlannedRead>();
  for (const read of binding.plan.reads) {
    if (read.parent && failed.has(read.parent)) {
      failed.add(read);
      continue;
    }
    const problem = checkRead(field.type, root, read);
    if (problem) {
      p.add(read.key, problem);
      failed.add(read);
    }
  }
  p.throwIfAny(binding.source);
}

function checkArgs(p: Problems, field: GraphQLField<unknown, unknown>, plan: MappingPlan): void {
  const defs = new Map<string, GraphQLArgument>(field.args.map((a) => [a.name, a]));
  const known = () => names([...defs.keys()]) || 'none';
  for (const a of plan.args) {
    const def = defs.get(a.name);
    if (!def) {
      p.add(a.key, `${field.name} has no argument "${a.name}" (arguments: ${known()})`);
      continue;
    }
    const problem = argProblem(def.type, a);
    if (problem) p.add(a.key, problem);
  }
  const paged = pagedArgs(plan);
  for (const [name, key] of paged) if (!defs.has(name)) p.add(key, `${field.name} has no argument "${name}" (arguments: ${known()})`);
  for (const def of field.args) {
    if (isNonNullType(def.type) && def.defaultValue === undefined)
      requireArg(p, plan, def.name, `${field.name} requires argument "${def.name}"`);
  }
}

/**
 * An argument the feed needs on every call (non-null, or in the request path) must be set on every
 * call: by a const, an input that is always given, or pagination (not the cursor: the first page
 * goes without one).
 */
export function requireArg(p: Problems, plan: MappingPlan, name: string, why: string): void {
  const a = plan.args.find((x) => x.name === name);
  const paged = pagedArgs(plan);
  if (plan.pagination?.style === 'cursor' && plan.pagination.arg === name) {
    p.add(paged.get(name)!, `${why}, but the first page is asked for without a cursor`);
  } else if (!a && !paged.has(name)) {
    p.add(`args.${name}`, `${why}; map it`);
  } else if (a?.from && !plan.inputs.always.includes(a.from)) {
    const hint =
      plan.scope === 'request' && a.from === 'utilityId' ? '; set scope: utility to call the feed once per utility serving the ZIP' : '';
    p.add(
      a.key,
      `${why}, but ${a.from} is not always given to a ${plan.scope}-scoped feed (always given: ${plan.inputs.always.join(', ')})${hint}`,
    );
  }
}

/** Feed arguments set by pagination -> the config key naming each. */
function pagedArgs(plan: MappingPlan): Map<string, string> {
  const pg = plan.pagination;
  const out = new Map<string, string>();
  if (!pg) return out;
  out.set(pg.arg, `pagination.${pg.style}.arg`);
  if (pg.style === 'page' && pg.sizeArg) out.set(pg.sizeArg, 'pagination.page.sizeArg');
  return out;
}

function argProblem(type: GraphQLInputType, a: PlannedArg): string | null {
  const nullable = getNullableType(type);
  const named = getNamedType(type);
  if (isListType(nullable) || isInputObjectType(named))
    return `the argument is ${kindOf(type)}, which cannot be mapped (only single values)`;
  // The values we may send: the const, or the map's values (plus input values the map passes through).
  const sent: unknown[] = a.hasConst ? [a.const] : a.map ? Object.values(a.map) : [];
  const inputIsText = !a.hasConst;
  if (isEnumType(named)) {
    const values = named.getValues().map((v) => v.name);
    const bad = sent.filter((v) => typeof v !== 'string' || !values.includes(v));
    if (bad.length) return `${bad.map((v) => JSON.stringify(v)).join(', ')} is not a value of the argument's enum (${names(values)})`;
    if (!a.hasConst && !a.map) {
      const ours = a.from === 'customerClass' ? ['RESIDENTIAL', 'COMMERCIAL'] : null;
      if (!ours || !ours.every((v) => values.includes(v))) {
        return `the argument is an enum (${names(values)}); translate ${a.from} with { from: ${a.from}, map: {...} }`;
      }
    }
    return null;
  }
  if (!isScalarType(named)) return null;
  const want =
    named.name === 'Int' || named.name === 'Float'
      ? 'number'
      : named.name === 'Boolean'
        ? 'boolean'
        : named.name === 'String' || named.name === 'ID'
          ? 'string'
          : null;
  if (!want) return null; // custom scalar: the feed's handler coerces
  const ok = (v: unknown) => v === null || typeof v === want || (want === 'string' && named.name === 'ID' && typeof v === 'number');
  if (sent.length && !sent.every(ok))
    return `the argument is ${kindOf(named)}; ${sent
      .filter((v) => !ok(v))
      .map((v) => JSON.stringify(v))
      .join(', ')} is not`;
  if (inputIsText && !a.map && want !== 'string')
    return `the argument is ${kindOf(named)} but ${a.from} is text; use { from, map } or { const }`;
  return null;
}

const composite = (t: GraphQLNamedType): t is GraphQLObjectType | GraphQLInterfaceType => isObjectType(t) || isInterfaceType(t);

/** The type the reads start from: the operation's (named) type, or the resultType member of it. */
function resultRoot(
  p: Problems,
  operation: string,
  named: GraphQLNamedType,
  resultType: string | null,
  schema: GraphQLSchema,
): GraphQLNamedType | null {
  const members = isUnionType(named) ? named.getTypes() : isInterfaceType(named) ? schema.getPossibleTypes(named) : null;
  if (!resultType) {
    if (members && isUnionType(named)) {
      p.add(
        'resultType',
        `${operation} returns one of ${names(members.map((m) => m.name))}; set resultType to the one that carries the records`,
      );
      return null;
    }
    return named;
  }
  if (members) {
    const m = members.find((t) => t.name === resultType);
    if (!m) {
      p.add('resultType', `${operation} returns one of ${names(members.map((t) => t.name))}, not ${resultType}`);
      return null;
    }
    return m;
  }
  if (named.name !== resultType) {
    p.add('resultType', `${operation} returns one type only; resultType ${resultType} does not apply`);
    return null;
  }
  return named;
}

/** Walks the read's path over the schema; returns a problem description or null. */
function checkRead(rootType: GraphQLOutputType, root: GraphQLNamedType, read: PlannedRead): string | null {
  const segs: PathSegment[] = [...read.prefix, ...read.path.segments];
  const shown = segs.length ? segs.map(segText).join('.') : '(the payload)';
  let type: GraphQLOutputType = rootType;
  let isList = isListType(getNullableType(type));
  let picked: 'none' | 'index' | 'filter' = 'none';
  let first = true;
  const done: string[] = [];
  for (const seg of segs) {
    const parent = first ? root : getNamedType(type);
    const where = done.length ? done.join('.') : 'the payload';
    done.push(segText(seg));
    first = false;
    if (isUnionType(parent)) return `path ${shown}: ${where} is one of several object types; the mapping cannot read through it`;
    if (!composite(parent)) return `path ${shown}: cannot read "${seg.name}" of ${where}, ${kindOf(parent)}`;
    const fields = parent.getFields();
    const f = Object.prototype.hasOwnProperty.call(fields, seg.name) ? fields[seg.name] : undefined;
    if (!f) return `path ${shown}: ${where} has no field "${seg.name}" (fields: ${names(Object.keys(fields))})`;
    type = f.type;
    isList = isListType(getNullableType(type));
    picked = 'none';
    for (const sel of seg.selectors) {
      const shownSel = sel.type === 'list' ? '[]' : sel.type === 'index' ? `[${sel.index}]` : `[${sel.key}=${sel.value}]`;
      if (!isList) return `path ${shown}: ${seg.name} is ${kindOf(type)}, not a list, so ${shownSel} does not apply`;
      if (sel.type === 'index') {
        isList = false;
        picked = 'index';
      } else if (sel.type === 'filter') {
        const el = getNamedType(type);
        if (!composite(el)) return `path ${shown}: ${seg.name} is ${kindOf(type)}; filters need objects`;
        const kfields = el.getFields();
        const kf = Object.prototype.hasOwnProperty.call(kfields, sel.key) ? kfields[sel.key] : undefined;
        if (!kf)
          return `path ${shown}: the elements of ${seg.name} have no field "${sel.key}" to filter on (fields: ${names(Object.keys(kfields))})`;
        const kt = getNamedType(kf.type);
        if (!isLeafType(kt) || isListType(getNullableType(kf.type)))
          return `path ${shown}: filter key ${sel.key} is ${kindOf(kf.type)}, not a single value`;
        if (isEnumType(kt) && !kt.getValue(sel.value)) {
          return `path ${shown}: "${sel.value}" is not a value of ${sel.key} (${names(kt.getValues().map((v) => v.name))})`;
        }
        picked = 'filter';
      }
    }
  }
  const named = first ? root : getNamedType(type);
  return checkEnd(read.expect, named, isList, picked, shown, kindOf(first ? root : type));
}

function segText(s: PathSegment): string {
  return (
    s.name + s.selectors.map((x) => (x.type === 'list' ? '[]' : x.type === 'index' ? `[${x.index}]` : `[${x.key}=${x.value}]`)).join('')
  );
}

function checkEnd(
  expect: Expect,
  named: GraphQLNamedType,
  isList: boolean,
  picked: string,
  shown: string,
  typeText: string,
): string | null {
  switch (expect.kind) {
    case 'list':
      if (!isList) return `path ${shown} is ${typeText}, not a list`;
      if (isUnionType(named)) return `path ${shown} is one of several object types; the mapping cannot read through it`;
      if (!composite(named)) return `path ${shown} is ${typeText}; items needs a list of objects`;
      return null;
    case 'object':
      if (isUnionType(named)) return `path ${shown} is one of several object types; the mapping cannot read through it`;
      if (!composite(named)) return `path ${shown} is ${typeText}, not an object`;
      if (isList && picked !== 'filter')
        return `path ${shown} is a list (${typeText}); pick one element with [key=value] or [0], or use items`;
      return null;
    case 'leaf': {
      if (!isLeafType(named)) return `path ${shown} is ${typeText}; map a field of it (e.g. ${shown}.<field>) or use fields`;
      if (expect.list && !isList) return `path ${shown} is ${typeText}, not a list`;
      if (!expect.list && isList) return `path ${shown} is a list (${typeText}); a single value is needed`;
      return leafProblem(expect, named, shown);
    }
  }
}

function leafProblem(expect: Extract<Expect, { kind: 'leaf' }>, named: GraphQLNamedType, shown: string): string | null {
  const mapKeys = expect.mapKeys ?? [];
  const hasMap = mapKeys.length > 0;
  const want = expect.accepts === 'money' ? 'an amount (number or decimal string)' : expect.accepts === 'number' ? 'a number' : 'text';
  if (isEnumType(named)) {
    const values = named.getValues().map((v) => v.name);
    if (hasMap) {
      const bad = mapKeys.filter((k) => !values.includes(k));
      if (bad.length) return `map keys ${bad.map((k) => JSON.stringify(k)).join(', ')} are not values of ${shown} (${names(values)})`;
    } else if (expect.accepts === 'number' || expect.accepts === 'money') {
      return `path ${shown} is an enum, expected ${want}`;
    }
    // Every value the feed can send must map onto one of ours (or be one of ours already).
    const ours = expect.values;
    if (ours) {
      const unmapped = values.filter((v) => !mapKeys.includes(v) && !ours.includes(v));
      if (unmapped.length) {
        return (
          `${shown} has values ${unmapped.map((v) => JSON.stringify(v)).join(', ')} that map to none of ${names([...ours])}; add them to ` +
          `map (map a value to null to reject such records)`
        );
      }
    }
    return null;
  }
  if (!isScalarType(named)) return null;
  switch (named.name) {
    case 'Boolean':
      return hasMap ? null : `path ${shown} is Boolean, expected ${want}`;
    case 'Int':
    case 'Float':
      return (expect.accepts === 'text' || expect.accepts === 'enum') && !hasMap
        ? `path ${shown} is ${kindOf(named)}, expected ${want}`
        : null;
    case 'String':
    case 'ID':
      return expect.accepts === 'number' && !hasMap
        ? `path ${shown} is ${kindOf(named)}, expected a number (text is accepted for money units only)`
        : null;
    default:
      return null; // custom scalars (BigInt, NonNegativeFloat, JSON...) are checked per record at run time
  }
}
