// The playground allowance in the console: /console/allowance?ip=ADDRESS shows the calls counted
// and left for an address (under the gateways' own key: an IPv6 address by its /64), and a reset
// form (with a ticket id) for the partners role, audited as allowance.reset with the actor, the
// address and the ticket. The reset answers with a redirect to the page it came from.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowanceSubjectOf } from '../allowance-admin.js';
import { can, type Session } from './session.js';
import { csrfField, disabledNote, html, page } from './html.js';
import { HttpError, redirect, send, text, type ConsoleContext } from './console-http.js';

const BAD_ADDRESS = 'An address is an IPv4 or IPv6 address (at most 45 characters), such as 203.0.113.7 or 2001:db8::1.';
const TICKET = /^[\x21-\x7e][\x20-\x7e]{0,79}$/;

interface AllowanceView {
  ip: string;
  subject?: string;
  used?: number;
  error?: string;
  done?: boolean;
}

function allowancePage(s: Session, limit: number, store: string, v: AllowanceView): string {
  const left = v.used === undefined ? 0 : Math.max(0, limit - v.used);
  const resetButton = can(s, 'partners')
    ? html`<button type="submit" class="primary">Give the allowance back</button>`
    : html`<button type="submit" disabled aria-describedby="reset-why">Give the allowance back</button>${disabledNote(
        'reset-why',
        'Giving an allowance back needs the partners role on your support token.',
      )}`;
  const body = html`
  <p>The playground counts ${limit} calls per client address, never refilled by itself; an IPv6 address counts by its /64 network.</p>
  <form method="get" action="/console/allowance" class="filters" id="allowance-read">
    <label>Client address <input name="ip" required maxlength="45" spellcheck="false" autocomplete="off" value="${v.ip}"
      aria-describedby="ip-hint"></label> <span class="n" id="ip-hint">IPv4 or IPv6, for example 203.0.113.7</span>
    <button type="submit">Show</button>
  </form>
  ${v.error ? html`<p class="error" role="alert" id="allowance-result">${v.error}</p>` : ''}
  ${v.done ? html`<p class="ok" role="status">Allowance given back for ${v.subject}.</p>` : ''}
  ${
    v.subject !== undefined && v.used !== undefined
      ? html`<dl class="meta" id="allowance-result"><dt>Counted as</dt><dd class="mono">${v.subject}</dd>
    <dt>Calls used</dt><dd id="used">${v.used} of ${limit}</dd><dt>Calls left</dt><dd id="left">${left}</dd><dt>Store</dt><dd>${store}</dd></dl>
  <form method="post" action="/console/allowance" class="filters" id="allowance-reset">${csrfField(s)}
    <input type="hidden" name="ip" value="${v.ip}">
    <label>Ticket id <input name="ticket" required maxlength="80" autocomplete="off"></label>
    ${resetButton}
  </form>
  <p><a href="/console/audit?action=allowance">Allowance actions in the audit log</a></p>`
      : ''
  }`;
  return page('Playground allowance', body, s, '/console/allowance');
}

export function allowanceRoutes(ctx: ConsoleContext) {
  const { opts, audit, checkedForm, requireRole } = ctx;

  return async function allowance(req: IncomingMessage, res: ServerResponse, s: Session, url: URL): Promise<void> {
    const admin = opts.allowance;
    if (!admin) throw new HttpError(503, 'The playground allowance is not available to this console.');
    if (req.method === 'GET') {
      const raw = url.searchParams.get('ip');
      if (raw === null || raw === '') return send(res, 200, allowancePage(s, admin.limit, admin.store, { ip: '' }));
      const subject = allowanceSubjectOf(raw);
      if (!subject) return send(res, 400, allowancePage(s, admin.limit, admin.store, { ip: text(raw, 45), error: BAD_ADDRESS }));
      const used = await admin.used(subject);
      await audit(req, s, 'allowance.show', subject, { ip: raw.trim(), used, limit: admin.limit });
      const done = url.searchParams.get('done') === 'reset';
      return send(res, 200, allowancePage(s, admin.limit, admin.store, { ip: raw.trim(), subject, used, done }));
    }
    if (req.method !== 'POST') throw new HttpError(405, 'Method not allowed.');
    const form = await checkedForm(req, s.csrf);
    const ip = form.get('ip') ?? '';
    const subject = allowanceSubjectOf(ip);
    if (!subject) throw new HttpError(400, BAD_ADDRESS);
    await requireRole(req, s, 'partners', 'allowance.reset', subject);
    const ticket = (form.get('ticket') ?? '').trim();
    if (!TICKET.test(ticket)) throw new HttpError(400, 'A ticket id is 1 to 80 printable characters.');
    const usedBefore = await admin.used(subject);
    // Audited before it is done, as every console action: a reset that cannot be audited fails.
    await audit(req, s, 'allowance.reset', subject, { ip: ip.trim(), ticket, usedBefore, limit: admin.limit });
    if (usedBefore > 0) await admin.reset(subject);
    return redirect(res, `/console/allowance?${new URLSearchParams({ ip: ip.trim(), done: 'reset' })}`);
  };
}
