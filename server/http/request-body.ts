// Reads and checks a GraphQL-over-HTTP request body: size bound, JSON content type, a JSON object
// with a string `query`. Anything else is a 400 (or 413) with a GraphQL-shaped body.
import type { IncomingMessage } from 'node:http';
import { errorReply, type GraphQLRequestBody, type Reply } from './plugin.js';

export type { GraphQLRequestBody };

export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | Reply> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.resume();
    return Promise.resolve(errorReply(413, `Request body is larger than ${limitBytes} bytes.`, 'PAYLOAD_TOO_LARGE'));
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (v: Buffer | Reply) => {
      if (!done) {
        done = true;
        resolve(v);
      }
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        req.removeAllListeners('data');
        req.resume();
        finish(errorReply(413, `Request body is larger than ${limitBytes} bytes.`, 'PAYLOAD_TOO_LARGE'));
      } else chunks.push(chunk);
    });
    // A body that came in one chunk (most do) is that chunk: a copy would take a slice of
    // Buffer's pool, and a new pool (external memory) every ~50 requests.
    req.on('end', () => finish(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on('error', () => finish(errorReply(400, 'Request body could not be read.', 'BAD_REQUEST')));
    req.on('aborted', () => finish(errorReply(400, 'Request body was cut off.', 'BAD_REQUEST')));
  });
}

/** application/json and its +json relatives. */
const JSON_MEDIA = String.raw`^application\/(?:[\w.+-]+\+)?json\s*`;
const JSON_TYPE = new RegExp(String.raw`${JSON_MEDIA}(?:;\s*charset\s*=\s*"?utf-?8"?\s*)?$`, 'i');

function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && JSON_TYPE.test(value.trim());
}

/**
 * Bodies seen recently, parsed: partners repeat the same request text, and JSON.parse was a real
 * part of a cache hit's CPU (docs/benchmark.md, "The cache hit"). Entries are deeply frozen
 * because every request sending that text shares the object (a mutation would throw rather than
 * leak into another request). Bounded by count and by the size of a body worth keeping.
 */
const PARSED_MEMO_ENTRIES = 512;
const PARSED_MEMO_MAX_BYTES = 4096;
const parsedMemo = new Map<string, GraphQLRequestBody>();

/** A JSON media type naming a charset other than UTF-8 (its own message: the type itself was right). */
const JSON_OTHER_CHARSET = new RegExp(String.raw`${JSON_MEDIA};\s*charset\s*=`, 'i');

export function parseGraphQLBody(contentType: string | undefined, raw: Buffer): GraphQLRequestBody | Reply {
  if (!isJsonContentType(contentType)) {
    if (contentType !== undefined && JSON_OTHER_CHARSET.test(contentType.trim())) {
      return errorReply(400, 'Send the body in UTF-8: Content-Type: application/json (charset=utf-8, or no charset).', 'BAD_REQUEST');
    }
    return errorReply(400, 'Send the request with header Content-Type: application/json.', 'BAD_REQUEST');
  }
  let text = raw.toString('utf8');
  // A UTF-8 byte order mark (some editors and Windows tools write one): JSON allows a parser to skip it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const memoizable = raw.length <= PARSED_MEMO_MAX_BYTES;
  const known = memoizable ? parsedMemo.get(text) : undefined;
  if (known) return known;
  const checked = checkGraphQLBody(text);
  if (memoizable && !('status' in checked)) {
    if (parsedMemo.size >= PARSED_MEMO_ENTRIES) parsedMemo.clear();
    parsedMemo.set(text, deepFreeze(checked));
  }
  return checked;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const isReply = (v: unknown): v is Reply => typeof v === 'object' && v !== null && 'status' in v && 'body' in v;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const badRequest = (message: string) => errorReply(400, message, 'BAD_REQUEST');

function checkGraphQLBody(text: string): GraphQLRequestBody | Reply {
  const body = jsonObjectOf(text);
  if (isReply(body)) return body;
  const persisted = persistedQueryOf(body);
  if (isReply(persisted)) return persisted;
  // A persisted query (APQ) may name its document by hash alone.
  const hashOnly = persisted !== undefined && body.query === undefined;
  if (!hashOnly && (typeof body.query !== 'string' || body.query.trim() === ''))
    return badRequest('Request body must have a non-empty "query" string.');
  const variables = variablesOf(body);
  if (isReply(variables)) return variables;
  const operationName = body.operationName ?? null;
  if (operationName !== null && typeof operationName !== 'string') return badRequest('"operationName" must be a string.');
  const out: GraphQLRequestBody = { query: hashOnly ? '' : (body.query as string), variables, operationName };
  if (persisted !== undefined) out.persistedQuery = persisted;
  return out;
}

function jsonObjectOf(text: string): Record<string, unknown> | Reply {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return badRequest('Request body is not valid JSON.');
  }
  if (Array.isArray(parsed)) return badRequest('Batched requests are not supported; send one operation per request.');
  if (!isObject(parsed)) return badRequest('Request body must be a JSON object with a "query" string.');
  return parsed;
}

/** `extensions.persistedQuery` when given (its hash is checked by the persisted-queries plugin). */
function persistedQueryOf(body: Record<string, unknown>): Record<string, unknown> | undefined | Reply {
  const extensions = body.extensions ?? null;
  if (extensions !== null && !isObject(extensions)) return badRequest('"extensions" must be a JSON object.');
  const persisted = extensions?.persistedQuery;
  if (persisted !== undefined && !isObject(persisted))
    return badRequest('"extensions.persistedQuery" must be a JSON object with "version" and "sha256Hash".');
  return persisted;
}

function variablesOf(body: Record<string, unknown>): Record<string, unknown> | null | Reply {
  const variables = body.variables ?? null;
  if (variables === null) return null;
  if (!isObject(variables)) return badRequest('"variables" must be a JSON object.');
  const shapeProblem = variablesShapeProblem(variables);
  return shapeProblem ? badRequest(shapeProblem) : variables;
}

/**
 * Bounds on the shape of `variables`, so that nothing downstream (cache keys, replay, logs) walks
 * client input deeper or wider than this. The schema's deepest input is an object inside an array
 * inside a variable (a few levels); the bounds leave ample room.
 */
const MAX_VARIABLES_DEPTH = 32;
const MAX_VARIABLE_VALUES = 10_000;

/** Why `variables` is out of bounds, or null. Iterative: a 20,000-level value costs no stack. */
function variablesShapeProblem(variables: object): string | null {
  const stack: [unknown, number][] = [[variables, 1]];
  let values = 0;
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (++values > MAX_VARIABLE_VALUES) return `"variables" holds more than ${MAX_VARIABLE_VALUES} values.`;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_VARIABLES_DEPTH) return `"variables" is nested more than ${MAX_VARIABLES_DEPTH} levels deep.`;
    for (const v of Array.isArray(value) ? value : Object.values(value)) stack.push([v, depth + 1]);
  }
  return null;
}
