// The support console, served under /console by the admin listener: sign-in with a
// personal support token, request search, a record page, rerun with a side-by-side diff, the audit
// log and partner onboarding. Every state-changing request is a POST carrying the session's CSRF
// token (and, when the browser sends one, an Origin of this host); every page carries a strict CSP.
// Every sign-in, search, record view, unmasking, rerun and partner change is audited before it
// answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KeyStore } from '../../keys/key-store.js';
import { addTestIp, removeTestIp, savePartner, PartnerError, type PartnerStore } from '../../keys/partners.js';
import type { ReplayQuery, ReplayRecord, ReplayStore } from '../../stores/replay-store.js';
import type { AuditLog } from '../../stores/audit-log.js';
import { diffResponses } from '../../stores/replay-diff.js';
import { clientIp, type TrustProxy } from '../../http/client-ip.js';
import type { RerunAnswer } from '../rerun.js';
import { ASSETS } from './assets.js';
import { maskRecord, type Unmasker } from './masking.js';
import {
  PAGE_SIZE,
  RANGES,
  auditPage,
  diffPage,
  messagePage,
  partnerPage,
  partnersPage,
  recordPage,
  searchPage,
  signInPage,
  type SearchParams,
} from './pages.js';
import { PRE_COOKIE, SESSION_COOKIE, SessionStore, cookie, randomToken, readCookie, sameSecret, type Session } from './session.js';

export interface ConsoleOptions {
  keys: Pick<KeyStore, 'verify' | 'isActive'>;
  replay: ReplayStore | null;
  audit: AuditLog;
  partners: PartnerStore;
  partnersFile: string;
  rerun(record: ReplayRecord): Promise<RerunAnswer>;
  unmasker: Unmasker;
  sessionTtlMs: number;
  trustProxy: TrustProxy;
  now?: () => number;
  /** TRACE_URL_TEMPLATE: the record page links a traced request's trace id through it. */
  traceUrlTemplate?: string | null;
}

export interface SupportConsole {
  handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void>;
}

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CSP,
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // same-origin, not no-referrer: with no-referrer browsers send "Origin: null" on form posts.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};
const MAX_FORM_BYTES = 16 * 1024;
const RANGE_MS: Record<string, number> = { '1h': 3_600_000, '1d': 86_400_000, '7d': 7 * 86_400_000 };
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const CACHE_OUTCOMES = new Set(['HIT', 'MISS', 'BYPASS', 'STALE']);
/** Read at most this many records to filter by cache outcome (the store cannot). */
const SCAN_LIMIT = 1000;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...PAGE_HEADERS, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

function redirect(res: ServerResponse, to: string, headers: Record<string, string> = {}): void {
  res.writeHead(303, { location: to, 'cache-control': 'no-store', 'content-length': '0', ...headers });
  res.end();
}

/** Reads an application/x-www-form-urlencoded body of at most 16 KiB. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new HttpError(415, 'Forms must be sent as application/x-www-form-urlencoded.');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_FORM_BYTES) throw new HttpError(413, 'The form is too large.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new HttpError(413, 'The form is too large.');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** A browser's Origin, when sent, must be this host: a second line of defence next to the token. */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'Malformed address.');
  }
}

function text(v: string | null, max = 64): string {
  return (v ?? '').trim().slice(0, max);
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

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET') {
      const pre = randomToken();
      const ended = new URL(req.url ?? '/', 'http://x').searchParams.has('ended');
      return send(res, 200, signInPage(pre, ended ? 'Your session ended. Sign in again.' : null), {
        'set-cookie': cookie(req, PRE_COOKIE, pre, 600),
      });
    }
    const form = await checkedForm(req, readCookie(req, PRE_COOKIE));
    const token = form.get('token')?.trim() ?? '';
    const result = opts.keys.verify('support', token);
    if (!result.ok) {
      await audit(req, null, 'sign-in.refused', null, { reason: result.reason });
      const pre = randomToken();
      return send(res, 401, signInPage(pre, 'That is not an active support token.'), { 'set-cookie': cookie(req, PRE_COOKIE, pre, 600) });
    }
    const s = sessions.open(result.partnerCode, result.keyId);
    await audit(req, s, 'sign-in', null, { keyId: result.keyId });
    return redirect(res, '/console/search', { 'set-cookie': cookie(req, SESSION_COOKIE, s.id, Math.floor(opts.sessionTtlMs / 1000)) });
  }

  async function search(req: IncomingMessage, res: ServerResponse, s: Session, url: URL): Promise<void> {
    const q = url.searchParams;
    const p: SearchParams = {
      id: text(q.get('id'), 128),
      partner: text(q.get('partner'), 32).toUpperCase(),
      env: text(q.get('env')),
      status: text(q.get('status')),
      cache: text(q.get('cache')).toUpperCase(),
      range: text(q.get('range')) || '1d',
      page: Number(q.get('page') ?? 1),
    };
    const problems: string[] = [];
    if (p.id && !REQUEST_ID.test(p.id)) problems.push('A request id is 1 to 128 characters of letters, digits and . _ : -');
    if (p.partner && !/^[A-Z0-9][A-Z0-9_-]{1,31}$/.test(p.partner)) problems.push('A partner code is 2 to 32 characters A-Z, 0-9, _ or -');
    if (p.env && !['production', 'certification', 'playground'].includes(p.env)) problems.push('Unknown environment');
    if (p.status && !['2xx', '4xx', '429', '5xx'].includes(p.status)) problems.push('Status is 2xx, 4xx, 429 or 5xx');
    if (p.cache && !CACHE_OUTCOMES.has(p.cache)) problems.push('Cache is HIT, MISS, BYPASS or STALE');
    if (!RANGES.some(([r]) => r === p.range)) problems.push('Time is the last hour, day or week');
    if (!Number.isInteger(p.page) || p.page < 1 || p.page > SCAN_LIMIT / PAGE_SIZE) {
      problems.push(`Page is 1 to ${SCAN_LIMIT / PAGE_SIZE}`);
      p.page = 1;
    }
    if (problems.length) return send(res, 400, searchPage(s, p, [], false, problems));
    if (!opts.replay) return send(res, 503, messagePage(s, 'Search', 'The replay log is disabled on this gateway (REPLAY_ENABLED=false).'));
    await audit(req, s, 'search', p.id || null, {
      partner: p.partner || undefined,
      env: p.env || undefined,
      status: p.status || undefined,
      cache: p.cache || undefined,
      range: p.range,
      page: p.page,
    });
    if (p.id) {
      const record = await opts.replay.get(p.id);
      if (record) return redirect(res, `/console/records/${encodeURIComponent(record.id)}`);
      return send(res, 404, searchPage(s, p, [], false, [`No record with request id ${p.id} (records are kept for a limited time).`]));
    }
    const rq: ReplayQuery = { since: now() - RANGE_MS[p.range]!, limit: p.cache ? SCAN_LIMIT : p.page * PAGE_SIZE + 1 };
    if (p.partner) rq.partner = p.partner;
    if (p.env) rq.environment = p.env;
    if (p.status) rq.status = p.status;
    const matching = (await opts.replay.list(rq)).filter((r) => !p.cache || r.cache === p.cache);
    const shown = matching.slice((p.page - 1) * PAGE_SIZE, p.page * PAGE_SIZE);
    return send(res, 200, searchPage(s, p, shown, matching.length > p.page * PAGE_SIZE, []));
  }

  async function loadRecord(id: string): Promise<ReplayRecord> {
    if (!REQUEST_ID.test(id)) throw new HttpError(400, 'That is not a request id.');
    if (!opts.replay) throw new HttpError(503, 'The replay log is disabled on this gateway.');
    const record = await opts.replay.get(id);
    if (!record) throw new HttpError(404, `No record with request id ${id} (records are kept for a limited time).`);
    return record;
  }

  async function record(req: IncomingMessage, res: ServerResponse, s: Session, id: string, action: string): Promise<void> {
    if (action === '' && req.method === 'GET') {
      const r = await loadRecord(id);
      const m = maskRecord(r);
      await audit(req, s, 'record.view', r.id, m.masked ? { masked: true } : undefined);
      return send(
        res,
        200,
        recordPage(s, {
          record: m.record,
          masked: m.masked,
          unmaskAvailable: opts.unmasker.available,
          traceUrlTemplate: opts.traceUrlTemplate,
          unmasked: false,
        }),
      );
    }
    if (req.method !== 'POST') throw new HttpError(405, 'Use the buttons of the record page.');
    const form = await checkedForm(req, s.csrf);
    const r = await loadRecord(id);
    if (action === 'unmask') {
      const clear = await opts.unmasker.unmask(r, form.get('key') ?? '');
      await audit(req, s, clear ? 'record.unmask' : 'record.unmask.refused', r.id);
      if (!clear)
        return send(
          res,
          403,
          recordPage(s, {
            record: maskRecord(r).record,
            masked: true,
            unmaskAvailable: opts.unmasker.available,
            traceUrlTemplate: opts.traceUrlTemplate,
            unmasked: false,
            message: 'That support key is not right; personal data stays masked.',
          }),
        );
      return send(
        res,
        200,
        recordPage(s, {
          record: clear,
          masked: false,
          unmaskAvailable: opts.unmasker.available,
          traceUrlTemplate: opts.traceUrlTemplate,
          unmasked: true,
        }),
      );
    }
    if (action === 'rerun') {
      if (!r.query) throw new HttpError(409, 'This request carried no operation; there is nothing to rerun.');
      const answer = await opts.rerun(r);
      const diff = diffResponses(r.responseBody, answer.body, {
        oldStatus: r.status,
        newStatus: answer.status,
        oldRequestId: r.id,
        newRequestId: answer.requestId,
      });
      await audit(req, s, 'record.rerun', r.id, { identical: diff.identical, rerunRequestId: answer.requestId });
      // Personal data stays masked in the diff as well.
      const m = maskRecord(r);
      const shownAnswer = m.masked ? { ...answer, body: maskRecord({ ...r, responseBody: answer.body }).record.responseBody } : answer;
      return send(res, 200, diffPage(s, m.record, shownAnswer, diff));
    }
    throw new HttpError(404, 'No such page.');
  }

  async function auditLog(req: IncomingMessage, res: ServerResponse, s: Session, url: URL): Promise<void> {
    const actor = text(url.searchParams.get('actor'), 100);
    const action = text(url.searchParams.get('action'), 64);
    const pageNo = Number(url.searchParams.get('page') ?? 1);
    if (!Number.isInteger(pageNo) || pageNo < 1 || pageNo > 400) throw new HttpError(400, 'Page is 1 to 400.');
    await audit(req, s, 'audit.view', null);
    const entries = await opts.audit.list({
      actor: actor || undefined,
      action: action || undefined,
      offset: (pageNo - 1) * PAGE_SIZE,
      limit: PAGE_SIZE + 1,
    });
    return send(res, 200, auditPage(s, entries.slice(0, PAGE_SIZE), { actor, action, page: pageNo }, entries.length > PAGE_SIZE));
  }

  async function partners(req: IncomingMessage, res: ServerResponse, s: Session, rest: string[]): Promise<void> {
    const actor = { actor: `support:${s.user}` };
    if (rest.length === 0) {
      if (req.method === 'GET') return send(res, 200, partnersPage(s, opts.partners.list(), {}));
      if (req.method !== 'POST') throw new HttpError(405, 'Method not allowed.');
      const form = await checkedForm(req, s.csrf);
      try {
        const p = await savePartner(
          opts.partnersFile,
          { code: form.get('code'), name: form.get('name'), contact: form.get('contact') },
          actor,
        );
        await audit(req, s, 'partner.save', p.code, { name: p.name, contact: p.contact });
        // This instance answers from the new file at once; the others within their poll (250 ms).
        await opts.partners.reload();
        return redirect(res, `/console/partners/${encodeURIComponent(p.code)}?saved=1`);
      } catch (err) {
        if (!(err instanceof PartnerError)) throw err;
        return send(
          res,
          400,
          partnersPage(
            s,
            opts.partners.list(),
            { error: err.message },
            Object.fromEntries(['code', 'name', 'contact'].map((k) => [k, form.get(k) ?? ''])),
          ),
        );
      }
    }
    const code = decode(rest[0]!).toUpperCase();
    const show = (status: number, flash: { ok?: string; error?: string }) => {
      const p = opts.partners.get(code);
      if (!p) throw new HttpError(404, `No partner ${code}.`);
      return send(res, status, partnerPage(s, p, flash));
    };
    if (rest.length === 1 && req.method === 'GET') {
      const saved = new URL(req.url ?? '/', 'http://x').searchParams.has('saved');
      return show(200, saved ? { ok: 'Saved.' } : {});
    }
    const op = rest.slice(1).join('/');
    if (req.method !== 'POST' || (op !== 'ips' && op !== 'ips/remove')) throw new HttpError(404, 'No such page.');
    const form = await checkedForm(req, s.csrf);
    const cidr = form.get('cidr') ?? '';
    try {
      const entry =
        op === 'ips' ? await addTestIp(opts.partnersFile, code, cidr, actor) : await removeTestIp(opts.partnersFile, code, cidr, actor);
      await audit(req, s, op === 'ips' ? 'partner.ip.enable' : 'partner.ip.disable', code, { cidr: entry.cidr });
      await opts.partners.reload();
      return show(200, { ok: op === 'ips' ? `${entry.cidr} enabled for the certification checkout.` : `${entry.cidr} removed.` });
    } catch (err) {
      if (!(err instanceof PartnerError)) throw err;
      return show(400, { error: err.message });
    }
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
    const s = sessions.get(readCookie(req, SESSION_COOKIE));
    if (path === '/console/session') return s ? send(res, 204, '') : send(res, 401, '');
    if (!s) {
      if (req.method === 'GET') return redirect(res, '/console/sign-in');
      throw new HttpError(401, 'Your session ended. Sign in again.');
    }
    if (path === '/console/sign-out') {
      if (req.method !== 'POST') throw new HttpError(405, 'Sign out with the button.');
      await checkedForm(req, s.csrf);
      sessions.close(s.id);
      await audit(req, s, 'sign-out', null);
      return redirect(res, '/console/sign-in', { 'set-cookie': cookie(req, SESSION_COOKIE, '', 0) });
    }
    if (path === '/console' || path === '/console/') return redirect(res, '/console/search');
    if (path === '/console/search' && req.method === 'GET') return search(req, res, s, url);
    if (path === '/console/audit' && req.method === 'GET') return auditLog(req, res, s, url);
    const parts = path.split('/').slice(2);
    if (parts[0] === 'records' && parts[1]) return record(req, res, s, decode(parts[1]), parts.slice(2).join('/'));
    if (parts[0] === 'partners') return partners(req, res, s, parts.slice(1));
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
