// One HTTP exchange with a feed: send, read the whole body under a size bound, and hand back a
// buffered answer that can be copied into as many Response objects as there are waiters.
import { Agent, fetch as undiciFetch } from 'undici';
import { UpstreamError } from './errors.js';

/** What the layer needs from an HTTP client; undici's fetch by default, global fetch in nock tests. */
export type Transport = (url: string, init: RequestInit & { signal: AbortSignal }) => Promise<Response>;

export interface BufferedResponse {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array;
  /** Date.now() when the body was complete (age of stale copies). */
  receivedAt: number;
}

export function undiciTransport(connections: number): Transport & { close(): Promise<void> } {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections, pipelining: 1 });
  const transport = ((url, init) => undiciFetch(url, { ...(init as object), dispatcher: agent } as never) as unknown as Promise<Response>) as Transport;
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

/** Reads the body (aborted by `signal`, bounded by `maxBytes`) into a BufferedResponse. */
export async function bufferResponse(res: Response, maxBytes: number): Promise<BufferedResponse> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new UpstreamError('too_large');
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new UpstreamError('too_large');
      }
      chunks.push(value);
    }
  }
  const body = chunks.length === 1 ? chunks[0]! : concat(chunks, size);
  const headers: [string, string][] = [];
  res.headers.forEach((value, name) => headers.push([name, value]));
  return { status: res.status, statusText: res.statusText, headers, body, receivedAt: Date.now() };
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
 * here mutates: arrayBuffer, bytes and blob hand out copies) with its own headers.
 */
export function toResponse(b: BufferedResponse, extraHeaders: Record<string, string> = {}): Response {
  const headers = new Headers(b.headers);
  // The body is already decoded: drop framing headers that described the wire form.
  headers.delete('content-encoding');
  headers.delete('transfer-encoding');
  headers.set('content-length', String(b.body.byteLength));
  for (const [k, v] of Object.entries(extraHeaders)) headers.set(k, v);
  const body = NULL_BODY_STATUS.has(b.status) ? new Uint8Array(0) : b.body;
  return new BufferedFetchResponse(body, b.status, b.statusText, headers) as unknown as Response;
}

const utf8 = new TextDecoder('utf-8');

class BufferedFetchResponse {
  readonly type = 'basic';
  readonly url = '';
  readonly redirected = false;
  private used = false;

  constructor(private readonly data: Uint8Array, readonly status: number, readonly statusText: string, readonly headers: Headers) {}

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
    return utf8.decode(this.consume());
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
    return new BufferedFetchResponse(this.data, this.status, this.statusText, new Headers(this.headers));
  }
}

export function headerOf(b: BufferedResponse, name: string): string | null {
  const lower = name.toLowerCase();
  const found = b.headers.filter(([k]) => k.toLowerCase() === lower).map(([, v]) => v);
  return found.length ? found.join(', ') : null;
}
