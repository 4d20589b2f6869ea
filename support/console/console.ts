// The support console, served under /console by the admin listener: sign-in with a
// personal support token, request search, a record page, rerun with a diff, the audit log and
// partner pages. Every state-changing request is a POST carrying the session's CSRF token (and,
// when the browser sends one, an Origin of this host); every page carries a strict CSP. What a
// session may do follows its token's roles (viewer, unmask, partners), checked here on every
// request whatever the page showed. Every sign-in, search, record view, unmasking, rerun and
// partner change is audited before it answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SupportRole } from '../../stores/key-store.js';
import type { ReplayQuery } from '../../stores/replay-store.js';
import { OUTCOMES, outcomeOf, type Outcome } from '../../stores/replay-match.js';
import { clientIp } from '../../server/http/client-ip.js';
import { ASSETS } from './assets.js';
import { PAGE_SIZE, RANGES, messagePage, searchPage, signInPage, type SearchParams, type SearchSummary } from './pages.js';
import { PRE_COOKIE, SESSION_COOKIE, SessionStore, can, cookie, randomToken, readCookie, sameSecret, type Session } from './session.js';
import {
  HttpError,
  REQUEST_ID,
  decode,
  readForm,
  redirect,
  sameOrigin,
  send,
  text,
  type ConsoleContext,
  type ConsoleOptions,
  type SupportConsole,
} from './console-http.js';
import { recordRoutes } from './record-routes.js';
import { partnerRoutes } from './partner-routes.js';
import { allowanceRoutes } from './allowance-routes.js';
import { incidentRoute } from './incident.js';
import { choicePage, recordHref, recordsMatching } from './record-choice.js';
import { MAX_TIME_CHARS, timeRange } from './time-filter.js';
import { auditRoute } from './audit-page.js';

export type { SupportConsole } from './console-http.js';

const RANGE_MS: Record<string, number> = { '1h': 3_600_000, '1d': 86_400_000, '7d': 7 * 86_400_000 };
const CACHE_OUTCOMES = new Set(['HIT', 'MISS', 'BYPASS', 'STALE', 'COALESCED']);
/** A search reads at most this many matching records (outcome counts and pages come from them). */
const SCAN_LIMIT = 1000;

/** A console page to return to after signing in: a path under /console, never another site. */
export function safeNext(value: string | null | undefined): string {
  // A form's action (rerun, unmask) comes back as its page.
  const v = (value ?? '').trim().replace(/\/(rerun|unmask)(\?|$)/, '$2');
  if (v.length > 2000 || !/^\/console\/[^/\\]/.test(v) || v.startsWith('/console/sign-')) return '';
  return /^[\x21-\x7e]+$/.test(v) ? v : '';
}

function searchParams(q: URLSearchParams): SearchParams {
  const range = text(q.get('range'));
  return {
    id: text(q.get('id'), 128),
    partner: text(q.get('partner'), 32).toUpperCase(),
    env: text(q.get('env')),
    status: text(q.get('status')),
    cache: text(q.get('cache')).toUpperCase(),
    range: range || (q.get('from') || q.get('to') ? 'custom' : '1d'),
    from: text(q.get('from'), MAX_TIME_CHARS),
    to: text(q.get('to'), MAX_TIME_CHARS),
    outcome: text(q.get('outcome')),
    code: text(q.get('code'), 64).toUpperCase(),
    ip: text(q.get('ip'), 64),
    field: text(q.get('field'), 64),
    zip: text(q.get('zip'), 10),
    reruns: text(q.get('reruns'), 10),
    after: text(q.get('after'), 2000),
    page: Number(q.get('page') ?? 1),
  };
}

/** Each filter's check: the value is fine when empty or matching; otherwise the message. */
const FILTER_CHECKS: [keyof SearchParams, (v: string) => boolean, string][] = [
  ['id', (v) => REQUEST_ID.test(v), 'A request id is 1 to 128 characters of letters, digits and . _ : -'],
  ['partner', (v) => /^[A-Z0-9][A-Z0-9_-]{1,31}$/.test(v), 'A partner code is 2 to 32 characters A-Z, 0-9, _ or -'],
  ['env', (v) => ['production', 'certification', 'playground'].includes(v), 'Unknown environment'],
  ['status', (v) => ['2xx', '4xx', '429', '5xx'].includes(v), 'Status is 2xx, 4xx, 429 or 5xx'],
  ['cache', (v) => CACHE_OUTCOMES.has(v), 'Cache is HIT, MISS, BYPASS or STALE'],
  ['outcome', (v) => (OUTCOMES as readonly string[]).includes(v), `Outcome is one of ${OUTCOMES.join(', ')}`],
  ['code', (v) => /^[A-Z][A-Z0-9_]{0,63}$/.test(v), 'An error code is like GRAPHQL_VALIDATION_FAILED (letters, digits, _)'],
  ['ip', (v) => /^[0-9A-Fa-f.:]{2,45}$/.test(v), 'A client address is an IPv4 or IPv6 address, such as 203.0.113.7'],
  ['field', (v) => /^[_A-Za-z][_0-9A-Za-z]{0,63}$/.test(v), 'A root field is a GraphQL name, such as residentialPlans'],
  ['zip', (v) => /^\d{5}$/.test(v), 'A ZIP is 5 digits'],
  ['reruns', (v) => v === 'include' || v === 'only', 'Support reruns are hidden, included or only'],
  ['after', (v) => /^[A-Za-z0-9_-]+$/.test(v), 'That continuation link is damaged; search again'],
  ['range', (v) => RANGES.some(([r]) => r === v), 'Time is the last hour, day or week, or from – to'],
];

/** The time bounds of a search, and what is wrong with a custom one. */
function timeBounds(p: SearchParams, now: number, problems: string[]): Pick<ReplayQuery, 'since' | 'until'> {
  if (p.range !== 'custom') return { since: now - (RANGE_MS[p.range] ?? RANGE_MS['1d']!) };
  if (!p.from && !p.to) problems.push('From – to needs a from or a to time');
  const { from, to } = timeRange(p.from, p.to, problems);
  return { since: from ?? now - RANGE_MS['7d']!, ...(to !== undefined ? { until: to } : {}) };
}

/** The search's problems with its parameters, and the store query they make. */
function searchQuery(p: SearchParams, now: number): { problems: string[]; query: ReplayQuery } {
  const problems: string[] = [];
  for (const [key, ok, message] of FILTER_CHECKS) {
    const v = p[key];
    if (typeof v === 'string' && v !== '' && !ok(v)) problems.push(message);
  }
  const query: ReplayQuery = timeBounds(p, now, problems);
  if (!Number.isInteger(p.page) || p.page < 1 || p.page > SCAN_LIMIT / PAGE_SIZE) {
    problems.push(`Page is 1 to ${SCAN_LIMIT / PAGE_SIZE}`);
    p.page = 1;
  }
  const set = <K extends keyof ReplayQuery>(k: K, v: string) => {
    if (v) query[k] = v as ReplayQuery[K];
  };
  set('partner', p.partner);
  set('environment', p.env);
  set('status', p.status);
  set('cache', p.cache);
  set('errorCode', p.code);
  set('clientIp', p.ip);
  set('rootField', p.field);
  set('zip', p.zip);
  // Support reruns are not partner traffic: hidden unless asked for.
  if (p.reruns !== 'include') query.reruns = p.reruns === 'only' ? 'only' : 'exclude';
  // A partner's call refused before its body was read still shows in a search by its ZIP.
  if (p.zip || p.field) query.unreadMatches = true;
  return { problems, query };
}

export function createSupportConsole(opts: ConsoleOptions): SupportConsole {
  const now = opts.now ?? Date.now;
  const sessions = new SessionStore(opts.sessionTtlMs, now, (id) => opts.keys.isActive(id));

  const from = (req: IncomingMessage) => clientIp(req, opts.trustProxy);
  const audit = (req: IncomingMessage, s: Session | null, action: string, target: string | null, details?: Record<string, unknown>) =>
    opts.audit.write({ actor: s ? `support:${s.user}` : 'anonymous', action, target, from: from(req), ...(details ? { details } : {}) });

  /** The form of a POST after its CSRF token (and Origin) checked out. */
  async function checkedForm(req: IncomingMessage, expected: string | null): Promise<URLSearchParams> {
    const form = await readForm(req);
    if (!sameOrigin(req) || !sameSecret(form.get('_csrf'), expected))
      throw new HttpError(403, 'The form is stale or was not sent from this console (CSRF check failed). Reload the page and try again.');
    return form;
  }

  /** Refuses (403, audited) an action the session's token has no role for. */
  async function requireRole(req: IncomingMessage, s: Session, role: SupportRole, action: string, target: string | null): Promise<void> {
    if (can(s, role)) return;
    await audit(req, s, `${action}.refused`, target, { reason: `no ${role} role` });
    throw new HttpError(403, `Your support token does not have the ${role} role. Ask an operator for a token with --role ${role}.`);
  }

  const ctx: ConsoleContext = { opts, now, from, audit, checkedForm, requireRole };
  const record = recordRoutes(ctx);
  const partners = partnerRoutes(ctx);
  const pages: Record<string, ReturnType<typeof incidentRoute>> = {
    '/console/allowance': allowanceRoutes(ctx),
    '/console/incident': incidentRoute(ctx),
    '/console/audit': auditRoute(ctx),
  };

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET') {
      const pre = randomToken();
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const message = q.has('ended')
        ? 'Your session ended (it expired, the gateway restarted or your token was revoked). Sign in again.'
        : q.has('signed-out')
          ? 'You signed out.'
          : null;
      return send(res, 200, signInPage(pre, message, safeNext(q.get('next')), q.has('signed-out')), {
        'set-cookie': cookie(req, PRE_COOKIE, pre, 600),
      });
    }
    const form = await checkedForm(req, readCookie(req, PRE_COOKIE));
    const next = safeNext(form.get('next'));
    const token = form.get('token')?.trim() ?? '';
    const result = opts.keys.verify('support', token);
    if (!result.ok) {
      await audit(req, null, 'sign-in.refused', null, { reason: result.reason });
      const pre = randomToken();
      return send(res, 401, signInPage(pre, 'That is not an active support token.', next), {
        'set-cookie': cookie(req, PRE_COOKIE, pre, 600),
      });
    }
    const s = sessions.open(result.partnerCode, result.keyId, result.roles ?? ['viewer']);
    await audit(req, s, 'sign-in', null, { keyId: result.keyId, roles: s.roles });
    return redirect(res, next || '/console/search', {
      'set-cookie': cookie(req, SESSION_COOKIE, s.id, Math.floor(opts.sessionTtlMs / 1000)),
    });
  }

  async function search(req: IncomingMessage, res: ServerResponse, s: Session, url: URL): Promise<void> {
    const p = searchParams(url.searchParams);
    const { problems, query } = searchQuery(p, now());
    if (problems.length) return send(res, 400, searchPage(s, p, [], false, problems));
    if (!opts.replay) return send(res, 503, messagePage(s, 'Search', 'The replay log is disabled on this gateway (REPLAY_ENABLED=false).'));
    const filters = Object.fromEntries(Object.entries(p).filter(([k, v]) => v !== '' && k !== 'id'));
    await audit(req, s, 'search', p.id || null, filters);
    if (p.id) {
      // An id several records carry opens the page that lists them (narrowed by the partner and environment searched).
      const records = recordsMatching(await opts.replay.getAll(p.id), { env: p.env || undefined, partner: p.partner || undefined });
      if (records.length === 1) return redirect(res, recordHref(records[0]!));
      if (records.length > 1) return send(res, 300, choicePage(s, p.id, records));
      return send(res, 404, searchPage(s, p, [], false, [`No record with request id ${p.id} (records are kept for a limited time).`]));
    }
    // The outcome is counted over every match, then filtered: the counts stay visible when one is picked.
    // A bounded slice of the store whatever its size; the page links to the next one.
    const slice = await opts.replay.search({ ...query, limit: SCAN_LIMIT }, { cursor: p.after || null, summary: true });
    const scanned = slice.records;
    const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
    for (const r of scanned) counts[outcomeOf(r.status, r.facets)]++;
    const summary: SearchSummary = {
      counts,
      scanned: scanned.length,
      capped: slice.next !== null,
      next: slice.next,
      searchedBack: slice.searchedBack,
    };
    const matching = p.outcome ? scanned.filter((r) => outcomeOf(r.status, r.facets) === p.outcome) : scanned;
    const shown = matching.slice((p.page - 1) * PAGE_SIZE, p.page * PAGE_SIZE);
    return send(res, 200, searchPage(s, p, shown, matching.length > p.page * PAGE_SIZE, [], summary));
  }

  async function route(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    const asset = ASSETS[path];
    if (asset) {
      const headers = { etag: asset.etag, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' };
      if (req.headers['if-none-match'] === asset.etag) return void res.writeHead(304, headers).end();
      res.writeHead(200, { ...headers, 'content-type': asset.type, 'content-length': String(Buffer.byteLength(asset.body)) });
      return void res.end(asset.body);
    }
    if (path === '/console/sign-in' && (req.method === 'GET' || req.method === 'POST')) return signIn(req, res);
    const cookieId = readCookie(req, SESSION_COOKIE);
    const s = sessions.get(cookieId);
    if (path === '/console/session') return s ? send(res, 204, '') : send(res, 401, '');
    if (!s) {
      if (req.method !== 'GET') throw new HttpError(401, 'Your session ended. Sign in again.');
      // Back to this page after signing in; say why when a session was there before.
      const q = new URLSearchParams();
      if (cookieId) q.set('ended', '1');
      const next = safeNext(`${path}${url.search}`);
      if (next) q.set('next', next);
      return redirect(res, `/console/sign-in${q.size ? `?${q}` : ''}`);
    }
    if (path === '/console/sign-out') {
      if (req.method !== 'POST') throw new HttpError(405, 'Sign out with the button.');
      await checkedForm(req, s.csrf);
      sessions.close(s.id);
      await audit(req, s, 'sign-out', null);
      return redirect(res, '/console/sign-in?signed-out=1', { 'set-cookie': cookie(req, SESSION_COOKIE, '', 0) });
    }
    if (path === '/console' || path === '/console/') return redirect(res, '/console/search');
    if (path === '/console/search' && req.method === 'GET') return search(req, res, s, url);
    const more = pages[path];
    if (more) return more(req, res, s, url);
    const parts = path.split('/').slice(2);
    if (parts[0] === 'records' && parts[1]) return record(req, res, s, decode(parts[1]), parts.slice(2).join('/'));
    if (parts[0] === 'partners') return partners(req, res, s, parts.slice(1), url);
    throw new HttpError(404, 'No such page.');
  }

  return {
    async handle(req, res, path, url) {
      try {
        await route(req, res, path, url);
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        const s = sessions.get(readCookie(req, SESSION_COOKIE));
        send(res, err.status, messagePage(s, err.status === 403 ? 'Refused' : 'Not possible', err.message));
      }
    },
  };
}
