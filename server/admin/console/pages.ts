// The console's pages, rendered on the server from plain data (no I/O here).
import { Kind, parse, print } from 'graphql';
import { diffLines } from 'diff';
import type { ReplayRecord } from '../../stores/replay-store.js';
import type { ResponseDiff, ValueChange } from '../../stores/replay-diff.js';
import type { AuditEntry } from '../../stores/audit-log.js';
import type { PartnerRecord } from '../../keys/partners.js';
import type { RerunAnswer } from '../rerun.js';
import type { Session } from './session.js';
import { Html, copyButton, csrfField, html, jsonTree, page, select } from './html.js';

export const PAGE_SIZE = 25;

export interface SearchParams {
  id: string;
  partner: string;
  env: string;
  status: string;
  cache: string;
  range: string;
  page: number;
}

export const RANGES: [string, string][] = [
  ['1h', 'Last hour'],
  ['1d', 'Last day'],
  ['7d', 'Last week'],
];
const ENVS: [string, string][] = [
  ['', 'Any'],
  ['production', 'production'],
  ['certification', 'certification'],
  ['playground', 'playground'],
];
const STATUSES: [string, string][] = [
  ['', 'Any'],
  ['2xx', '2xx'],
  ['4xx', '4xx'],
  ['429', '429'],
  ['5xx', '5xx'],
];
const CACHES: [string, string][] = [
  ['', 'Any'],
  ['HIT', 'HIT'],
  ['MISS', 'MISS'],
  ['BYPASS', 'BYPASS'],
  ['STALE', 'STALE'],
];

/** Root field names of the operation (for the results table), or [] when it does not parse. */
export function rootFields(query: string | null): string[] {
  if (!query) return [];
  try {
    return parse(query, { noLocation: true }).definitions.flatMap((d) =>
      d.kind === Kind.OPERATION_DEFINITION ? d.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : [])) : [],
    );
  } catch {
    return [];
  }
}

function searchLink(p: SearchParams, pageNo: number): string {
  const q = new URLSearchParams();
  for (const k of ['partner', 'env', 'status', 'cache', 'range'] as const) if (p[k]) q.set(k, p[k]);
  q.set('page', String(pageNo));
  return `/console/search?${q}`;
}

export function searchPage(session: Session, p: SearchParams, records: ReplayRecord[], hasMore: boolean, problems: string[]): string {
  const rows = records.map(
    (r) => html`<tr>
    <td class="mono">${r.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</td><td>${r.environment}</td><td>${r.partnerCode ?? '–'}</td>
    <td>${r.operationName ?? '–'}</td><td class="mono">${rootFields(r.query).join(', ') || '–'}</td>
    <td class="num">${r.status}</td><td>${r.cache ?? '–'}</td><td class="num">${r.durationMs} ms</td>
    <td><a class="mono" href="/console/records/${encodeURIComponent(r.id)}">${r.id}</a></td></tr>`,
  );
  const body = html`
  <form class="filters" method="get" action="/console/search" role="search">
    <label>Request id <input name="id" value="${p.id}" size="38" autocomplete="off" spellcheck="false"></label>
    <label>Partner <input name="partner" value="${p.partner}" size="10" autocomplete="off"></label>
    ${select('env', 'Environment', ENVS, p.env)} ${select('status', 'Status', STATUSES, p.status)}
    ${select('cache', 'Cache', CACHES, p.cache)} ${select('range', 'Time', RANGES, p.range)}
    <button type="submit" class="primary">Search</button>
  </form>
  ${problems.map((m) => html`<p class="error" role="alert">${m}</p>`)}
  <p class="n" aria-live="polite">${records.length ? `Showing ${(p.page - 1) * PAGE_SIZE + 1}–${(p.page - 1) * PAGE_SIZE + records.length}, newest first` : 'No requests match.'}</p>
  ${records.length ? html`<table id="results"><thead><tr><th>Time (UTC)</th><th>Environment</th><th>Partner</th><th>Operation</th><th>Root fields</th><th class="num">Status</th><th>Cache</th><th class="num">Duration</th><th>Request id</th></tr></thead><tbody>${rows}</tbody></table>` : ''}
  <div class="pager">${p.page > 1 ? html`<a href="${searchLink(p, p.page - 1)}" rel="prev">← Newer</a>` : ''}${hasMore ? html`<a href="${searchLink(p, p.page + 1)}" rel="next">Older →</a>` : ''}</div>`;
  return page('Search requests', body, session, '/console/search');
}

function prettyJson(text: string): { tree: Html; pretty: string } | null {
  try {
    const value = JSON.parse(text);
    return { tree: jsonTree(value), pretty: JSON.stringify(value, null, 2) };
  } catch {
    return null;
  }
}

function formatQuery(query: string | null): string {
  if (!query) return '(no operation: the request was answered before its body was read)';
  try {
    return print(parse(query));
  } catch {
    return query;
  }
}

/** A shell-safe curl that repeats the request; the key stays a placeholder. */
export function curlCommand(r: ReplayRecord): string {
  const body = JSON.stringify({
    query: r.query,
    ...(r.variables ? { variables: r.variables } : {}),
    ...(r.operationName ? { operationName: r.operationName } : {}),
  });
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const host =
    r.environment === 'production' ? '{base_url}' : r.environment === 'certification' ? '{certification_url}' : '{playground_url}';
  const key = r.environment === 'playground' ? '' : ` \\\n  -H 'x-api-key: <API_KEY>'`;
  return `curl -sS -X POST ${quote(`${host}/graphql`)} \\\n  -H 'content-type: application/json'${key} \\\n  --data ${quote(body)}`;
}

function staleFeeds(body: string): Set<string> {
  try {
    const stale = (JSON.parse(body) as { extensions?: { stale?: { feed?: string }[] } }).extensions?.stale;
    return new Set((stale ?? []).map((s) => String(s.feed)));
  } catch {
    return new Set();
  }
}

export interface RecordView {
  record: ReplayRecord;
  masked: boolean;
  unmaskAvailable: boolean;
  unmasked: boolean;
  message?: string;
  /** TRACE_URL_TEMPLATE (with `{traceId}`): a traced record's trace id links to the trace UI. */
  traceUrlTemplate?: string | null;
}

export function recordPage(session: Session, v: RecordView): string {
  const r = v.record;
  const parsed = prettyJson(r.responseBody);
  const stale = staleFeeds(r.responseBody);
  const longest = Math.max(1, ...r.upstreamCalls.map((c) => c.durationMs));
  const headers = Object.entries(r.responseHeaders);
  const body = html`
  ${v.message ? html`<p class="error" role="alert">${v.message}</p>` : ''}
  ${
    v.masked
      ? html`<div class="notice"><p>Personal data in this record is masked.</p>${
          v.unmaskAvailable
            ? html`<form method="post" action="/console/records/${encodeURIComponent(r.id)}/unmask" class="actions">${csrfField(session)}<label>Support key for personal data <input type="password" name="key" autocomplete="off" required></label><button type="submit">Unmask (logged)</button></form>`
            : html`<p>Unmasking is not configured on this gateway (REPLAY_PII_KEY).</p>`
        }</div>`
      : ''
  }
  ${v.unmasked ? html`<p class="notice">Personal data shown in clear. This view was written to the audit log.</p>` : ''}
  <div class="actions">
    <form method="post" action="/console/records/${encodeURIComponent(r.id)}/rerun">${csrfField(session)}<button type="submit" class="primary" ${new Html(r.query ? '' : 'disabled')}>Rerun against today's feeds and compare</button></form>
    <a href="/console/search">Back to search</a>
  </div>
  <dl class="meta" id="meta">
    <dt>Request id</dt><dd class="mono">${r.id}</dd><dt>Time</dt><dd>${r.time}</dd><dt>Environment</dt><dd>${r.environment}</dd>
    <dt>Partner</dt><dd>${r.partnerCode ?? '–'}</dd><dt>Client IP</dt><dd class="mono">${r.clientIp}</dd>
    <dt>Operation</dt><dd>${r.operationName ?? '–'} <span class="mono">(${rootFields(r.query).join(', ') || 'no fields'})</span></dd>
    <dt>Status</dt><dd>${r.status}</dd><dt>Cache</dt><dd>${r.cache ?? '–'}${r.fromCache ? ' (served from cache)' : ''}</dd><dt>Duration</dt><dd>${r.durationMs} ms</dd>
    ${r.traceId ? html`<dt>Trace</dt><dd class="mono" id="trace">${traceLink(r.traceId, v.traceUrlTemplate)}</dd>` : ''}
  </dl>
  <h2 id="query-h">Query</h2><pre id="query" aria-labelledby="query-h">${formatQuery(r.query)}</pre>
  <h2 id="vars-h">Variables</h2><pre id="variables" aria-labelledby="vars-h">${r.variables ? JSON.stringify(r.variables, null, 2) : '(none)'}</pre>
  <h2>Response <span class="n">(${Buffer.byteLength(r.responseBody)} bytes, exactly as sent${v.masked ? ', masked' : ''})</span></h2>
  ${parsed ? html`<div class="tree" id="response-tree">${parsed.tree}</div>` : ''}
  <details id="raw"><summary>Raw response</summary><pre id="raw-response">${r.responseBody}</pre></details>
  <div class="actions">${copyButton('raw-response', 'Copy raw response')}</div>
  <h2>Headers sent</h2>
  ${headers.length ? html`<table id="headers"><tbody>${headers.map(([k, val]) => html`<tr><th class="mono">${k}</th><td class="mono">${val}</td></tr>`)}</tbody></table>` : html`<p>None recorded.</p>`}
  <h2>Upstream calls</h2>
  ${r.upstreamCalls.length ? html`<ol class="timeline" id="upstream">${r.upstreamCalls.map((c) => html`<li><progress max="${longest}" value="${c.durationMs}" aria-hidden="true"></progress> <strong>${c.feed}</strong> · ${c.status ?? 'no answer'} · ${c.durationMs} ms${c.error ? html` · <span class="badge bad">${c.error}</span>` : ''}${stale.has(c.feed) ? html` · <span class="badge bad">stale copy served</span>` : ''} <span class="mono n">${c.url}</span></li>`)}</ol>` : html`<p>No upstream calls (answered from cache or refused before execution).</p>`}
  <h2>Copy as curl</h2><pre id="curl">${curlCommand(r)}</pre>
  <div class="actions">${copyButton('curl', 'Copy curl')}</div>`;
  return page(`Request ${r.id}`, body, session, '');
}

/** The trace id, linked to the operators' trace UI when TRACE_URL_TEMPLATE is set. */
function traceLink(traceId: string, template: string | null | undefined): Html | string {
  if (!template) return traceId;
  return html`<a href="${template.replaceAll('{traceId}', encodeURIComponent(traceId))}" rel="noopener noreferrer">${traceId}</a>`;
}

/** Money, rate and tier paths are what support looks for first in a diff. */
const PRICE = /usd|rate|price|tier|bill|charge|credit|cents/i;

function change(c: ValueChange): Html {
  const show = (v: unknown) => (v === undefined ? '∅' : JSON.stringify(v));
  return html`<li class="${PRICE.test(c.path) ? 'price' : ''}"><span class="mono">${c.path}</span>: ${c.kind === 'changed' ? html`<del>${show(c.old)}</del> → <ins>${show(c.new)}</ins>` : c.kind === 'added' ? html`added <ins>${show(c.new)}</ins>` : html`removed <del>${show(c.old)}</del>`}</li>`;
}

function sideBySide(oldText: string, newText: string): Html {
  const rows: Html[] = [];
  const parts = diffLines(oldText, newText);
  const lines = (s: string) => s.replace(/\n$/, '').split('\n');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (!p.added && !p.removed) {
      for (const l of lines(p.value)) rows.push(html`<tr><td>${l}</td><td>${l}</td></tr>`);
      continue;
    }
    const removed = p.removed ? lines(p.value) : [];
    const next = parts[i + 1];
    const added = p.added ? lines(p.value) : next?.added ? lines(next.value) : [];
    if (p.removed && next?.added) i++;
    for (let j = 0; j < Math.max(removed.length, added.length); j++) {
      rows.push(
        html`<tr class="chg"><td class="${removed[j] !== undefined ? 'old' : ''}">${removed[j] ?? ''}</td><td class="${added[j] !== undefined ? 'new' : ''}">${added[j] ?? ''}</td></tr>`,
      );
    }
  }
  return html`<table class="diff" id="side-by-side"><thead><tr><th>Recorded answer</th><th>Rerun now</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function diffPage(session: Session, record: ReplayRecord, answer: RerunAnswer, diff: ResponseDiff): string {
  const pretty = (t: string) => prettyJson(t)?.pretty ?? t;
  const listChanges = diff.lists.flatMap((l) => [
    ...l.added.map((a) => html`<li>${l.path}: added <strong>${a.title ?? a.id}</strong></li>`),
    ...l.removed.map((a) => html`<li>${l.path}: removed <strong>${a.title ?? a.id}</strong></li>`),
    ...l.changed.map((c) => html`<li>${l.path} <strong>${c.title ?? c.id}</strong><ul>${c.changes.map(change)}</ul></li>`),
    ...(l.orderChanged ? [html`<li>${l.path}: order changed</li>`] : []),
  ]);
  const body = html`
  <p class="mono">Recorded ${record.time} (status ${record.status}) · rerun now as ${answer.requestId} (status ${answer.status})</p>
  ${
    diff.identical
      ? html`<p class="ok" id="verdict" role="status"><strong>identical</strong>: today's feeds give the same answer.</p>`
      : html`<div class="error" id="verdict" role="status"><strong>different</strong>: ${diff.changes.length + diff.lists.reduce((n, l) => n + l.added.length + l.removed.length + l.changed.length, 0)} change(s)${diff.status.old !== diff.status.new ? ` · status ${diff.status.old} → ${diff.status.new}` : ''}</div>
      <h2>What changed</h2><ul class="changes" id="changes">${listChanges}${diff.changes.map(change)}</ul>`
  }
  <div class="actions"><a href="/console/records/${encodeURIComponent(record.id)}">Back to the record</a></div>
  <h2>Side by side</h2>${sideBySide(pretty(record.responseBody), pretty(answer.body))}`;
  return page(`Rerun of ${record.id}`, body, session, '');
}

export function auditPage(
  session: Session,
  entries: AuditEntry[],
  filters: { actor: string; action: string; page: number },
  hasMore: boolean,
): string {
  const link = (n: number) =>
    `/console/audit?${new URLSearchParams({ ...(filters.actor ? { actor: filters.actor } : {}), ...(filters.action ? { action: filters.action } : {}), page: String(n) })}`;
  const body = html`
  <form class="filters" method="get" action="/console/audit">
    <label>Who <input name="actor" value="${filters.actor}" placeholder="support:ALICE"></label>
    <label>Action <input name="action" value="${filters.action}" placeholder="record.view"></label>
    <button type="submit" class="primary">Filter</button>
  </form>
  ${entries.length ? html`<table id="audit"><thead><tr><th>Time (UTC)</th><th>Who</th><th>What</th><th>Target</th><th>From</th><th>Details</th></tr></thead><tbody>${entries.map((e) => html`<tr><td class="mono">${e.time}</td><td>${e.actor}</td><td>${e.action}</td><td class="mono">${e.target ?? '–'}</td><td class="mono">${e.from}</td><td class="mono">${e.details ? JSON.stringify(e.details) : ''}</td></tr>`)}</tbody></table>` : html`<p>No entries.</p>`}
  <div class="pager">${filters.page > 1 ? html`<a href="${link(filters.page - 1)}">← Newer</a>` : ''}${hasMore ? html`<a href="${link(filters.page + 1)}">Older →</a>` : ''}</div>`;
  return page('Audit log', body, session, '/console/audit');
}

export function partnersPage(
  session: Session,
  partners: PartnerRecord[],
  flash: { ok?: string; error?: string },
  form: Record<string, string> = {},
): string {
  const body = html`
  ${flash.ok ? html`<p class="ok" role="status">${flash.ok}</p>` : ''}${flash.error ? html`<p class="error" role="alert">${flash.error}</p>` : ''}
  <p>Partner records for certification onboarding. Calling the API needs no allow-listing; test IPs only enable the certification checkout flow.</p>
  ${partners.length ? html`<table id="partners"><thead><tr><th>Code</th><th>Name</th><th>Contact</th><th class="num">Test IPs</th><th>Updated</th></tr></thead><tbody>${partners.map((p) => html`<tr><td><a href="/console/partners/${encodeURIComponent(p.code)}">${p.code}</a></td><td>${p.name}</td><td>${p.contact}</td><td class="num">${p.testIps.length}</td><td>${p.updatedAt} by ${p.updatedBy}</td></tr>`)}</tbody></table>` : html`<p>No partners yet.</p>`}
  <h2>Add or update a partner</h2>
  <form method="post" action="/console/partners" class="filters">${csrfField(session)}
    <label>Partner code <input name="code" required maxlength="32" value="${form.code ?? ''}"></label>
    <label>Name <input name="name" required maxlength="100" value="${form.name ?? ''}"></label>
    <label>Contact <input name="contact" required maxlength="200" value="${form.contact ?? ''}"></label>
    <button type="submit" class="primary">Save partner</button>
  </form>`;
  return page('Partners', body, session, '/console/partners');
}

export function partnerPage(session: Session, p: PartnerRecord, flash: { ok?: string; error?: string }): string {
  const action = `/console/partners/${encodeURIComponent(p.code)}`;
  const body = html`
  ${flash.ok ? html`<p class="ok" role="status">${flash.ok}</p>` : ''}${flash.error ? html`<p class="error" role="alert">${flash.error}</p>` : ''}
  <dl class="meta"><dt>Name</dt><dd>${p.name}</dd><dt>Contact</dt><dd>${p.contact}</dd><dt>Updated</dt><dd>${p.updatedAt} by ${p.updatedBy}</dd></dl>
  <h2>Certification test IPs</h2>
  ${p.testIps.length ? html`<table id="test-ips"><thead><tr><th>Address or range</th><th>Enabled by</th><th>When</th><th></th></tr></thead><tbody>${p.testIps.map((t) => html`<tr><td class="mono">${t.cidr}</td><td>${t.addedBy}</td><td>${t.addedAt}</td><td><form method="post" action="${action}/ips/remove">${csrfField(session)}<input type="hidden" name="cidr" value="${t.cidr}"><button type="submit" aria-label="Remove ${t.cidr}">Remove</button></form></td></tr>`)}</tbody></table>` : html`<p>No test IPs enabled.</p>`}
  <form method="post" action="${action}/ips" class="filters">${csrfField(session)}
    <label>IP address or CIDR range <input name="cidr" required maxlength="64" placeholder="203.0.113.7 or 2001:db8::/64" spellcheck="false"></label>
    <button type="submit" class="primary">Enable for certification checkout</button>
  </form>
  <p><a href="/console/partners">All partners</a></p>`;
  return page(`Partner ${p.code}`, body, session, '/console/partners');
}

export function signInPage(pre: string, message: string | null): string {
  const body = html`
  ${message ? html`<p class="error" role="alert">${message}</p>` : ''}
  <form method="post" action="/console/sign-in" class="filters">
    <input type="hidden" name="_csrf" value="${pre}">
    <label>Personal support token <input type="password" name="token" autocomplete="off" required autofocus size="60" spellcheck="false"></label>
    <button type="submit" class="primary">Sign in</button>
  </form>
  <p>Tokens are issued by an operator: <code>npm run keys -- issue --env support --partner YOURNAME</code>.</p>`;
  return page('Sign in', body, null);
}

export function messagePage(session: Session | null, title: string, message: string): string {
  return page(title, html`<p class="error" role="alert">${message}</p><p><a href="/console/search">Back to search</a></p>`, session);
}
