// The partner page's request quota: what applies per keyed environment (its own or the default),
// the refusals of the last 7 days from its replay records, the newest of them linked, and the form
// that sets a quota (the partners role; the same values `npm run partners -- quota` takes).
import type { PartnerRecord } from '../../stores/partners.js';
import { DEFAULT_QUOTA, KEYED_ENVIRONMENTS, describeQuota, quotaWithSource, type QuotaSetting } from '../../stores/partner-quota.js';
import type { Session } from './session.js';
import { can } from './session.js';
import { csrfField, disabledNote, html, select, type Html } from './html.js';
import { searchHref } from './pages.js';
import type { PartnerActivity } from './partner-activity.js';

const NEEDS_PARTNERS = 'Changing quotas needs the partners role on your support token.';

/** What the form sends back when refused, to correct rather than retype. */
export type QuotaForm = Partial<Record<'env' | 'mode' | 'rate' | 'burst', string>>;

/** `quotaDefault`: PARTNER_QUOTA_DEFAULT, what applies where the record sets no quota. */
export function quotaSection(
  session: Session,
  p: PartnerRecord,
  activity: PartnerActivity | null,
  form: QuotaForm = {},
  quotaDefault: QuotaSetting = DEFAULT_QUOTA,
): Html {
  const action = `/console/partners/${encodeURIComponent(p.code)}/quota`;
  const rows = KEYED_ENVIRONMENTS.map((env) => {
    const q = quotaWithSource(p.quotas, env, quotaDefault);
    const refused = activity?.refusals.byEnvironment.get(env) ?? 0;
    const href = searchHref({ partner: p.code, env, range: '7d', code: 'RATE_LIMITED' });
    const count = activity ? (refused ? html`<a href="${href}">${refused}</a>` : '0') : '–';
    const source = q.source === 'record' ? 'its partner record' : html`the default, <code>PARTNER_QUOTA_DEFAULT</code>`;
    return html`<tr><td data-label="Environment">${env}</td><td data-label="Quota">${describeQuota(q.quota)}</td>
      <td data-label="Set by">${source}</td><td class="num" data-label="Refused (7 days)">${count}</td></tr>`;
  });
  const newest = activity?.refusals.newest ?? [];
  const button = can(session, 'partners')
    ? html`<button type="submit" class="primary">Set quota</button>`
    : html`<button type="submit" disabled aria-describedby="quota-why">Set quota</button>${disabledNote('quota-why', NEEDS_PARTNERS)}`;
  return html`<h2>Request quota</h2>
  <div class="scroll"><table id="quota" class="cards"><thead><tr><th>Environment</th><th>Quota</th><th>Set by</th>
    <th class="num">Refused (7 days)</th></tr></thead>
  <tbody>${rows}</tbody></table></div>
  ${
    newest.length
      ? html`<p>Newest refusals:</p><ul id="quota-refusals">${newest.map(
          (r) =>
            html`<li>${r.time} ${r.environment} <code>${r.reason}</code>
              <a class="mono" href="/console/records/${encodeURIComponent(r.requestId)}">${r.requestId}</a></li>`,
        )}</ul>`
      : html`<p id="quota-refusals">No request refused by its quota in the last 7 days.</p>`
  }
  <form method="post" action="${action}" class="filters" id="quota-form">${csrfField(session)}
    ${select(
      'env',
      'Environment',
      KEYED_ENVIRONMENTS.map((e) => [e, e]),
      form.env ?? 'production',
    )}
    ${select(
      'mode',
      'Quota',
      [
        ['rate', 'requests a second and burst'],
        ['unlimited', 'unlimited'],
        ['default', `the default (${describeQuota(quotaDefault)})`],
      ],
      form.mode ?? 'rate',
    )}
    <label>Requests a second <input name="rate" inputmode="numeric" maxlength="6" value="${form.rate ?? ''}"></label>
    <label>Burst <input name="burst" inputmode="numeric" maxlength="6" value="${form.burst ?? ''}"></label>
    ${button}
  </form>`;
}
