// Admin HTTP endpoint for support tools, on its own port (ADMIN_PORT, default 4020) and address
// (ADMIN_HOST, default 127.0.0.1 whatever HOST is), started only when ADMIN_TOKEN is set. Every
// request needs `Authorization: Bearer <ADMIN_TOKEN>` (compared in constant time); the admin token
// is not a partner key and partner keys do not work here. Failed authentication is logged at warn,
// at most one line a second with the count it stands for. Records come as stored: personal data
// stays sealed (only `npm run replay -- show` with REPLAY_PII_KEY opens it).
//
//   GET  /replay/<id>[?env=E]                                one replay record (keyed environments first)
//   GET  /replay?partner=&since=&until=&status=&env=&limit=  records, newest first
//   POST /cache/purge?field=<rootField>[&field=...] | ?all=1 purge the response cache
//
// `since`/`until`: a duration back from now (2h, 30m, 7d) or an ISO 8601 time.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ReplayQuery, ReplayStore } from '../stores/replay-store.js';
import type { ResponseCache } from '../stores/response-cache.js';
import { parseDuration } from '../stores/cache-config.js';
import { listen } from '../http/listen.js';

export interface AdminServerOptions {
  host: string;
  port: number;
  token: string;
  replay: ReplayStore | null;
  cache: ResponseCache | null;
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
export function bearerMatches(header: string | undefined, token: string): boolean {
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
  const warnEveryMs = opts.warnEveryMs ?? 1000;
  let lastWarnAt = -Infinity;
  let unreported = 0;
  const noteFailedAuth = (req: IncomingMessage) => {
    unreported++;
    const t = now();
    if (t - lastWarnAt < warnEveryMs) return;
    lastWarnAt = t;
    opts.logger?.warn({ remoteAddress: req.socket.remoteAddress, path: (req.url ?? '/').split('?', 1)[0]!.slice(0, 100), failedSinceLastWarning: unreported }, 'admin endpoint: authentication failed');
    unreported = 0;
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!bearerMatches(req.headers.authorization, opts.token)) {
      noteFailedAuth(req);
      res.setHeader('www-authenticate', 'Bearer');
      return send(res, 401, { error: 'unauthorized', message: 'Authorization: Bearer <ADMIN_TOKEN> required.' });
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://admin.invalid');
    } catch {
      return send(res, 400, { error: 'bad request', problems: ['malformed URL'] });
    }
    const p = url.pathname.replace(/\/+$/, '') || '/';

    if (p === '/replay' || p.startsWith('/replay/')) {
      if (req.method !== 'GET') {
        res.setHeader('allow', 'GET');
        return send(res, 405, { error: 'method not allowed' });
      }
      if (!opts.replay) return send(res, 503, { error: 'replay disabled' });
      if (p.startsWith('/replay/')) {
        const id = decodeSegment(p.slice('/replay/'.length));
        if (id === null || id.length > 200) return send(res, 400, { error: 'bad request', problems: ['the request id in the path is not valid percent-encoding or is too long'] });
        const env = url.searchParams.get('env') ?? url.searchParams.get('environment') ?? undefined;
        if (env !== undefined && !ENVIRONMENTS.includes(env)) return send(res, 400, { error: 'bad request', problems: [`env must be one of ${ENVIRONMENTS.join(', ')}`] });
        const record = await opts.replay.get(id, env);
        return record ? send(res, 200, record) : send(res, 404, { error: 'not found', id });
      }
      const q: ReplayQuery = {};
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
        const t = parseTimeBound(raw, now());
        if (t === null) problems.push(`${name} must be a duration (2h) or an ISO time`);
        else q[name] = t;
      }
      const limit = url.searchParams.get('limit');
      q.limit = 50;
      if (limit) {
        const n = Number(limit);
        if (!Number.isInteger(n) || n < 1 || n > 1000) problems.push('limit must be 1 to 1000');
        else q.limit = n;
      }
      if (problems.length) return send(res, 400, { error: 'bad request', problems });
      const records = await opts.replay.list(q);
      return send(res, 200, { count: records.length, records });
    }

    if (p === '/cache/purge') {
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        return send(res, 405, { error: 'method not allowed' });
      }
      if (!opts.cache) return send(res, 503, { error: 'cache disabled' });
      const all = ['1', 'true', 'yes'].includes((url.searchParams.get('all') ?? '').toLowerCase());
      const fields = url.searchParams.getAll('field').flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean);
      if (!all && fields.length === 0) return send(res, 400, { error: 'bad request', problems: ['name ?field=<rootField> or ?all=1'] });
      const result = await opts.cache.purge(all ? { all: true } : { fields });
      opts.logger?.info({ fields: all ? 'all' : fields, reach: result.reach }, 'response cache purged (admin)');
      return send(res, 200, { purged: all ? 'all' : fields, ...result });
    }

    return send(res, 404, { error: 'not found', routes: ['GET /replay/<id>', 'GET /replay?partner=&since=&status=&env=&limit=', 'POST /cache/purge?field=|all=1'] });
  }

  const server = http.createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (req, res) => {
    // The request body is never needed: drain it.
    req.resume();
    handle(req, res).catch((err: unknown) => {
      // The message only: a stack trace in the log helps nobody reading an outage.
      opts.logger?.error({ error: (err as Error)?.message ?? String(err) }, 'admin endpoint error');
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  return listen(server, opts.port, opts.host);
}
