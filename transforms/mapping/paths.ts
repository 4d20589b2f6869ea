// Path syntax of the feed mapping, and reading a path out of a payload.
//
//   path      := '.' | segment ('.' segment)*          '.' = the context itself (e.g. `items: '.'`)
//   segment   := Name selector*                         Name: a GraphQL field name
//   selector  := '[]'                                   "a list is expected here" (not a list -> missing)
//              | '[' digits ']'                         that element of the list (0-based)
//              | '[' Name '=' value ']'                 keep the list elements whose Name equals value
//   value     := anything but ']' (surrounding '…' or "…" quotes are stripped)
//
// Examples: `data.plans`, `pricing.components[kind=ENERGY]`, `pricing.components[kind=BASE].amount`,
// `Envelope.Body.Offers.Offer[]`, `rates[0].value`.
//
// Reading (readPath):
// - Only own properties are read (a payload key `__proto__`/`constructor` is never inherited data).
// - A property read on a list reads it on the list's first element (after any filter), so
//   `components[kind=BASE].amount` is the amount of the first BASE component. Missing -> undefined.
// - A filter on a list keeps the matching elements (element[key], a string/number/boolean, compared
//   as text with value). In mode 'one' (a scalar or object is needed) a path that ends in a filter
//   yields the first match, or undefined when nothing matches. In mode 'many' it yields the list.
// - null along the way yields null (so "the path is null" and "the path is absent" can both be seen).

export type Selector = { type: 'list' } | { type: 'index'; index: number } | { type: 'filter'; key: string; value: string };

export interface PathSegment {
  name: string;
  selectors: Selector[];
}

export interface ParsedPath {
  /** The path as written. */
  text: string;
  /** Empty for '.', the context itself. */
  segments: PathSegment[];
}

export class PathSyntaxError extends Error {
  constructor(
    public path: string,
    detail: string,
  ) {
    super(`invalid path ${JSON.stringify(path)}: ${detail}`);
    this.name = 'PathSyntaxError';
  }
}

/** A GraphQL name: a path's field names, filter keys, and the names a mapping block gives. */
export const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const NAME = GRAPHQL_NAME;
const MAX_PATH_LENGTH = 500;

/** Parses a path; throws PathSyntaxError. */
export function parsePath(text: unknown): ParsedPath {
  if (typeof text !== 'string') throw new PathSyntaxError(String(text), `expected a string, got ${describeType(text)}`);
  if (text.length > MAX_PATH_LENGTH) throw new PathSyntaxError(text.slice(0, 40) + '…', 'too long');
  if (text === '.') return { text, segments: [] };
  if (text === '') throw new PathSyntaxError(text, "empty (use '.' for the context itself)");

  const segments: PathSegment[] = [];
  let i = 0;
  const fail = (detail: string): never => {
    throw new PathSyntaxError(text, `${detail} at character ${i + 1}`);
  };
  for (;;) {
    // name
    const start = i;
    while (i < text.length && text[i] !== '.' && text[i] !== '[') i++;
    const name = text.slice(start, i);
    if (!name) fail('expected a field name');
    if (!NAME.test(name)) {
      i = start;
      fail(`${JSON.stringify(name)} is not a field name`);
    }
    const selectors: Selector[] = [];
    while (text[i] === '[') {
      const close = findClose(text, i);
      if (close < 0) fail("unclosed '['");
      const inner = text.slice(i + 1, close);
      selectors.push(parseSelector(inner, () => fail(`bad selector [${inner}]`)));
      i = close + 1;
    }
    segments.push({ name, selectors });
    if (i === text.length) break;
    if (text[i] !== '.') fail(`unexpected ${JSON.stringify(text[i])}`);
    i++;
    if (i === text.length) fail('path ends with "."');
  }
  return { text, segments };
}

function findClose(text: string, open: number): number {
  let quote: string | null = null;
  for (let j = open + 1; j < text.length; j++) {
    const c = text[j];
    if (quote) {
      if (c === quote) quote = null;
    } else if ((c === "'" || c === '"') && text[j - 1] === '=') {
      quote = c;
    } else if (c === ']') {
      return j;
    }
  }
  return -1;
}

function parseSelector(inner: string, fail: () => never): Selector {
  if (inner === '') return { type: 'list' };
  if (/^[0-9]+$/.test(inner)) {
    const index = Number(inner);
    if (!Number.isSafeInteger(index)) fail();
    return { type: 'index', index };
  }
  const eq = inner.indexOf('=');
  if (eq <= 0) fail();
  const key = inner.slice(0, eq).trim();
  let value = inner.slice(eq + 1).trim();
  if (!NAME.test(key)) fail();
  if (value.length >= 2 && (value[0] === "'" || value[0] === '"') && value[value.length - 1] === value[0]) {
    value = value.slice(1, -1);
  }
  return { type: 'filter', key, value };
}

export function isObjectLike(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function own(obj: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

function matches(el: unknown, key: string, value: string): boolean {
  if (!isObjectLike(el)) return false;
  const v = own(el, key);
  return (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') && String(v) === value;
}

function firstMatch(cur: unknown, key: string, value: string): unknown {
  if (!Array.isArray(cur)) return matches(cur, key, value) ? cur : undefined;
  for (let i = 0; i < cur.length; i++) if (matches(cur[i], key, value)) return cur[i];
  return undefined;
}

/**
 * Reads `path` from `root`. mode 'one': a scalar/object is wanted (a trailing filter yields its first
 * match); mode 'many': a list is wanted (returned as found). Never throws.
 */
export function readPath(root: unknown, path: ParsedPath, mode: 'one' | 'many'): unknown {
  let cur: unknown = root;
  let filtered = false;
  const segments = path.segments;
  for (let s = 0; s < segments.length; s++) {
    const seg = segments[s]!;
    if (cur === null || cur === undefined) return cur;
    if (Array.isArray(cur)) cur = cur[0]; // a property read on a list reads it on the first element
    if (!isObjectLike(cur)) return undefined;
    cur = own(cur, seg.name);
    filtered = false;
    const selectors = seg.selectors;
    for (let i = 0; i < selectors.length; i++) {
      const sel = selectors[i]!;
      if (cur === null || cur === undefined) return cur;
      if (sel.type === 'list') {
        if (!Array.isArray(cur)) return undefined;
      } else if (sel.type === 'index') {
        cur = Array.isArray(cur) ? cur[sel.index] : undefined;
        filtered = false;
      } else if (i === selectors.length - 1 && (s < segments.length - 1 || mode === 'one')) {
        // Only the first match is read (by the next segment, or as the answer in mode 'one'):
        // found without building the list of matches.
        cur = firstMatch(cur, sel.key, sel.value);
        if (cur === undefined) return undefined;
      } else {
        const list: unknown[] = Array.isArray(cur) ? cur : [cur];
        cur = list.filter((el) => matches(el, sel.key, sel.value));
        filtered = true;
      }
    }
  }
  if (mode === 'one' && filtered && Array.isArray(cur)) return cur[0];
  return cur;
}

export function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `string ${preview(v)}`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${String(v)}`;
  if (typeof v === 'object') return 'an object';
  return typeof v;
}

function preview(s: string): string {
  const t = JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
  return t;
}
