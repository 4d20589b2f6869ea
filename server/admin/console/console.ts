// The support console, served under /console by the admin listener: sign-in with a
// personal support token, request search, a record page, rerun with a diff, the audit log and
// partner pages. Every state-changing request is a POST carrying the session's CSRF token (and,
// when the browser sends one, an Origin of this host); every page carries a strict CSP. What a
// session may do follows its token's roles (viewer, unmask, partners), checked here on every
// request whatever the page showed. Every sign-in, search, record view, unmasking, rerun and
// partner change is audited before it answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KeyStore, SupportRole } from '../../keys/key-store.js';
import { addTestIp, removeTestIp, savePartner, PartnerError, type PartnerStore, type CheckAnswer } from '../../keys/partners.js';
import type { ReplayQuery, ReplayRecord, ReplayStore } from '../../stores/replay-store.js';
import type { AuditLog } from '../../stores/audit-log.js';
import { diffResponses } from '../../stores/replay-diff.js';
import { OUTCOMES, outcomeOf, replayFacets, rootFieldsOf, type Outcome } from '../../stores/replay-facets.js';
import { clientIp, type TrustProxy } from '../../http/client-ip.js';
import type { RerunAnswer } from '../rerun.js';
import { ASSETS } from './assets.js';
import { maskRecord, type Unmasker } from './masking.js';
import {
  PAGE_SIZE,
  RANGES,
  auditPage,
  messagePage,
  recordPage,
  searchPage,
  signInPage,
  type SearchParams,
  type SearchSummary,
} from './pages.js';
import { diffPage } from './diff-page.js';
import { partnerPage, partnersPage, type Flash, type PartnerView } from './partner-pages.js';
import { partnerActivity, windowStart } from './partner-activity.js';
import { PRE_COOKIE, SESSION_COOKIE, SessionStore, can, cookie, randomToken, readCookie, sameSecret, type Session } from './session.js';

export interface ConsoleOptions {
  keys: Pick<KeyStore, 'verify' | 'isActive'> & Partial<Pick<KeyStore, 'keysOf'>>;
  replay: ReplayStore | null;
  audit: AuditLog;
  partners: PartnerStore;
  partnersFile: string;
  rerun(record: ReplayRecord): Promise<RerunAnswer>;
  unmasker: Unmasker;
  sessionTtlMs: number;
  trustProxy: TrustProxy;
  now?: () => number;
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
const CACHE_OUTCOMES = new Set(['HIT', 'MISS', 'BYPASS', 'STALE', 'COALESCED']);
/** A search reads at most this many matching records (outcome counts and pages come from them). */
const SCAN_LIMIT = 1000;
/** A partner page's week of activity reads at most this many of its records. */
const ACTIVITY_LIMIT = 5000;
/** ...and at most this many chunks of the store (see ReplayStore.search). */
const ACTIVITY_UNITS = 64;
const REASON = /^[\p{L}\p{N} #._:/-]{3,80}$/u;

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

/** A console page to return to after signing in: a path under /console, never another site. */
export function safeNext(value: string | null | undefined): string {
  // A form's action (rerun, unmask) comes back as its page.
  const v = (value ?? '').trim().replace(/\/(rerun|unmask)$/, '');
  if (v.length > 2000 || !/^\/console\/[^/\\]/.test(v) || v.startsWith('/console/sign-')) return '';
  return /^[\x21-\x7e]+$/.test(v) ? v : '';
}

/** A `datetime-local` value (UTC) or an ISO time, in ms; null when neither. */
function parseWhen(value: string): number | null {
  if (!value) return null;
  const t = Date.parse(/(Z|[+-]\d\d:?\d\d)$/i.test(value) ? value : `${value}Z`);
  return Number.isFinite(t) ? t : null;
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
    from: text(q.get('from'), 40),
    to: text(q.get('to'), 40),
    outcome: text(q.get('outcome')),
    code: text(q.get('code'), 64).toUpperCase(),
    ip: text(q.get('ip'), 64),
    field: text(q.get('field'), 64),
    zip: text(q.get('zip'), 10),
    after: text(q.get('after'), 2000),
    page: Number(q.get('page') ?? 1),
  };
}

/** The search's problems with its parameters, and the store query they make. */
function searchQuery(p: SearchParams, now: number): { problems: string[]; query: ReplayQuery } {
  const problems: string[] = [];
  const query: ReplayQuery = {};
  if (p.id && !REQUEST_ID.test(p.id)) problems.push('A request id is 1 to 128 characters of letters, digits and . _ : -');
  if (p.partner && !/^[A-Z0-9][A-Z0-9_-]{1,31}$/.test(p.partner)) problems.push('A partner code is 2 to 32 characters A-Z, 0-9, _ or -');
  if (p.env && !['production', 'certification', 'playground'].includes(p.env)) problems.push('Unknown environment');
  if (p.status && !['2xx', '4xx', '429', '5xx'].includes(p.status)) problems.push('Status is 2xx, 4xx, 429 or 5xx');
  if (p.cache && !CACHE_OUTCOMES.has(p.cache)) problems.push('Cache is HIT, MISS, BYPASS or STALE');
  if (p.outcome && !(OUTCOMES as readonly string[]).includes(p.outcome)) problems.push(`Outcome is one of ${OUTCOMES.join(', ')}`);
  if (p.code && !/^[A-Z][A-Z0-9_]{0,63}$/.test(p.code))
    problems.push('An error code is like GRAPHQL_VALIDATION_FAILED (letters, digits, _)');
  if (p.ip && !/^[0-9A-Fa-f.:]{2,45}$/.test(p.ip)) problems.push('A client address is an IPv4 or IPv6 address, such as 203.0.113.7');
  if (p.field && !/^[_A-Za-z][_0-9A-Za-z]{0,63}$/.test(p.field)) problems.push('A root field is a GraphQL name, such as residentialPlans');
  if (p.zip && !/^\d{5}$/.test(p.zip)) problems.push('A ZIP is 5 digits');
  if (p.after && !/^[A-Za-z0-9_-]+$/.test(p.after)) problems.push('That continuation link is damaged; search again');
  if (!RANGES.some(([r]) => r === p.range)) problems.push('Time is the last hour, day or week, or from – to');
  if (p.range === 'custom') {
    const from = parseWhen(p.from);
    const to = parseWhen(p.to);
    if (p.from && from === null) problems.push('From is a date and time, such as 2026-03-01T14:00 (UTC)');
    if (p.to && to === null) problems.push('To is a date and time, such as 2026-03-01T15:00 (UTC)');
    if (!p.from && !p.to) problems.push('From – to needs a from or a to time');
    if (from !== null && to !== null && from > to) problems.push('From is after to');
    query.since = from ?? now - RANGE_MS['7d']!;
    // A minute-precise "to" includes that whole minute.
    if (to !== null) query.until = /T\d\d:\d\d$/.test(p.to) ? to + 59_999 : to;
  } else query.since = now - (RANGE_MS[p.range] ?? RANGE_MS['1d']!);
  if (!Number.isInteger(p.page) || p.page < 1 || p.page > SCAN_LIMIT / PAGE_SIZE) {
    problems.push(`Page is 1 to ${SCAN_LIMIT / PAGE_SIZE}`);
    p.page = 1;
  }
  if (p.partner) query.partner = p.partner;
  if (p.env) query.environment = p.env;
  if (p.status) query.status = p.status;
  if (p.cache) query.cache = p.cache;
  if (p.code) query.errorCode = p.code;
  if (p.ip) query.clientIp = p.ip;
  if (p.field) query.rootField = p.field;
  if (p.zip) query.zip = p.zip;
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

  /** A ticket id or short reason, required before personal data is opened. */
  function reasonOf(form: URLSearchParams): string {
    const reason = (form.get('reason') ?? '').trim();
    if (!REASON.test(reason)) throw new HttpError(400, 'Give a reason (the ticket id, 3 to 80 letters, digits, spaces or # . _ : / -).');
    return reason;
  }

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
      const record = await opts.replay.get(p.id);
      if (record) return redirect(res, `/console/records/${encodeURIComponent(record.id)}`);
      return send(res, 404, searchPage(s, p, [], false, [`No record with request id ${p.id} (records are kept for a limited time).`]));
    }
    // The outcome is counted over every match, then filtered: the counts stay visible when one is picked.
    // A bounded slice of the store whatever its size; the page links to the next one.
    const slice = await opts.replay.search({ ...query, limit: SCAN_LIMIT }, { cursor: p.after || null });
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

  async function loadRecord(id: string): Promise<ReplayRecord> {
    if (!REQUEST_ID.test(id)) throw new HttpError(400, 'That is not a request id.');
    if (!opts.replay) throw new HttpError(503, 'The replay log is disabled on this gateway.');
    const record = await opts.replay.get(id);
    if (!record) throw new HttpError(404, `No record with request id ${id} (records are kept for a limited time).`);
    return record;
  }

  /** What a page shows of a record: personal data opened in the server, then masked unless `clear`. */
  function view(r: ReplayRecord, clear: boolean) {
    const opened = opts.unmasker.open(r);
    const canOpen = !!r.personalData && !opened.problem;
    const responseBytes = Buffer.byteLength(opened.record.responseBody);
    if (clear && canOpen) return { record: opened.record, masked: false, canOpen, unmasked: true, responseBytes };
    const m = maskRecord(opened.record);
    return { record: m.record, masked: m.masked, canOpen, unmasked: false, responseBytes };
  }

  async function rerun(req: IncomingMessage, res: ServerResponse, s: Session, r: ReplayRecord, form: URLSearchParams): Promise<void> {
    if (!r.query)
      throw new HttpError(
        409,
        'This request was not executed (refused or invalid), so its operation was not kept: there is nothing to rerun.',
      );
    let toRun = r;
    let reason: string | null = null;
    if (r.personalData) {
      // The stored operation is sealed: it is opened here and run as sent, never the mask text.
      await requireRole(req, s, 'unmask', 'record.rerun', r.id);
      reason = reasonOf(form);
      const opened = opts.unmasker.open(r);
      if (opened.problem) throw new HttpError(409, `This record cannot be rerun: ${opened.problem}.`);
      toRun = opened.record;
    }
    const started = now();
    const answer = await opts.rerun(toRun);
    const diff = diffResponses(toRun.responseBody, answer.body, {
      oldStatus: r.status,
      newStatus: answer.status,
      oldRequestId: r.id,
      newRequestId: answer.requestId,
    });
    recordRerun(req, s, toRun, answer, now() - started);
    await audit(req, s, 'record.rerun', r.id, {
      identical: diff.identical,
      rerunRequestId: answer.requestId,
      ...(reason ? { reason, personalData: true } : {}),
    });
    const note = reason ? 'Personal data shown in clear for the reason you gave. This rerun was written to the audit log.' : undefined;
    return send(res, 200, diffPage(s, toRun, answer, diff, note));
  }

  /** The rerun's own record, so its request id can be searched (sealed like any personal record). */
  function recordRerun(req: IncomingMessage, s: Session, ran: ReplayRecord, answer: RerunAnswer, durationMs: number): void {
    if (!opts.replay) return;
    const rec: ReplayRecord = {
      id: answer.requestId,
      time: new Date(now() - durationMs).toISOString(),
      environment: ran.environment,
      partnerCode: ran.partnerCode,
      clientIp: from(req),
      operationName: ran.operationName,
      query: ran.query,
      variables: ran.variables,
      status: answer.status,
      responseBody: answer.body,
      responseHeaders: { 'x-request-id': answer.requestId },
      fromCache: false,
      cache: null,
      upstreamCalls: [],
      durationMs,
      notes: { rerunOf: ran.id, by: `support:${s.user}` },
    };
    rec.facets = replayFacets({ body: answer.body, rootFields: rootFieldsOf(ran.query), query: ran.query, variables: ran.variables });
    if (ran.personalData) opts.unmasker.seal(rec);
    opts.replay.enqueue(rec);
  }

  async function record(req: IncomingMessage, res: ServerResponse, s: Session, id: string, action: string): Promise<void> {
    if (action === '' && req.method === 'GET') {
      const r = await loadRecord(id);
      const v = view(r, false);
      await audit(req, s, 'record.view', r.id, v.masked ? { masked: true } : undefined);
      return send(res, 200, recordPage(s, v));
    }
    if (req.method !== 'POST') throw new HttpError(405, 'Use the buttons of the record page.');
    const form = await checkedForm(req, s.csrf);
    const r = await loadRecord(id);
    if (action === 'unmask') {
      await requireRole(req, s, 'unmask', 'record.unmask', r.id);
      const reason = reasonOf(form);
      const v = view(r, true);
      if (!v.unmasked) {
        await audit(req, s, 'record.unmask.refused', r.id, { reason, problem: opts.unmasker.open(r).problem ?? 'no personal data' });
        return send(res, 409, recordPage(s, { ...v, message: 'This record has no personal data this gateway can open.' }));
      }
      await audit(req, s, 'record.unmask', r.id, { reason });
      return send(res, 200, recordPage(s, v));
    }
    if (action === 'rerun') return rerun(req, res, s, r, form);
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

  /** One partner's page: record, keys (with last use), test IPs, a week of activity. */
  async function showPartner(
    res: ServerResponse,
    s: Session,
    code: string,
    status: number,
    extra: Partial<Pick<PartnerView, 'flash' | 'cidr' | 'check'>>,
  ): Promise<void> {
    const partner = opts.partners.get(code);
    if (!partner) throw new HttpError(404, `No partner ${code}.`);
    let activity = null;
    if (opts.replay) {
      const slice = await opts.replay.search(
        { partner: code, since: windowStart(now()), limit: ACTIVITY_LIMIT },
        { maxUnits: ACTIVITY_UNITS },
      );
      activity = partnerActivity(slice.records, now(), slice.next !== null);
    }
    const keys = opts.keys.keysOf?.(code).filter((k) => k.environment !== 'support') ?? [];
    return send(res, status, partnerPage(s, { partner, keys, activity, flash: extra.flash ?? {}, cidr: extra.cidr, check: extra.check }));
  }

  /** Messages after a partner change, by a fixed code (a link cannot make the page say anything else). */
  function doneFlash(q: URLSearchParams): Flash {
    const cidr = text(q.get('cidr'), 64);
    switch (q.get('done')) {
      case 'saved':
        return { ok: 'Saved.' };
      case 'ip-enabled':
        return { ok: `${cidr} enabled for the certification checkout.` };
      case 'ip-removed':
        return { ok: `${cidr} removed.` };
      default:
        return {};
    }
  }

  async function partners(req: IncomingMessage, res: ServerResponse, s: Session, rest: string[], url: URL): Promise<void> {
    const actor = { actor: `support:${s.user}` };
    if (rest.length === 0) {
      if (req.method === 'GET') return send(res, 200, partnersPage(s, opts.partners.list(), {}));
      if (req.method !== 'POST') throw new HttpError(405, 'Method not allowed.');
      const form = await checkedForm(req, s.csrf);
      await requireRole(req, s, 'partners', 'partner.save', text(form.get('code'), 32).toUpperCase() || null);
      try {
        const p = await savePartner(
          opts.partnersFile,
          { code: form.get('code'), name: form.get('name'), contact: form.get('contact') },
          actor,
        );
        await audit(req, s, 'partner.save', p.code, { name: p.name, contact: p.contact });
        // This instance answers from the new file at once; the others within their poll (250 ms).
        await opts.partners.reload();
        return redirect(res, `/console/partners/${encodeURIComponent(p.code)}?done=saved`);
      } catch (err) {
        if (!(err instanceof PartnerError)) throw err;
        const typed = Object.fromEntries(['code', 'name', 'contact'].map((k) => [k, form.get(k) ?? '']));
        return send(res, 400, partnersPage(s, opts.partners.list(), { error: err.message }, typed));
      }
    }
    const code = decode(rest[0]!).toUpperCase();
    const op = rest.slice(1).join('/');
    if (req.method === 'GET' && (op === '' || op === 'ips' || op === 'ips/remove')) {
      // A reload after a change lands on the partner page, never on a 404.
      if (op !== '') return redirect(res, `/console/partners/${encodeURIComponent(code)}`);
      const ip = url.searchParams.get('check');
      if (ip === null) return showPartner(res, s, code, 200, { flash: doneFlash(url.searchParams) });
      let answer: CheckAnswer | undefined;
      let error: string | undefined;
      try {
        answer = opts.partners.check(code, ip);
      } catch (err) {
        if (!(err instanceof PartnerError)) throw err;
        error = err.message;
      }
      await audit(req, s, 'partner.ip.check', code, { ip: text(ip, 64), enabled: answer?.enabled ?? null });
      return showPartner(res, s, code, error ? 400 : 200, { check: { ip: text(ip, 64), answer, error } });
    }
    if (req.method !== 'POST' || (op !== 'ips' && op !== 'ips/remove')) throw new HttpError(404, 'No such page.');
    const form = await checkedForm(req, s.csrf);
    const enable = op === 'ips';
    await requireRole(req, s, 'partners', enable ? 'partner.ip.enable' : 'partner.ip.disable', code);
    const cidr = form.get('cidr') ?? '';
    try {
      const entry = enable
        ? await addTestIp(opts.partnersFile, code, cidr, actor)
        : await removeTestIp(opts.partnersFile, code, cidr, actor);
      await audit(req, s, enable ? 'partner.ip.enable' : 'partner.ip.disable', code, { cidr: entry.cidr });
      await opts.partners.reload();
      const done = new URLSearchParams({ done: enable ? 'ip-enabled' : 'ip-removed', cidr: entry.cidr });
      return redirect(res, `/console/partners/${encodeURIComponent(code)}?${done}`);
    } catch (err) {
      if (!(err instanceof PartnerError)) throw err;
      // The entry stays in the field, to correct rather than retype.
      return showPartner(res, s, code, 400, { flash: { error: err.message }, cidr: enable ? text(cidr, 64) : undefined });
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
    if (path === '/console/audit' && req.method === 'GET') return auditLog(req, res, s, url);
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
