// Admin HTTP endpoint for support tools, on its own port (ADMIN_PORT, default 4020) and address
// (ADMIN_HOST, default 127.0.0.1 whatever HOST is), started only when ADMIN_TOKEN is set. Every
// request needs `Authorization: Bearer <ADMIN_TOKEN>` (compared in constant time); the admin token
// is not a partner key and partner keys do not work here. Failed authentication is logged at warn,
// at most one line a second with the count it stands for. Records come as stored: personal data
// stays sealed (only `npm run replay -- show` with REPLAY_PII_KEY opens it).
//
//   GET  /replay/<id>[?env=E][&partner=P]                    the replay record of a request id (keyed
//                                                           environments first); when records of several
//                                                           partners or keyed environments carry it (a
//                                                           reused x-request-id): 300 listing them all,
//                                                           until partner and env pick one
//   GET  /replay?partner=&since=&until=&status=&env=&limit=  records, newest first, from a bounded
//       [&cursor=]                                          read (`complete: false`: how far back it
//                                                           read, and `next`, the cursor to read on)
//   POST /cache/purge?field=<rootField>[&field=...] | ?all=1 purge the response cache
//   GET  /certification/allow-list/check?partner=&ip=        is this IP enabled for the partner's
//                                                           certification checkout (from memory)
//   GET  /certification/allow-list                           every partner's test IPs
//   /console/...                                             the support console (browser; its own
//                                                           sign-in with personal support tokens)
//
// The two /certification/ routes also accept CHECKOUT_TOKEN, so the checkout holds no admin token.
// `since`/`until`: a duration back from now (2h, 30m, 7d) or an ISO 8601 time.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { isSearchCursor, pickRecord, type ReplayQuery, type ReplayStore } from '../stores/replay-store.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { parseDuration } from '../lib/settings.js';
import { listen } from '../server/http/listen.js';
import { throttledWarning } from '../lib/throttled-warning.js';
import { PartnerError, type PartnerStore } from '../stores/partners.js';
import type { SupportConsole } from './console/console.js';
import { withoutTrailing } from '../lib/trailing.js';

interface AdminServerOptions {
  host: string;
  port: number;
  token: string;
  replay: ReplayStore | null;
  /** The response cache's purge (the serving process's, relayed when the admin listener runs apart). */
  cache: Pick<ResponseCache, 'purge'> | null;
  /** Partner records: the certification checkout's allow-list questions. */
  partners?: PartnerStore | null;
  /** A token for the checkout routes only (CHECKOUT_TOKEN), so the checkout needs no admin token. */
  checkoutToken?: string | null;
  /** The support console under /console. */
  console?: SupportConsole | null;
  logger?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  now?: () => number;
  /** At most one failed-authentication warning per this many ms (default 1000); the rest are counted. */
  warnEveryMs?: number;
}

export interface AdminServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Constant-time check of an Authorization header against the admin token. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  // Hash both sides: equal lengths for timingSafeEqual, and no length leak.
  const presented = digest(m?.[1] ?? '');
  return timingSafeEqual(presented, digest(token)) && !!m;
}

/** A time bound: "2h" (ago), an ISO date-time, or ms since epoch. */
export function parseTimeBound(value: string, now: number): number | null {
  const ago = parseDuration(value);
  if (ago !== null && /[a-z]$/i.test(value.trim())) return now - ago;
  if (/^\d{12,}$/.test(value.trim())) return Number(value);
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : null;
}

const ENVIRONMENTS = ['production', 'certification', 'playground'];

/** A path segment decoded, or null when it is not valid percent-encoding (e.g. `%E0%A4%A`). */
function decodeSegment(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

export async function startAdminServer(opts: AdminServerOptions): Promise<AdminServer> {
  const now = opts.now ?? Date.now;
  const warnFailedAuth = throttledWarning((obj, msg) => opts.logger?.warn(obj, msg), {
    everyMs: opts.warnEveryMs,
    now,
    countField: 'failedSinceLastWarning',
  });
  const noteFailedAuth = (req: IncomingMessage) =>
    warnFailedAuth(
      { remoteAddress: req.socket.remoteAddress, path: (req.url ?? '/').split('?', 1)[0]!.slice(0, 100) },
      'admin endpoint: authentication failed',
    );

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  };
  const methodNotAllowed = (res: ServerResponse, allow: string) => {
    res.setHeader('allow', allow);
    return send(res, 405, { error: 'method not allowed' });
  };

  /** Routes that take the ADMIN_TOKEN (scripts) or, for the checkout ones, CHECKOUT_TOKEN. */
  function authorized(req: IncomingMessage, p: string): boolean {
    if (bearerMatches(req.headers.authorization, opts.token)) return true;
    return !!opts.checkoutToken && p.startsWith('/certification/') && bearerMatches(req.headers.authorization, opts.checkoutToken);
  }

  async function replayRoute(req: IncomingMessage, res: ServerResponse, p: string, url: URL): Promise<void> {
    if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
    if (!opts.replay) return send(res, 503, { error: 'replay disabled' });
    if (p.startsWith('/replay/')) {
      const id = decodeSegment(p.slice('/replay/'.length));
      if (id === null || id.length > 200)
        return send(res, 400, {
          error: 'bad request',
          problems: ['the request id in the path is not valid percent-encoding or is too long'],
        });
      const env = url.searchParams.get('env') ?? url.searchParams.get('environment') ?? undefined;
      if (env !== undefined && !ENVIRONMENTS.includes(env))
        return send(res, 400, { error: 'bad request', problems: [`env must be one of ${ENVIRONMENTS.join(', ')}`] });
      const partner = url.searchParams.get('partner')?.trim() || undefined;
      const picked = pickRecord(await opts.replay.getAll(id, env), partner);
      if (!picked) return send(res, 404, { error: 'not found', id });
      // An id sent by two partners (or in both keyed environments) names no single record: never pick one.
      if ('ambiguous' in picked)
        return send(res, 300, {
          error: 'ambiguous request id',
          id,
          problems: ['records of more than one partner or environment carry this request id; add ?partner= and ?env= to choose one'],
          count: picked.ambiguous.length,
          records: picked.ambiguous,
        });
      return send(res, 200, picked.record);
    }
    const { query, problems } = replayQuery(url, now());
    if (problems.length) return send(res, 400, { error: 'bad request', problems });
    // Bounded (LIST_UNITS): when the bound stops it first, say how far back it read.
    const cursor = url.searchParams.get('cursor');
    if (cursor !== null && !isSearchCursor(cursor))
      return send(res, 400, { error: 'bad request', problems: ['cursor must be the `next` of an earlier answer, unchanged'] });
    const { records, complete, searchedBack, next } = await opts.replay.listing(query, cursor);
    return send(res, 200, {
      count: records.length,
      records,
      complete,
      ...(next ? { searchedBack: new Date(searchedBack!).toISOString(), next } : {}),
    });
  }

  async function purgeRoute(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'POST') return methodNotAllowed(res, 'POST');
    if (!opts.cache) return send(res, 503, { error: 'cache disabled' });
    const all = ['1', 'true', 'yes'].includes((url.searchParams.get('all') ?? '').toLowerCase());
    const fields = url.searchParams
      .getAll('field')
      .flatMap((f) => f.split(','))
      .map((f) => f.trim())
      .filter(Boolean);
    if (!all && fields.length === 0) return send(res, 400, { error: 'bad request', problems: ['name ?field=<rootField> or ?all=1'] });
    const result = await opts.cache.purge(all ? { all: true } : { fields });
    opts.logger?.info({ fields: all ? 'all' : fields, reach: result.reach }, 'response cache purged (admin)');
    return send(res, 200, { purged: all ? 'all' : fields, ...result });
  }

  /** The certification checkout's questions (docs/operations.md): one IP, or the whole allow-list. */
  function checkoutRoute(req: IncomingMessage, res: ServerResponse, p: string, url: URL): void {
    if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
    if (!opts.partners) return send(res, 503, { error: 'partner records are not loaded' });
    if (p === '/certification/allow-list') {
      return send(res, 200, { partners: opts.partners.list().map((x) => ({ partner: x.code, testIps: x.testIps.map((t) => t.cidr) })) });
    }
    try {
      return send(res, 200, opts.partners.check(url.searchParams.get('partner') ?? '', url.searchParams.get('ip') ?? ''));
    } catch (err) {
      if (err instanceof PartnerError) return send(res, 400, { error: 'bad request', problems: [err.message] });
      throw err;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://admin.invalid');
    } catch {
      req.resume();
      return send(res, 400, { error: 'bad request', problems: ['malformed URL'] });
    }
    const p = withoutTrailing(url.pathname, '/') || '/';
    // Browsers ask for /favicon.ico on every page: no authentication to fail, nothing to log.
    if (p === '/favicon.ico') {
      req.resume();
      res.writeHead(404, { 'cache-control': 'public, max-age=86400', 'content-length': '0' });
      return void res.end();
    }
    // The console authenticates with its own session cookie (personal support tokens).
    if (opts.console && (p === '/console' || p.startsWith('/console/'))) return opts.console.handle(req, res, p, url);
    req.resume();
    if (!authorized(req, p)) {
      noteFailedAuth(req);
      res.setHeader('www-authenticate', 'Bearer');
      // The checkout's routes name the checkout's token: the checkout never needs to know the admin token exists.
      const needed = p.startsWith('/certification/') && opts.checkoutToken ? 'CHECKOUT_TOKEN' : 'ADMIN_TOKEN';
      return send(res, 401, { error: 'unauthorized', message: `Authorization: Bearer <${needed}> required.` });
    }
    if (p === '/replay' || p.startsWith('/replay/')) return replayRoute(req, res, p, url);
    if (p === '/cache/purge') return purgeRoute(req, res, url);
    if (p === '/certification/allow-list' || p === '/certification/allow-list/check') return checkoutRoute(req, res, p, url);
    return send(res, 404, { error: 'not found', routes: ROUTES });
  }

  const server = http.createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      // The message only: a stack trace in the log helps nobody reading an outage.
      opts.logger?.error({ error: (err as Error)?.message ?? String(err) }, 'admin endpoint error');
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  return listen(server, opts.port, opts.host, 'ADMIN_PORT');
}

const ROUTES = [
  'GET /replay/<id>[?env=]',
  'GET /replay?partner=&since=&status=&env=&limit=',
  'POST /cache/purge?field=|all=1',
  'GET /certification/allow-list/check?partner=&ip=',
  'GET /certification/allow-list',
  'GET /console (browser)',
];

/** The filters of GET /replay, checked. */
function replayQuery(url: URL, now: number): { query: ReplayQuery; problems: string[] } {
  const q: ReplayQuery = { limit: 50 };
  const problems: string[] = [];
  const partner = url.searchParams.get('partner');
  if (partner) q.partner = partner;
  const env = url.searchParams.get('env') ?? url.searchParams.get('environment');
  if (env && !ENVIRONMENTS.includes(env)) problems.push(`env must be one of ${ENVIRONMENTS.join(', ')}`);
  else if (env) q.environment = env;
  const status = url.searchParams.get('status');
  if (status) {
    if (!/^([1-5]xx|[1-5]\d\d)$/i.test(status)) problems.push('status must be like 200, 429 or 4xx');
    else q.status = status;
  }
  for (const name of ['since', 'until'] as const) {
    const raw = url.searchParams.get(name);
    if (!raw) continue;
    const t = parseTimeBound(raw, now);
    if (t === null) problems.push(`${name} must be a duration (2h) or an ISO time`);
    else q[name] = t;
  }
  const limit = url.searchParams.get('limit');
  if (limit) {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 1000) problems.push('limit must be 1 to 1000');
    else q.limit = n;
  }
  return { query: q, problems };
}
