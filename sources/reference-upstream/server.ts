// The reference upstream: a plain node:http server serving the five feeds from the
// deterministic data in ./data, with per-feed fault injection for resilience tests.

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FEEDS, GARBAGE_BODY, isFeed, parseFault, type Fault, type FeedName } from './faults.js';
import { matchRoute } from './routes.js';
import { zipDatabase } from '../../lib/zip-database.js';

export type { Fault } from './faults.js';

export interface ReferenceUpstream {
  url: string;
  port: number;
  close(): Promise<void>;
  /** Applies to every route of the feed until replaced; null restores normal service. */
  setFault(feed: string, fault: Fault | null): void;
}

const MAX_CONTROL_BODY = 64 * 1024;

function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, cacheControl = 'no-store'): void {
  const text = JSON.stringify(body);
  const etag = `"${createHash('sha1').update(text).digest('base64url').slice(0, 22)}"`;
  const headers: Record<string, string | number> = { 'Cache-Control': cacheControl };
  if (status === 200) {
    headers.ETag = etag;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers).end();
      return;
    }
  }
  headers['Content-Type'] = 'application/json; charset=utf-8';
  headers['Content-Length'] = Buffer.byteLength(text);
  res.writeHead(status, headers).end(req.method === 'HEAD' ? undefined : text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_CONTROL_BODY) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A host that clients can connect to, even when listening on a wildcard address. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

interface StartOptions {
  port?: number;
  host?: string;
  /**
   * Load the ZIP database (lib/zip-database.ts) before serving instead of on the first lookup that
   * needs it. For a process whose own requests to the fixture share its event loop (npm start,
   * feeds:check): the load would stall them and can outlast a feed's timeout. A failed load is not
   * fatal: each lookup that needs the database tries again and says why.
   */
  loadZipDatabase?: boolean;
}

export async function startReferenceUpstream(opts: StartOptions = {}): Promise<ReferenceUpstream> {
  const host = opts.host ?? '127.0.0.1';
  const faults = new Map<FeedName, Fault>();
  // Pending 'slow' delays, released on close so no handler outlives the server.
  const sleepers = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();
  let closing = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          sleepers.delete(entry);
          resolve();
        }, ms),
        wake: resolve,
      };
      sleepers.add(entry);
    });

  function setFault(feed: string, fault: Fault | null): void {
    if (!isFeed(feed)) throw new Error(`unknown feed '${feed}' (expected one of ${FEEDS.join(', ')})`);
    const parsed = parseFault(fault);
    if (parsed) faults.set(feed, parsed);
    else faults.delete(feed);
  }

  async function handleControl(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === '/__faults') {
      if (req.method === 'GET') return sendJson(req, res, 200, Object.fromEntries(faults));
      if (req.method === 'DELETE') {
        faults.clear();
        return sendJson(req, res, 200, {});
      }
      res.setHeader('Allow', 'GET, DELETE');
      return sendJson(req, res, 405, { error: 'method not allowed' });
    }
    const feed = path.slice('/__faults/'.length);
    if (!isFeed(feed)) return sendJson(req, res, 404, { error: `unknown feed '${feed}'` });
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return sendJson(req, res, 405, { error: 'method not allowed' });
    }
    let fault: Fault | null;
    try {
      const text = await readBody(req);
      fault = parseFault(JSON.parse(text.trim() === '' ? 'null' : text));
    } catch (err) {
      return sendJson(req, res, 400, { error: (err as Error).message });
    }
    setFault(feed, fault);
    return sendJson(req, res, 200, { feed, fault });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://upstream.invalid');
    const path = url.pathname;
    if (path === '/__faults' || path.startsWith('/__faults/')) return handleControl(req, res, path);

    const isRead = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/healthz') {
      if (!isRead) return sendJson(req, res, 405, { error: 'method not allowed' });
      return sendJson(req, res, 200, { status: 'ok' });
    }

    let matched: ReturnType<typeof matchRoute>;
    try {
      matched = matchRoute(path);
    } catch {
      return sendJson(req, res, 400, { error: 'malformed path encoding' });
    }
    if (!matched) return sendJson(req, res, 404, { error: 'not found', path });
    if (!isRead) {
      res.setHeader('Allow', 'GET, HEAD');
      return sendJson(req, res, 405, { error: 'method not allowed' });
    }

    const { route, params } = matched;
    const fault = faults.get(route.feed);
    if (fault?.kind === 'down') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'slow') {
      await sleep(fault.ms);
      if (closing || res.destroyed) return;
    }
    if (fault?.kind === 'status') {
      if (fault.status === 429 || fault.status === 503) res.setHeader('Retry-After', '1');
      return sendJson(req, res, fault.status, { error: 'injected fault', feed: route.feed, status: fault.status });
    }
    if (fault?.kind === 'null') return sendJson(req, res, 200, null, 'no-store');
    if (fault?.kind === 'garbage') {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(GARBAGE_BODY);
      return;
    }

    const reply = await route.handle(params, url.searchParams);
    sendJson(req, res, reply.status, reply.body, reply.status === 200 ? route.cacheControl : 'no-store');
  }

  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(req, res, 500, { error: 'internal error', detail: String(err) });
      else res.destroy();
    });
  });
  // Keep idle connections longer than typical client pools so reuse actually happens.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  if (opts.loadZipDatabase) await zipDatabase().catch(() => undefined);

  return {
    url: `http://${urlHost(host)}:${port}`,
    port,
    setFault,
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing = true;
        for (const s of sleepers) {
          clearTimeout(s.timer);
          s.wake();
        }
        sleepers.clear();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
