// The headers of an answer, as the flat [name, value, ...] list writeHead takes: the same names,
// order and precedence as spreading the API headers, the JSON content type, CORS, x-request-id,
// the request's plugin headers and the reply's into one object (a later name replaces the value
// in place), '' removing a header; then x-cache and content-length.
import { API_HEADERS, JSON_HEADERS } from './security-headers.js';

/** The headers every answer starts from (API_HEADERS, then the JSON content type), merged once. */
const BASE_HEADERS: [string, string][] = Object.entries({ ...API_HEADERS, ...JSON_HEADERS });
const BASE_LIST: string[] = BASE_HEADERS.flat();
/** Names set before a reply's own: a reply header with one of them takes the merging path. */
const RESERVED = new Set([...BASE_HEADERS.map(([k]) => k), 'x-request-id', 'x-cache', 'content-length']);

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

export function answerHeaderList(
  cors: Record<string, string> | null,
  requestId: string,
  stateHeaders: Record<string, string>,
  replyHeaders: Record<string, string>,
  cache: string | null,
  contentLength: number,
): string[] {
  // Most answers (keyed API answers, cache hits) have no CORS or plugin headers and add names of
  // their own only: the list is the base one and theirs, without merging.
  if ((!cors || !hasKeys(cors)) && !hasKeys(stateHeaders)) {
    const list = BASE_LIST.slice();
    list.push('x-request-id', requestId);
    for (const k in replyHeaders) {
      if (RESERVED.has(k)) return mergedHeaderList(cors, requestId, stateHeaders, replyHeaders, cache, contentLength);
      const v = replyHeaders[k]!;
      if (v !== '') list.push(k, v);
    }
    if (cache) list.push('x-cache', cache);
    list.push('content-length', String(contentLength));
    return list;
  }
  return mergedHeaderList(cors, requestId, stateHeaders, replyHeaders, cache, contentLength);
}

/** The general case, merged in a Map (exported for tests: the fast path must equal it). */
export function mergedHeaderList(
  ...[cors, requestId, stateHeaders, replyHeaders, cache, contentLength]: Parameters<typeof answerHeaderList>
): string[] {
  // Growing a header object property by property changes its V8 shape at each step, a cost a hit
  // noticed (docs/benchmark.md, "The cache hit"); a Map does not.
  const merged = new Map<string, string>(BASE_HEADERS);
  if (cors) for (const k in cors) merged.set(k, cors[k]!);
  merged.set('x-request-id', requestId);
  for (const k in stateHeaders) merged.set(k, stateHeaders[k]!);
  for (const k in replyHeaders) merged.set(k, replyHeaders[k]!);
  if (cache) merged.set('x-cache', cache);
  merged.set('content-length', String(contentLength));
  const list: string[] = [];
  for (const [k, v] of merged) if (v !== '') list.push(k, v);
  return list;
}
