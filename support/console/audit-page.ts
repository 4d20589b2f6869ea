// The audit log page: who did what, to what, when and from where, newest first, filtered by who,
// action and a from – to time (UTC). Each target links to what it names: a record, a partner, a
// key (on its partner's page), a client address's allowance.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { actionsFor, type AuditEntry } from '../audit/audit-log.js';
import type { Session } from './session.js';
import { html, page, when, type Html } from './html.js';
import { recordHref } from './record-choice.js';
import { allowanceHref } from './record-why.js';
import { HttpError, REQUEST_ID, send, text, type ConsoleContext } from './console-http.js';
import { MAX_TIME_CHARS, timeRange } from './time-filter.js';
import { PAGE_SIZE } from './pages.js';

interface AuditFilters {
  actor: string;
  action: string;
  from: string;
  to: string;
  page: number;
}

const RECORD_TARGET = /^(production|certification|playground)\/([^/]+)\/([^/]+)$/;
const PARTNER = /^[A-Z0-9][A-Z0-9_-]{1,31}$/;

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** Where an entry's target is shown in the console, or null (it names nothing there). */
function targetHref(e: AuditEntry): string | null {
  const t = e.target;
  if (!t) return null;
  const family = e.action.split('.')[0];
  if (family === 'record') {
    const m = RECORD_TARGET.exec(t);
    // Entries written before targets named environment and partner hold the request id alone.
    if (!m) return REQUEST_ID.test(t) ? `/console/records/${encodeURIComponent(t)}` : null;
    return recordHref({ id: m[3]!, environment: m[1]!, partnerCode: m[2] === '-' ? null : m[2]! });
  }
  if (family === 'partner') return PARTNER.test(t) ? `/console/partners/${encodeURIComponent(t)}` : null;
  if (family === 'key') {
    const partner = str(e.details?.partner)?.toUpperCase();
    if (!partner || !PARTNER.test(partner)) return null;
    // A support token's owner has no partner page: its actions are in this log.
    if (e.details?.environment === 'support') return `/console/audit?${new URLSearchParams({ actor: `support:${partner}` })}`;
    return `/console/partners/${encodeURIComponent(partner)}#key-${encodeURIComponent(t)}`;
  }
  if (family === 'allowance') {
    const ip = str(e.details?.ip);
    return ip ? allowanceHref(ip) : null;
  }
  if (family === 'search' && REQUEST_ID.test(t)) return `/console/search?${new URLSearchParams({ id: t })}`;
  return null;
}

function targetCell(e: AuditEntry): Html | string {
  const href = targetHref(e);
  if (!e.target) return '–';
  return href ? html`<a href="${href}">${e.target}</a>` : e.target;
}

function auditPage(session: Session, entries: AuditEntry[], f: AuditFilters, hasMore: boolean, problems: string[] = []): string {
  const link = (n: number) =>
    `/console/audit?${new URLSearchParams({
      ...(f.actor ? { actor: f.actor } : {}),
      ...(f.action ? { action: f.action } : {}),
      ...(f.from ? { from: f.from } : {}),
      ...(f.to ? { to: f.to } : {}),
      page: String(n),
    })}`;
  const body = html`
  <form class="filters" method="get" action="/console/audit">
    <label>Who <input name="actor" value="${f.actor}" maxlength="100" autocomplete="off" aria-describedby="who-hint"></label>
    <label>Action <input name="action" value="${f.action}" maxlength="64" autocomplete="off" aria-describedby="action-hint"></label>
    <label class="half">From (UTC) <input name="from" value="${f.from}" size="17" maxlength="40" autocomplete="off" spellcheck="false"
      aria-describedby="time-hint"></label>
    <label class="half">To (UTC) <input name="to" value="${f.to}" size="17" maxlength="40" autocomplete="off" spellcheck="false"
      aria-describedby="time-hint"></label>
    <button type="submit" class="primary">Filter</button>
    <span class="n hints"><span id="who-hint">Who: e.g. support:ALICE, cli:root.</span>
      <span id="action-hint">Action: e.g. record (every record action), record.unmask.</span>
      <span id="time-hint">Times: UTC, 24-hour, e.g. 2026-03-01 14:00 (a date alone: that whole day).</span></span>
  </form>
  ${problems.map((m) => html`<p class="error" role="alert">${m}</p>`)}
  ${
    entries.length
      ? html`<table id="audit" class="cards"><thead><tr><th>Time (UTC)</th><th>Who</th><th>What</th><th>Target</th><th>From</th><th>Details</th></tr></thead>
    <tbody>${entries.map(
      (e) => html`<tr><td class="mono" data-label="Time (UTC)">${when(e.time)}</td><td data-label="Who">${e.actor}</td>
    <td data-label="What">${e.action}</td><td class="mono" data-label="Target">${targetCell(e)}</td>
    <td class="mono" data-label="From">${e.from}</td><td class="mono" data-label="Details">${e.details ? JSON.stringify(e.details) : ''}</td></tr>`,
    )}</tbody></table>`
      : html`<p>No entries.</p>`
  }
  <div class="pager">${f.page > 1 ? html`<a href="${link(f.page - 1)}">← Newer</a>` : ''}
    ${hasMore ? html`<a href="${link(f.page + 1)}">Older →</a>` : ''}</div>`;
  return page('Audit log', body, session, '/console/audit');
}

/** GET /console/audit: the filtered page; a filter that is not one is refused (400) saying why. */
export function auditRoute(ctx: ConsoleContext) {
  const { opts, audit } = ctx;
  return async function auditLog(req: IncomingMessage, res: ServerResponse, s: Session, url: URL): Promise<void> {
    if (req.method !== 'GET') throw new HttpError(405, 'Method not allowed.');
    const q = url.searchParams;
    const f: AuditFilters = {
      actor: text(q.get('actor'), 100),
      action: text(q.get('action'), 64),
      from: text(q.get('from'), MAX_TIME_CHARS),
      to: text(q.get('to'), MAX_TIME_CHARS),
      page: Number(q.get('page') ?? 1),
    };
    if (!Number.isInteger(f.page) || f.page < 1 || f.page > 400) throw new HttpError(400, 'Page is 1 to 400.');
    const problems: string[] = [];
    try {
      actionsFor(f.action || undefined);
    } catch (err) {
      problems.push(`${(err as Error).message}.`);
    }
    const { from, to } = timeRange(f.from, f.to, problems);
    if (problems.length) return send(res, 400, auditPage(s, [], f, false, problems));
    await audit(req, s, 'audit.view', null, f.from || f.to ? { from: f.from || undefined, to: f.to || undefined } : undefined);
    const entries = await opts.audit.list({
      actor: f.actor || undefined,
      action: f.action || undefined,
      from,
      to,
      offset: (f.page - 1) * PAGE_SIZE,
      limit: PAGE_SIZE + 1,
    });
    return send(res, 200, auditPage(s, entries.slice(0, PAGE_SIZE), f, entries.length > PAGE_SIZE));
  };
}
