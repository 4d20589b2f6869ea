// The partner pages: every partner, and one partner's record (edit), keys, certification test
// IPs, an IP check and a week of activity per environment linking to the matching searches.
import type { PartnerRecord, CheckAnswer } from '../../stores/partners.js';
import type { KeyRecord } from '../../stores/key-store.js';
import type { Session } from './session.js';
import { can } from './session.js';
import { csrfField, disabledNote, html, page, when, type Html } from './html.js';
import { searchHref } from './pages.js';
import { weekChart } from './chart.js';
import type { PartnerActivity } from './partner-activity.js';
import { quotaSection, type QuotaForm } from './partner-quota-section.js';
import type { QuotaSetting } from '../../stores/partner-quota.js';

/** A partner known from its keys only: no name, contact or test IPs yet (updatedBy is empty). */
export function keyOnlyPartner(code: string): PartnerRecord {
  return { code, name: '', contact: '', testIps: [], updatedBy: '', updatedAt: '' };
}
const isKeyOnly = (p: PartnerRecord) => p.updatedBy === '';

export interface Flash {
  ok?: string;
  error?: string;
}

const flashHtml = (f: Flash) =>
  html`${f.ok ? html`<p class="ok" role="status">${f.ok}</p>` : ''}${f.error ? html`<p class="error" role="alert">${f.error}</p>` : ''}`;

const NEEDS_PARTNERS = 'Changing partners needs the partners role on your support token.';

/** A submit button, disabled with its reason shown when the session lacks the partners role. */
function partnersButton(session: Session, label: string, id: string, extra = ''): Html {
  if (can(session, 'partners'))
    return html`<button type="submit" class="primary"${extra ? ` aria-label="${extra}"` : ''}>${label}</button>`;
  return html`<button type="submit" disabled aria-describedby="${id}">${label}</button>${disabledNote(id, NEEDS_PARTNERS)}`;
}

function partnerForm(session: Session, form: Record<string, string>, existing: boolean): Html {
  const id = existing ? 'edit-why' : 'save-why';
  return html`<form method="post" action="/console/partners" class="filters" id="${existing ? 'edit-partner' : 'add-partner'}">${csrfField(session)}
    ${
      existing
        ? html`<input type="hidden" name="code" value="${form.code ?? ''}">`
        : html`<label>Partner code <input name="code" required maxlength="32" value="${form.code ?? ''}"></label>`
    }
    <label>Name <input name="name" required maxlength="100" value="${form.name ?? ''}"></label>
    <label>Contact <input name="contact" required maxlength="200" value="${form.contact ?? ''}"></label>
    ${partnersButton(session, existing ? 'Save changes' : 'Save partner', id)}
  </form>`;
}

export function partnersPage(session: Session, partners: PartnerRecord[], flash: Flash, form: Record<string, string> = {}): string {
  const body = html`
  ${flashHtml(flash)}
  <p>Partner records for certification onboarding. Calling the API needs no allow-listing; test IPs only enable the certification checkout flow.</p>
  ${
    partners.length
      ? html`<div class="scroll"><table id="partners" class="cards"><thead><tr><th>Code</th><th>Name</th><th>Contact</th><th class="num">Test IPs</th>
    <th>Updated</th></tr></thead><tbody>${partners.map(
      (p) => html`<tr><td data-label="Code"><a href="/console/partners/${encodeURIComponent(p.code)}">${p.code}</a></td>
    ${
      isKeyOnly(p)
        ? html`<td colspan="4" data-label="Record"><span class="badge">keys only</span> no partner record yet</td></tr>`
        : html`<td data-label="Name">${p.name}</td><td data-label="Contact">${p.contact}</td>
    <td class="num" data-label="Test IPs">${p.testIps.length}</td><td data-label="Updated">${when(p.updatedAt)} by ${p.updatedBy}</td></tr>`
    }`,
    )}</tbody></table>
    </div>`
      : html`<p>No partners yet.</p>`
  }
  <h2>Add a partner</h2>
  ${partnerForm(session, form, false)}`;
  return page('Partners', body, session, '/console/partners');
}

export interface PartnerView {
  partner: PartnerRecord;
  keys: Omit<KeyRecord, 'keyHash'>[];
  activity: PartnerActivity | null;
  flash: Flash;
  /** The address typed into the add form (kept when refused). */
  cidr?: string;
  check?: { ip: string; answer?: CheckAnswer; error?: string };
  /** The quota form as sent, when refused. */
  quotaForm?: QuotaForm;
  /** PARTNER_QUOTA_DEFAULT (absent: the built-in default). */
  quotaDefault?: QuotaSetting;
}

function removeButton(session: Session, cidr: string): Html {
  return can(session, 'partners')
    ? html`<button type="submit" aria-label="Remove ${cidr}">Remove</button>`
    : html`<button type="submit" disabled title="${NEEDS_PARTNERS}">Remove</button>`;
}

function checkMessage(p: PartnerRecord, a: CheckAnswer): string {
  return a.enabled
    ? `${a.ip} is enabled for ${p.code} (entry ${a.match?.cidr}, by ${a.match?.addedBy}).`
    : `${a.ip} is not enabled for ${p.code}: the certification checkout refuses it.`;
}

const keyState = (revokedAt: string | null) =>
  revokedAt ? html`<span class="badge bad">revoked ${when(revokedAt)}</span>` : html`<span class="badge good">active</span>`;

/** When a key was last seen in the week's records (the page reads no further back). */
const lastSeen = (seen: Map<string, string> | undefined, id: string) =>
  seen ? (seen.has(id) ? when(seen.get(id)) : 'not in the last 7 days') : '–';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 16);

export function partnerPage(session: Session, v: PartnerView): string {
  const p = v.partner;
  const action = `/console/partners/${encodeURIComponent(p.code)}`;
  const keyRows = v.keys.map(
    (k) =>
      html`<tr id="key-${k.id}"><td class="mono" data-label="Key id">${k.id}</td><td data-label="Environment">${k.environment}</td>
        <td data-label="Created">${when(k.createdAt)}</td>
        <td data-label="Last presented">${lastSeen(v.activity?.lastPresented, k.id)}</td>
        <td data-label="Last used">${lastSeen(v.activity?.lastUsed, k.id)}</td>
        <td data-label="State">${keyState(k.revokedAt)}</td></tr>`,
  );
  const charts = v.activity
    ? [...v.activity.byEnvironment].map(([env, days]) =>
        weekChart(env, days, (d) =>
          searchHref({ partner: p.code, env, range: 'custom', from: day(d.start), to: day(d.start + 86_400_000 - 60_000) }),
        ),
      )
    : [];
  const check = v.check;
  const body = html`
  ${flashHtml(v.flash)}
  ${
    isKeyOnly(p)
      ? html`<p class="notice" id="key-only">${p.code} has keys but no partner record yet (its keys were issued with <code>npm run keys -- issue</code> only).
    Add its name and contact under Edit.</p>`
      : html`<dl class="meta"><dt>Name</dt><dd>${p.name}</dd><dt>Contact</dt><dd>${p.contact}</dd>
    <dt>Updated</dt><dd>${when(p.updatedAt)} by ${p.updatedBy}</dd></dl>`
  }
  <p><a href="${searchHref({ partner: p.code, range: '7d' })}">This partner's requests (last week)</a>
    · <a href="${searchHref({ partner: p.code, range: '7d', outcome: 'graphql-errors' })}">with GraphQL errors</a>
    · <a href="${searchHref({ partner: p.code, range: '7d', outcome: 'refused' })}">refused</a></p>
  <h2>Last 7 days</h2>
  ${charts.length ? html`<div class="charts" id="charts">${charts}</div>` : html`<p id="charts">No requests in the last 7 days.</p>`}
  ${v.activity?.capped ? html`<p class="n">From the newest ${v.activity.scanned} requests only.</p>` : ''}
  <h2>Keys</h2>
  ${
    v.keys.length
      ? html`<div class="scroll"><table id="keys" class="cards"><thead><tr><th>Key id</th><th>Environment</th><th>Created</th>
    <th title="sent with a request, refused ones included">Last presented</th>
    <th title="a request accepted with it">Last used</th><th>State</th>
    </tr></thead><tbody>${keyRows}</tbody></table>
    </div>`
      : html`<p id="keys">No keys issued (<code>npm run keys -- issue --env production --partner ${p.code}</code>).</p>`
  }
  ${quotaSection(session, p, v.activity, v.quotaForm, v.quotaDefault)}
  <h2>Certification test IPs</h2>
  ${
    p.testIps.length
      ? html`<div class="scroll"><table id="test-ips"><thead><tr><th>Address or range</th><th>Enabled by</th><th>When</th><th></th></tr>
    </thead><tbody>${p.testIps.map(
      (t) => html`<tr><td class="mono">${t.cidr}</td><td>${t.addedBy}</td><td>${t.addedAt}</td><td>
    <form method="post" action="${action}/ips/remove">${csrfField(session)}<input type="hidden" name="cidr" value="${t.cidr}">
      ${removeButton(session, t.cidr)}</form></td></tr>`,
    )}</tbody></table></div>`
      : html`<p>No test IPs enabled.</p>`
  }
  <form method="post" action="${action}/ips" class="filters">${csrfField(session)}
    <label>IP address or CIDR range
      <input name="cidr" required maxlength="64" size="28" spellcheck="false" value="${v.cidr ?? ''}" aria-describedby="cidr-hint"></label>
    ${partnersButton(session, 'Enable for certification checkout', 'ip-why')}
    <span class="n" id="cidr-hint">For example 203.0.113.7, 198.51.100.0/28 or 2001:db8::/64.</span>
  </form>
  <h2>Check an address</h2>
  <form method="get" action="${action}" class="filters" id="ip-check">
    <label>Does the certification checkout accept
      <input name="check" maxlength="64" size="28" spellcheck="false" value="${check?.ip ?? ''}" aria-describedby="check-hint"></label>
    <button type="submit">Check</button> <span class="n" id="check-hint">One address, for example 203.0.113.7.</span>
  </form>
  ${check?.error ? html`<p class="error" role="alert" id="check-result">${check.error}</p>` : ''}
  ${check?.answer ? html`<p class="${check.answer.enabled ? 'ok' : 'notice'}" role="status" id="check-result">${checkMessage(p, check.answer)}</p>` : ''}
  <h2>Edit</h2>
  ${partnerForm(session, { code: p.code, name: p.name, contact: p.contact }, true)}
  <p><a href="/console/partners">All partners</a></p>`;
  return page(`Partner ${p.code}`, body, session, '/console/partners');
}
