// One HTTP exchange with a feed: send, read the whole body under a size bound, and hand back a
// buffered answer that can be copied into as many Response objects as there are waiters.
import { STATUS_CODES } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Agent } from 'undici';
import { UpstreamError } from './errors.js';

/** One exchange, its body read whole under `maxBytes` (an UpstreamError 'too_large' beyond). */
export type Transport = (url: string, init: RequestInit & { signal: AbortSignal }, maxBytes: number) => Promise<BufferedResponse>;

export interface BufferedResponse {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array;
  /** Date.now() when the body was complete (age of stale copies). */
  receivedAt: number;
  /**
   * The body decoded as UTF-8 when the edge validation decoded it: every caller sharing the answer
   * (deduplicated calls) hands Mesh this one string instead of decoding the bytes again. Not kept
   * in stale copies (their size is counted by the bytes).
   */
  text?: string;
  /**
   * The edge validation's parse of the text, taken by the first caller that reads the answer as
   * JSON (`takeParsed`); later callers parse the text. Only one caller may have it: a caller may
   * change its copy (mesh/payload-completion.ts patches it in place). Not kept in stale copies.
   */
  parsed?: { value?: unknown };
  /**
   * What callers derive from this answer, by deriver (`sharedOf`): the first caller of a deriver
   * computes it, every caller sharing the exchange gets the same value. Not kept in stale copies.
   */
  derived?: Map<object, unknown>;
}

/** Redirects a feed may answer with before the call fails (as fetch would follow them). */
const MAX_REDIRECTS = 5;

/**
 * The default transport: undici's request API on a keep-alive pool. Not undici's fetch: its
 * WHATWG machinery (Request, Headers, a web stream per body) was the largest single cost of an
 * uncached answer, for three small JSON bodies. Redirects are followed like fetch; a compressed
 * answer (we never ask for one) is decoded under the same size bound.
 */
export function undiciTransport(connections: number): Transport & { close(): Promise<void> } {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections, pipelining: 1, maxRedirections: MAX_REDIRECTS });
  const transport: Transport = async (url, init, maxBytes) => {
    const target = new URL(url);
    const res = await agent.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: (init.method ?? 'GET') as 'GET',
      headers: outgoingHeaders(init.headers),
      body: typeof init.body === 'string' ? init.body : null,
      signal: init.signal,
    });
    // A body dropped early (over the bound) ends in an abort error on the stream: expected, not unhandled.
    res.body.on('error', () => {});
    const headers: [string, string][] = [];
    for (const [name, value] of Object.entries(res.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.push([name, v]);
      else if (value !== undefined) headers.push([name, value]);
    }
    const raw = await readBounded(res.body, res.headers['content-length'] as string | undefined, maxBytes, () => res.body.destroy());
    const body = await decoded(raw, res.headers['content-encoding'], maxBytes);
    return { status: res.statusCode, statusText: STATUS_CODES[res.statusCode] ?? '', headers, body, receivedAt: Date.now() };
  };
  return Object.assign(transport, {
    async close() {
      // In-flight calls end within their feed budget; do not wait longer than a second for them.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([agent.close(), new Promise((r) => (timer = setTimeout(r, 1000)))]);
      clearTimeout(timer);
      await agent.destroy().catch(() => {});
    },
  });
}

/** A WHATWG fetch as a transport (the nock tests pass global fetch, which nock intercepts). */
export function fetchTransport(fetchImpl: (url: string, init: RequestInit & { signal: AbortSignal }) => Promise<Response>): Transport {
  return async (url, init, maxBytes) => bufferResponse(await fetchImpl(url, init), maxBytes);
}

/** Request headers as a plain object; no accept-encoding: feeds answer uncompressed. */
function outgoingHeaders(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((value, name) => {
    if (name !== 'accept-encoding') out[name] = value;
  });
  return out;
}

const DECODERS: Record<string, (b: Uint8Array, o: zlib.ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress) as never,
};

async function decoded(body: Uint8Array, encoding: string | string[] | undefined, maxBytes: number): Promise<Uint8Array> {
  const coding = (Array.isArray(encoding) ? encoding.join(',') : (encoding ?? '')).trim().toLowerCase();
  if (coding === '' || coding === 'identity') return body;
  const decode = DECODERS[coding];
  if (!decode) throw new UpstreamError('malformed', { detail: 'unsupported content-encoding' });
  try {
    return await decode(body, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new UpstreamError('too_large');
    throw new UpstreamError('malformed', { detail: `not valid ${coding}` });
  }
}

/** Reads a fetch Response's body (aborted by its `signal`, bounded by `maxBytes`) into a BufferedResponse. */
async function bufferResponse(res: Response, maxBytes: number): Promise<BufferedResponse> {
  const body = await readBounded(res.body as AsyncIterable<Uint8Array> | null, res.headers.get('content-length'), maxBytes, () =>
    res.body?.cancel().catch(() => {}),
  );
  const headers: [string, string][] = [];
  res.headers.forEach((value, name) => headers.push([name, value]));
  return { status: res.status, statusText: res.statusText, headers, body, receivedAt: Date.now() };
}

/**
 * A whole body under `maxBytes` (an UpstreamError 'too_large' beyond: at once when the declared
 * length says so, else as soon as the bytes read pass it). Leaving the loop early releases the
 * stream (a Node stream is destroyed, a web stream cancelled); `release` does it when nothing is read.
 */
async function readBounded(
  body: AsyncIterable<Uint8Array> | null,
  declaredLength: string | null | undefined,
  maxBytes: number,
  release: () => unknown,
): Promise<Uint8Array> {
  const declared = Number(declaredLength);
  if (declaredLength && Number.isFinite(declared) && declared > maxBytes) {
    await release();
    throw new UpstreamError('too_large');
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (body) {
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new UpstreamError('too_large');
      chunks.push(chunk);
    }
  }
  return chunks.length === 1 ? chunks[0]! : concat(chunks, size);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * The answer handed to Mesh's REST transport, from the buffered body. It has what a fetch Response
 * offers for a body already in memory (status, headers, text/json/arrayBuffer/blob, clone) without
 * a web stream behind it: building and draining a ReadableStream for a few kilobytes cost more
 * than the JSON parse of them. One per caller (deduplicated calls share the bytes, which nothing
 * here mutates: arrayBuffer, bytes and blob hand out copies) with its own headers, made when first read.
 */
export function toResponse(b: BufferedResponse, extraHeaders: Record<string, string> = {}): Response {
  const body = NULL_BODY_STATUS.has(b.status) ? new Uint8Array(0) : b.body;
  const same = body === b.body;
  return new BufferedFetchResponse(
    body,
    b.status,
    b.statusText,
    () => responseHeaders(b, extraHeaders),
    same ? b.text : undefined,
    same ? b.parsed : undefined,
    same ? b.derived : undefined,
  ) as unknown as Response;
}

/** A caller's headers of the answer, made when first read: a caller given the exchange's shared payload never reads them. */
function responseHeaders(b: BufferedResponse, extraHeaders: Record<string, string>): Headers {
  // Appended one by one: a Headers made from the list itself may keep it and write to it (seen in
  // the unit tests' environment), and the list is every caller's and the stale copy's.
  const headers = new Headers();
  for (const [name, value] of b.headers) headers.append(name, value);
  // The body is already decoded: drop framing headers that described the wire form.
  headers.delete('content-encoding');
  headers.delete('transfer-encoding');
  headers.set('content-length', String(b.body.byteLength));
  for (const [k, v] of Object.entries(extraHeaders)) headers.set(k, v);
  return headers;
}

/**
 * The parsed JSON of an answer from `toResponse` when no caller sharing it has taken it yet (its
 * text must be read as well: the body is then used), else undefined: parse the text.
 */
export function takeParsed(response: Response): unknown {
  if (!(response instanceof BufferedFetchResponse)) return undefined;
  return response.takeParsed();
}

/**
 * What `deriver` makes of the answer's JSON text (with the edge validation's parse when no caller
 * took it: `parsed`, else undefined), computed once per exchange and handed to every caller sharing
 * it: the same value, so it must be read-only from then on. Synchronous, so two callers never both
 * compute it. `none` when the answer has no exchange to share (a stale copy, a bodiless status, a
 * Response not made here): the caller reads it as before. The body is not marked read.
 */
export function sharedOf<T>(response: Response, deriver: object, derive: (text: string, parsed: unknown) => T): T | typeof NOT_SHARED {
  return response instanceof BufferedFetchResponse ? response.shared(deriver, derive) : NOT_SHARED;
}

export const NOT_SHARED = Symbol('not shared');

/** Values `sharedOf` handed out: one object for every caller of an exchange. */
const sharedValues = new WeakSet<object>();

/** Whether `value` is what `sharedOf` made of an answer: the same object for every caller of the exchange. */
export function isSharedAnswer(value: unknown): boolean {
  return value !== null && typeof value === 'object' && sharedValues.has(value);
}

const utf8 = new TextDecoder('utf-8');

class BufferedFetchResponse {
  readonly type = 'basic';
  readonly url = '';
  readonly redirected = false;
  private used = false;
  private made?: Headers;

  constructor(
    private readonly data: Uint8Array,
    readonly status: number,
    readonly statusText: string,
    private readonly makeHeaders: () => Headers,
    private readonly decoded?: string,
    private readonly parsed?: { value?: unknown },
    private readonly derived?: Map<object, unknown>,
  ) {}

  get headers(): Headers {
    return (this.made ??= this.makeHeaders());
  }

  shared<T>(deriver: object, derive: (text: string, parsed: unknown) => T): T | typeof NOT_SHARED {
    const derived = this.derived;
    if (!derived) return NOT_SHARED;
    if (derived.has(deriver)) return derived.get(deriver) as T;
    const slot = this.parsed;
    const parsed = slot?.value;
    if (slot) slot.value = undefined;
    const value = derive(this.decoded ?? utf8.decode(this.data), parsed);
    derived.set(deriver, value);
    if (value !== null && typeof value === 'object') sharedValues.add(value);
    return value;
  }

  takeParsed(): unknown {
    const slot = this.parsed;
    if (!slot || !this.used) return undefined;
    const value = slot.value;
    slot.value = undefined;
    return value;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  private consume(): Uint8Array {
    if (this.used) throw new TypeError('Body is unusable: the body has already been read');
    this.used = true;
    return this.data;
  }

  async text(): Promise<string> {
    const bytes = this.consume();
    return this.decoded ?? utf8.decode(bytes);
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.consume();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return this.consume().slice();
  }

  async blob(): Promise<Blob> {
    return new Blob([this.consume().slice()], { type: this.headers.get('content-type') ?? '' });
  }

  clone(): BufferedFetchResponse {
    if (this.used) throw new TypeError('Response.clone: the body has already been read');
    const headers = new Headers(this.headers);
    return new BufferedFetchResponse(this.data, this.status, this.statusText, () => headers, this.decoded, this.parsed, this.derived);
  }
}

/** A header of the answer (values of a repeated header joined by ", "); null when absent. Read on every call: no arrays made. */
export function headerOf(b: BufferedResponse, name: string): string | null {
  const lower = name.toLowerCase();
  let found: string | null = null;
  for (const [k, v] of b.headers) if (k === lower || k.toLowerCase() === lower) found = found === null ? v : `${found}, ${v}`;
  return found;
}
