// A feed operation's HTTP call without Mesh's REST transport on every request. Mesh's resolver
// interpolates the endpoint, path, headers and query parameters, joins the URL, parses the body a
// second time (our edge validation parsed it first: its parse is handed to the first caller of an
// exchange here, later callers parse the text) and defines response metadata on it, a large share
// of an uncached request's CPU (docs/benchmark.md, "Uncached requests"). Its request is a function
// of the call's arguments and of the few context and environment values its templates name, so it
// is taken from Mesh's resolver once per distinct set of them (the resolver runs with a fetch that
// records the request and stops it) and sent through the same fetch afterwards. A 2xx JSON object
// or list is shaped as the resolver would have returned it; any other answer is handed to Mesh's
// resolver as the answer of its own fetch, so its errors are exactly what they were.
import { getDirectiveExtensions } from '@graphql-tools/utils';
import {
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLField,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import { NOT_SHARED, sharedOf, takeParsed } from '../sources/upstream/transport.js';

type Resolve = NonNullable<GraphQLField<unknown, unknown>['resolve']>;
type Fetch = (url: string, init: RequestInit, context: unknown, info: unknown) => Promise<Response>;

/** Calls the operation: the payload Mesh's resolver would have returned. */
export type FeedFetch = (args: Record<string, unknown>, context: Record<string | symbol, unknown>) => Promise<unknown>;

interface CapturedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** Requests remembered per operation (distinct argument sets: ZIP codes, states); cleared when full. */
const REMEMBERED_MAX = 2000;
/** Thrown by the recording fetch (not an Error: no stack is captured). */
const RECORDED = Symbol('request recorded');
const TEMPLATE = /\{([^{}]*)\}/g;
const REFERENCE = /^(args|context|env)((?:\.[A-Za-z_$][\w$]*)+)$/;

/**
 * The operation's call with Mesh's request and our response handling, or null when its answer must
 * go through Mesh's resolver: a return type other than an object or a union (or a list of unions),
 * or a template naming something other than `args.*`, `context.*` and `env.*` (the request would
 * not be a function of what the key holds). `handler`: the source's handler configuration in
 * .meshrc.yaml, whose templates (endpoint, headers, query parameters) the resolver interpolates too.
 *
 * A union's member is chosen from the answer's status code (Mesh's type resolver reads the
 * `$statusCode` the resolver defines on the JSON): the payload carries it the same way, and an
 * answer the type resolver does not place without the rest of Mesh's metadata goes to Mesh's
 * resolver.
 */
export function feedFetch(
  schema: GraphQLSchema,
  field: GraphQLField<unknown, unknown>,
  resolve: Resolve,
  info: GraphQLResolveInfo,
  handler: unknown,
): FeedFetch | null {
  const named = getNamedType(field.type);
  const list = isListType(isNonNullType(field.type) ? field.type.ofType : field.type);
  const union = isUnionType(named) && !list ? named : null;
  if (handler === undefined || !(isObjectType(named) || union)) return null;
  const refs = templateReferences([handler, getDirectiveExtensions(field, schema), getDirectiveExtensions(schema, schema)?.transport]);
  if (!refs) return null;
  const contextPaths = refs.filter((r) => r[0] === 'context').map((r) => r.slice(1));
  const envNames = refs.filter((r) => r[0] === 'env').map((r) => r[1]!);
  const fetchInfo = { ...info, sourceName: getDirectiveExtensions(field, schema)?.httpOperation?.[0]?.subgraph };
  const remembered = new Map<string, CapturedRequest | null>();

  const keyOf = (args: Record<string, unknown>, context: Record<string | symbol, unknown>): string => {
    let key = JSON.stringify(args);
    for (const path of contextPaths) key += `\u0000${String(valueAt(context, path))}`;
    for (const name of envNames) key += `\u0000${process.env[name] ?? ''}`;
    return key;
  };

  /** The request Mesh's resolver makes for these arguments; null when it is not a plain GET without a signal. */
  const record = async (args: Record<string, unknown>, context: Record<string | symbol, unknown>): Promise<CapturedRequest | null> => {
    let made: CapturedRequest | null = null;
    const recording: Fetch = (url, init) => {
      const plain = (init.method ?? 'GET') === 'GET' && init.body == null && !init.signal;
      made = plain ? { url, method: 'GET', headers: { ...(init.headers as Record<string, string>) } } : null;
      throw RECORDED;
    };
    try {
      await resolve(undefined, { ...args }, { ...context, fetch: recording }, info);
    } catch (err) {
      if (err !== RECORDED) return null;
    }
    return made;
  };

  /** Whether the union's type resolver names a member for the payload, which then carries its status as Mesh's would. */
  const placed = (payload: object, status: number, context: unknown): boolean => {
    Object.defineProperty(payload, '$statusCode', { value: status, configurable: true });
    return typeof union!.resolveType?.(payload, context, info, union!) === 'string';
  };

  /** Mesh's resolver, answered by `response` instead of a second call. */
  const meshWith = (args: Record<string, unknown>, context: Record<string | symbol, unknown>, response: Response) =>
    resolve(undefined, args, { ...context, fetch: () => Promise.resolve(response) }, info);

  /** The JSON as the resolver returns it, or undefined when Mesh's resolver must handle the answer. */
  const usable = (json: unknown, status: number, context: unknown): unknown => {
    const payload = shaped(json, list);
    return payload !== undefined && (!union || placed(payload as object, status, context)) ? payload : undefined;
  };

  return async (args, context) => {
    const fetch = context.fetch as Fetch | undefined;
    if (typeof fetch !== 'function') return resolve(undefined, args, context, info);
    const key = keyOf(args, context);
    let request = remembered.get(key);
    if (request === undefined) {
      request = await record(args, context);
      if (remembered.size >= REMEMBERED_MAX) remembered.clear();
      remembered.set(key, request);
    }
    if (request === null) return resolve(undefined, args, context, info);
    const response = await fetch(request.url, { method: request.method, headers: { ...request.headers } }, context, fetchInfo);
    const status = response.status;
    if (status < 200 || status >= 300 || status === 204 || status === 205) return meshWith(args, context, response);
    // One payload per exchange for this operation: callers joining it get the first caller's
    // (completed in place once, then only read: mesh/gateway-mesh.ts sourceCall, the mapping).
    const shared = sharedOf(response, usable, (text, json) => usable(json ?? parsed(text), status, context));
    if (shared !== NOT_SHARED && shared !== undefined) return shared;
    const text = await response.text();
    const payload = shared === NOT_SHARED ? usable(takeParsed(response) ?? parsed(text), status, context) : undefined;
    if (payload !== undefined) return payload;
    const again = new Response(text, { status, statusText: response.statusText, headers: response.headers });
    return meshWith(args, context, again);
  };
}

/**
 * The `[root, ...path]` of every template expression in these values (strings anywhere inside), or
 * null when one names something else or is not a plain dotted path.
 */
function templateReferences(values: unknown[]): string[][] | null {
  const refs: string[][] = [];
  const strings: string[] = [];
  const gather = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(gather);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(gather);
  };
  values.forEach(gather);
  for (const s of strings) {
    for (const [, expression] of s.matchAll(TEMPLATE)) {
      const m = REFERENCE.exec(expression!.trim());
      if (!m) return null;
      refs.push([m[1]!, ...m[2]!.slice(1).split('.')]);
    }
  }
  return refs;
}

function valueAt(root: Record<string | symbol, unknown>, path: string[]): unknown {
  let cur: unknown = root;
  for (const key of path) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined;
  return cur;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The JSON as Mesh's resolver returns it for an object (or list of objects) return type: a list
 * where one is declared, the first element where it is not. Undefined for anything the resolver
 * would have handled another way (not JSON, a primitive, a null it cannot annotate).
 */
function shaped(json: unknown, list: boolean): unknown {
  if (json === null || typeof json !== 'object') return undefined;
  let value: unknown = json;
  if (list && !Array.isArray(value)) value = [value];
  else if (!list && Array.isArray(value)) value = value[0];
  if (Array.isArray(value)) return value.every((v) => v !== null && typeof v === 'object') ? value : undefined;
  return value !== null && typeof value === 'object' ? value : undefined;
}
