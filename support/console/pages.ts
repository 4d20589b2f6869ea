// The console's search, record, audit and sign-in pages, rendered on the server from plain data
// (no I/O here). The diff page is in diff-page.ts, the partner pages in partner-pages.ts.
import { parse, print } from 'graphql';
import { bodyUnread, type ReplayRecord } from '../../stores/replay-store.js';
import { rootFieldsOf } from '../../stores/replay-facets.js';
import { OUTCOMES, isRerun, outcomeOf, type Outcome } from '../../stores/replay-match.js';
import { schemaPolicy } from '../../resolvers/schema-policy.js';
import type { Session } from './session.js';
import { can } from './session.js';
import { Html, copyButton, csrfField, disabledNote, html, jsonTree, page, partnerLink, select, when } from './html.js';
import { recordHref } from './record-choice.js';
import { incidentLink } from './incident.js';
import { allowanceHref, feedCallWhy, outcomeNote, rateLimitWhy, refusalWhy } from './record-why.js';
import { diffSection } from './diff-page.js';
import type { RerunResult } from './record-view.js';

export const PAGE_SIZE = 25;

export interface SearchParams {
  id: string;
  partner: string;
  env: string;
  status: string;
  cache: string;
  /** 1h, 1d, 7d, or custom (from/to). */
  range: string;
  from: string;
  to: string;
  outcome: string;
  code: string;
  ip: string;
  field: string;
  zip: string;
  /** '' (support reruns hidden), include or only. */
  reruns: string;
  /** A search slice's continuation (ReplayStore.search). */
  after: string;
  page: number;
}

/** Counts per outcome of the records the search looked at, and whether it stopped early. */
export interface SearchSummary {
  counts: Record<Outcome, number>;
  scanned: number;
  /** The search read its bound: older records were not looked at yet. */
  capped: boolean;
  /** Continues the search with older records. */
  next?: string | null;
  /** The newest time (ms) not yet searched. */
  searchedBack?: number;
}

export const RANGES: [string, string][] = [
  ['1h', 'Last hour'],
  ['1d', 'Last day'],
  ['7d', 'Last week'],
  ['custom', 'From – to'],
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
const OUTCOME_LABELS: Record<Outcome, string> = {
  ok: 'OK',
  'graphql-errors': 'GraphQL errors',
  refused: 'Refused (4xx)',
  'server-errors': 'Server errors (5xx)',
};
const OUTCOME_OPTIONS: [string, string][] = [['', 'Any'], ...OUTCOMES.map((o): [string, string] => [o, OUTCOME_LABELS[o]])];

/** Root field names of the record (written with it), else of its operation text. */
function rootFields(r: Pick<ReplayRecord, 'query' | 'facets'>): string[] {
  return r.facets?.rootFields.length ? r.facets.rootFields : rootFieldsOf(r.query);
}

const SEARCH_KEYS = [
  'partner',
  'env',
  'status',
  'cache',
  'range',
  'from',
  'to',
  'outcome',
  'code',
  'ip',
  'field',
  'zip',
  'reruns',
  'after',
] as const;

/** A search URL: the given filters (only those set) and page. */
export function searchHref(filters: Partial<Record<(typeof SEARCH_KEYS)[number], string>>, pageNo = 1): string {
  const q = new URLSearchParams();
  for (const k of SEARCH_KEYS) if (filters[k]) q.set(k, filters[k]);
  if (pageNo > 1) q.set('page', String(pageNo));
  return `/console/search?${q}`;
}

const shortTime = when;

/** Where a bounded search stopped, with the link that continues it. */
function searchedBack(p: SearchParams, summary: SearchSummary): Html {
  const back = summary.searchedBack ? ` (older than ${shortTime(new Date(summary.searchedBack).toISOString())} not yet)` : '';
  return html`<p class="n" id="searched-back">Counted over the requests searched so far${back}:
    <a href="${searchHref({ ...p, after: summary.next ?? '' })}" id="search-older">search older requests →</a></p>`;
}

const RERUNS: [string, string][] = [
  ['', 'hidden'],
  ['include', 'included'],
  ['only', 'only'],
];

/** Every support rerun is marked, wherever it is listed or shown. */
const rerunBadge = (r: ReplayRecord) =>
  isRerun(r) ? html` <span class="badge rerun" title="a support rerun, not partner traffic">support rerun</span>` : '';

/** How many of the folded filters are set (the fold opens when any is). */
const moreFiltersSet = (p: SearchParams) =>
  (['env', 'outcome', 'code', 'status', 'cache', 'ip', 'field', 'reruns'] as const).filter((k) => p[k] !== '').length;

function outcomeCell(r: ReplayRecord): Html {
  const o = outcomeOf(r.status, r.facets);
  const codes = r.facets?.codes ?? [];
  const codeText = codes.length ? html` <span class="mono">${codes.join(', ')}</span>` : '';
  return html`<span class="badge ${o === 'ok' ? 'good' : 'bad'}">${OUTCOME_LABELS[o]}</span>${codeText}`;
}

export function searchPage(
  session: Session,
  p: SearchParams,
  records: ReplayRecord[],
  hasMore: boolean,
  problems: string[],
  summary: SearchSummary | null = null,
): string {
  const rows = records.map(
    (r) => html`<tr>
    <td data-label="Request id"><a class="mono" href="${recordHref(r)}">${r.id}</a>${rerunBadge(r)}</td>
    <td data-label="Time (UTC)" class="mono">${shortTime(r.time)}</td><td data-label="Environment">${r.environment}</td>
      <td data-label="Partner">${partnerLink(r.partnerCode)}</td>
    <td data-label="Operation">${r.operationName ?? '–'} <span class="mono">${rootFields(r).join(', ')}</span>${
      bodyUnread(r) ? html` <span class="n">(not read: refused first)</span>` : ''
    }</td>
    <td data-label="Status" class="num">${r.status}</td><td data-label="Outcome">${outcomeCell(r)}</td><td data-label="Cache">${r.cache ?? '–'}</td>
    <td data-label="Duration" class="num">${r.durationMs} ms</td></tr>`,
  );
  const counts = summary
    ? html`<ul class="counts" id="outcome-counts" aria-label="Requests per outcome">${OUTCOMES.map(
        (o) =>
          html`<li><a href="${searchHref({ ...p, outcome: o })}"${new Html(p.outcome === o ? ' aria-current="true"' : '')}>
            ${OUTCOME_LABELS[o]}: <strong>${summary.counts[o]}</strong></a></li>`,
      )}</ul>${summary.capped ? searchedBack(p, summary) : ''}`
    : '';
  const body = html`
  <form class="filters" method="get" action="/console/search" role="search">
    <label>Request id <input name="id" value="${p.id}" size="38" autocomplete="off" spellcheck="false"></label>
    <label>Partner <input name="partner" value="${p.partner}" size="10" autocomplete="off"></label>
    <label>ZIP <input name="zip" value="${p.zip}" size="6" inputmode="numeric" autocomplete="off"></label>
    ${select('range', 'Time', RANGES, p.range)}
    <label class="half">From (UTC) <input name="from" value="${p.from}" size="17" maxlength="40" autocomplete="off" spellcheck="false"
      aria-describedby="time-hint"></label>
    <label class="half">To (UTC) <input name="to" value="${p.to}" size="17" maxlength="40" autocomplete="off" spellcheck="false"
      aria-describedby="time-hint"></label>
    <span class="n" id="time-hint">UTC, 24-hour, e.g. 2026-03-01 14:00 (a date alone: that whole day)</span>
    <details class="more-filters" id="more-filters"${new Html(moreFiltersSet(p) ? ' open' : '')}><summary>More filters${
      moreFiltersSet(p) ? ` (${moreFiltersSet(p)} set)` : ''
    }</summary><div class="filters">
    ${select('env', 'Environment', ENVS, p.env)} ${select('outcome', 'Outcome', OUTCOME_OPTIONS, p.outcome)}
    <label>Error code <input name="code" value="${p.code}" size="18" autocomplete="off" spellcheck="false" aria-describedby="code-hint"></label>
    ${select('status', 'Status', STATUSES, p.status)} ${select('cache', 'Cache', CACHES, p.cache)}
    <label>Client address <input name="ip" value="${p.ip}" size="16" autocomplete="off" spellcheck="false"></label>
    <label>Root field <input name="field" value="${p.field}" size="16" autocomplete="off" spellcheck="false" list="root-fields"></label>
    <datalist id="root-fields">${[...schemaPolicy.rootFields].map((f) => html`<option value="${f}"></option>`)}</datalist>
    ${select('reruns', 'Support reruns', RERUNS, p.reruns)}
    <span class="n" id="code-hint">Error code: an <code>extensions.code</code>, e.g. GRAPHQL_VALIDATION_FAILED.</span>
    </div></details>
    <button type="submit" class="primary">Search</button>
  </form>
  ${problems.map((m) => html`<p class="error" role="alert">${m}</p>`)}
  ${counts}
  <p class="n" aria-live="polite">${
    records.length
      ? `Showing ${(p.page - 1) * PAGE_SIZE + 1}–${(p.page - 1) * PAGE_SIZE + records.length}, newest first`
      : 'No requests match.'
  }</p>
  ${
    records.length
      ? html`<table id="results" class="cards"><thead><tr><th>Request id</th><th>Time (UTC)</th><th>Environment</th><th>Partner</th>
    <th>Operation</th><th class="num">Status</th><th>Outcome</th><th>Cache</th><th class="num">Duration</th></tr></thead><tbody>${rows}</tbody></table>`
      : ''
  }
  <div class="pager">${p.page > 1 ? html`<a href="${searchHref(p, p.page - 1)}" rel="prev">← Newer</a>` : ''}
    ${hasMore ? html`<a href="${searchHref(p, p.page + 1)}" rel="next">Older →</a>` : ''}</div>`;
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

/** The operation text a record keeps in full: as sent, or a short refused one whose digest holds all of it. */
function wholeText(r: ReplayRecord): string | null {
  if (r.query !== null) return r.query;
  const d = r.queryDigest;
  return d && Buffer.byteLength(d.head) === d.bytes ? d.head : null;
}

function queryView(r: ReplayRecord): Html {
  if (r.query !== null) {
    let text = r.query;
    try {
      text = print(parse(r.query));
    } catch {
      // shown as sent
    }
    return html`<pre id="query" aria-labelledby="query-h">${text}</pre>`;
  }
  const d = r.queryDigest;
  if (!d) return html`<pre id="query" aria-labelledby="query-h">(none: the request was answered before its body was read)</pre>`;
  const whole = wholeText(r) !== null;
  const kept = whole ? 'its text' : `the first ${d.head.length} characters of ${d.bytes} bytes`;
  return html`<p class="n" id="query-note">Not executed, so the record keeps ${kept} (SHA-256 ${d.sha256.slice(0, 16)}…).</p>
    <pre id="query" aria-labelledby="query-h">${d.head}${whole ? '' : '…'}</pre>`;
}

/** A shell-safe curl that repeats the request (null when its text was not kept); the key stays a placeholder. */
function curlCommand(r: ReplayRecord): string | null {
  const query = wholeText(r);
  if (query === null) return null;
  const body = JSON.stringify({
    query,
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

/** Whether the reader sees the record's personal data: shown, could show it (unmask role), or may not. */
type PersonalAccess = 'shown' | 'can-show' | 'no-role';

/** What to check when a root field finds nothing, by what the reader sees of the address. */
const FIELD_HINTS: Record<string, Record<PersonalAccess, string>> = {
  utilityAccounts: {
    shown: 'check the address and ZIP sent, shown in the query below, against the customer’s bill',
    'can-show': 'check the address and ZIP; Show personal data (above) to read the address',
    'no-role': 'check the address and ZIP; reading the address needs the unmask role',
  },
};

/** Root fields of an answer without errors that came back empty: nothing matched what was sent. */
function emptyAnswers(r: ReplayRecord, access: PersonalAccess): string[] {
  if (r.status !== 200) return [];
  try {
    const data = (JSON.parse(r.responseBody) as { data?: Record<string, unknown> | null }).data;
    return Object.entries(data ?? {})
      .filter(([, v]) => v === null || (Array.isArray(v) && v.length === 0))
      .map(([k, v]) => {
        const answered = v === null ? 'null' : 'an empty list';
        return `No match: ${k} answered ${answered}, so nothing matched the arguments sent (${FIELD_HINTS[k]?.[access] ?? 'see the query below'}).`;
      });
  } catch {
    return [];
  }
}

/** Why the request answered as it did, from what the record holds: a refused key, errors, failed feeds. */
function explain(r: ReplayRecord, access: PersonalAccess = 'no-role'): string[] {
  const why: string[] = [];
  const refusal = refusalWhy(r);
  if (refusal) why.push(refusal);
  try {
    const errors = (JSON.parse(r.responseBody) as { errors?: { message?: unknown; extensions?: { code?: unknown } }[] }).errors;
    for (const e of (Array.isArray(errors) ? errors : []).slice(0, 5))
      why.push(`${typeof e?.extensions?.code === 'string' ? e.extensions.code : 'Error'}: ${String(e?.message ?? '')}`);
  } catch {
    // not JSON: nothing to add
  }
  for (const c of r.upstreamCalls) if (c.error) why.push(feedCallWhy(c));
  if (why.length === 0) why.push(...emptyAnswers(r, access));
  const limited = rateLimitWhy(r);
  if (limited) why.push(limited);
  return why;
}

interface RecordView {
  record: ReplayRecord;
  masked: boolean;
  /** The gateway can open this record's personal data (it holds the key that sealed it). */
  canOpen: boolean;
  unmasked: boolean;
  /** The record touches personal data (by type, or untyped): rerunning it needs the unmask role. */
  personal: boolean;
  /** Bytes of the answer as sent (a masked view is shorter or longer). */
  responseBytes: number;
  message?: string;
  /** TRACE_URL_TEMPLATE (with `{traceId}`): a traced record's trace id links to the trace UI. */
  traceUrlTemplate?: string | null;
  /** The ticket typed for this record earlier in the session: the forms send it again. */
  ticket?: string;
  /** The last rerun of this record in the session, shown at the top. */
  rerun?: RerunResult;
}

/** The ticket field of an action on personal data, filled with the ticket already typed for the record. */
function ticketField(label: string, ticket: string | undefined): Html {
  return html`<label>${label} <input name="reason" required maxlength="80" autocomplete="off" value="${ticket ?? ''}"${new Html(
    ticket ? ' aria-describedby="ticket-kept"' : '',
  )}></label>`;
}

function rerunControl(session: Session, v: RecordView): Html {
  const r = v.record;
  const personal = v.personal;
  let why: string | null = null;
  if (r.query === null) why = 'Rerun is not possible: this request was not executed (refused or invalid), so its operation was not kept.';
  else if (personal && !v.canOpen)
    why = 'Rerun is not possible: the personal data this operation was sent with was not stored, or not with this gateway’s key.';
  else if (personal && !can(session, 'unmask')) why = 'Rerun needs the unmask role: this operation was sent with personal data.';
  const disabled = new Html(why ? 'disabled aria-describedby="rerun-why"' : '');
  const button = html`<button type="submit" class="primary" ${disabled}>Rerun against today's feeds and compare</button>`;
  return html`<form method="post" action="${recordHref(r, 'rerun')}" class="actions" id="rerun-form">${csrfField(session)}${
    personal && !why ? ticketField('Ticket id for the rerun', v.ticket) : ''
  }${button}</form>${why ? disabledNote('rerun-why', why) : ''}`;
}

function unmaskControl(session: Session, v: RecordView): Html {
  if (!v.canOpen)
    return html`<p>The personal data of this record cannot be opened on this gateway (not stored, or sealed with another REPLAY_PII_KEY).</p>`;
  if (!can(session, 'unmask'))
    return html`<p><button type="button" disabled aria-describedby="unmask-why">Show personal data</button>
      </p>${disabledNote('unmask-why', 'Showing personal data needs the unmask role on your support token.')}`;
  return html`<form method="post" action="${recordHref(v.record, 'unmask')}" class="actions" id="unmask-form">${csrfField(session)}
    ${ticketField('Reason (ticket id)', v.ticket)}
    <button type="submit">Show personal data (logged)</button></form>`;
}

/** The trace id, linked to the operators' trace UI when TRACE_URL_TEMPLATE is set. */
function traceLink(traceId: string, template: string | null | undefined): Html | string {
  if (!template) return traceId;
  return html`<a href="${template.replaceAll('{traceId}', encodeURIComponent(traceId))}" rel="noopener noreferrer">${traceId}</a>`;
}

/** The top of a record page: messages, the personal data notice, the actions, the ticket kept and the last rerun. */
function recordTop(session: Session, v: RecordView): Html {
  return html`${v.message ? html`<p class="error" role="alert">${v.message}</p>` : ''}
  ${
    v.masked
      ? html`<div class="notice" id="masked">
    <p>Personal data in this record (the address and the account data) is masked.</p>${unmaskControl(session, v)}</div>`
      : ''
  }
  ${v.unmasked ? html`<p class="notice" id="unmasked">Personal data shown in clear. This view was written to the audit log.</p>` : ''}
  <div class="actions">${rerunControl(session, v)}<a href="/console/search">Back to search</a></div>
  ${
    v.ticket
      ? html`<p class="n" id="ticket-kept">Ticket <span class="mono">${v.ticket}</span> typed for this record:
    each action sends it again (and is logged with it).</p>`
      : ''
  }
  ${v.rerun ? diffSection(v.rerun) : ''}`;
}

export function recordPage(session: Session, v: RecordView): string {
  const r = v.record;
  const parsed = prettyJson(r.responseBody);
  const stale = staleFeeds(r.responseBody);
  const longest = Math.max(1, ...r.upstreamCalls.map((c) => c.durationMs));
  const headers = Object.entries(r.responseHeaders);
  const why = explain(r, v.unmasked ? 'shown' : v.canOpen && can(session, 'unmask') ? 'can-show' : 'no-role');
  const curl = curlCommand(r);
  const rerunOf = typeof r.notes?.rerunOf === 'string' ? r.notes.rerunOf : null;
  const body = html`
  ${recordTop(session, v)}
  ${why.length ? html`<div class="error" id="why"><strong>Why this answer</strong><ul>${why.map((w) => html`<li>${w}</li>`)}</ul></div>` : ''}
  ${rerunOf ? html`<p class="notice">A console rerun of <a class="mono" href="${recordHref({ ...r, id: rerunOf, time: undefined })}">${rerunOf}</a>.</p>` : ''}
  <dl class="meta" id="meta">
    <dt>Request id</dt><dd class="mono">${r.id}${rerunBadge(r)}</dd><dt>Time (UTC)</dt><dd>${when(r.time)}</dd><dt>Environment</dt><dd>${r.environment}</dd>
    <dt>Partner</dt><dd>${partnerLink(r.partnerCode)}</dd><dt>Client IP</dt><dd class="mono">${r.clientIp}${
      r.status === 429 ? html` · <a id="allowance-link" href="${allowanceHref(r.clientIp)}">its playground allowance</a>` : ''
    }</dd>
    <dt>Operation</dt><dd>${r.operationName ?? '–'} <span class="mono">(${rootFields(r).join(', ') || 'no fields'})</span></dd>
    <dt>Status</dt><dd>${r.status} · ${outcomeCell(r)}${outcomeNote(r)}</dd><dt>Cache</dt><dd>${r.cache ?? '–'}${r.fromCache ? ' (served from cache)' : ''}</dd>
      <dt>Duration</dt><dd>${r.durationMs} ms</dd>
    ${r.traceId ? html`<dt>Trace</dt><dd class="mono" id="trace">${traceLink(r.traceId, v.traceUrlTemplate)}</dd>` : ''}
  </dl>
  <h2 id="query-h">Query</h2>${queryView(r)}
  <h2 id="vars-h">Variables</h2><pre id="variables" aria-labelledby="vars-h">${r.variables ? JSON.stringify(r.variables, null, 2) : '(none)'}</pre>${
    v.masked && r.variables ? html`<p class="n" id="vars-masked">Variable values are not shown: this record touches personal data.</p>` : ''
  }
  <h2>Response <span class="n" id="response-size">(${v.responseBytes} bytes as sent${v.masked ? '; shown masked' : ', exactly as sent'})</span></h2>
  ${parsed ? html`<div class="tree" id="response-tree">${parsed.tree}</div>` : ''}
  ${
    v.masked
      ? html`<p class="n" id="raw-withheld">No raw response: this record touches personal data, so only the masked tree above is shown.</p>`
      : html`<details id="raw"><summary>Raw response</summary><pre id="raw-response">${r.responseBody}</pre></details>
  <div class="actions">${copyButton('raw-response', 'Copy raw response')}</div>`
  }
  <h2>Headers sent</h2>
  ${
    headers.length
      ? html`<table id="headers"><tbody>${headers.map(
          ([k, val]) => html`<tr><th class="mono">${k}</th><td class="mono">${val}</td>
    </tr>`,
        )}</tbody></table>`
      : html`<p>None recorded.</p>`
  }
  <h2>Upstream calls</h2>
  ${
    r.upstreamCalls.length
      ? html`<ol class="timeline" id="upstream">${r.upstreamCalls.map(
          (c) => html`<li${c.error ? new Html(' class="failed"') : ''}>
    <progress max="${longest}" value="${c.durationMs}" aria-hidden="true"${c.error ? new Html(' class="failed"') : ''}>
    </progress> <strong>${c.feed}</strong> · ${c.status ?? 'no answer'} · ${c.durationMs} ms
      ${c.error ? html` · <span class="badge bad">${c.error}</span> · ${incidentLink(r, c)}` : ''}
      ${stale.has(c.feed) ? html` · <span class="badge bad">stale copy served</span>` : ''}
      <span class="mono n">${c.url}</span></li>`,
        )}</ol>`
      : html`<p>No upstream calls (answered from cache, or never executed: refused or invalid).</p>`
  }
  <h2>Copy as curl</h2>
  ${
    curl
      ? html`<pre id="curl">${curl}</pre><div class="actions">${copyButton('curl', 'Copy curl')}</div>`
      : html`<p id="curl-none">No curl: ${
          r.queryDigest
            ? 'the request was not executed and only the start of its text was kept'
            : 'the request was answered before its body was read'
        }, so it cannot be repeated as sent.</p>`
  }`;
  return page(`Request ${r.id}`, body, session, '');
}

/** The sign-in page; `next` is the console page to return to, `message` an error or (ok) a notice. */
export function signInPage(pre: string, message: string | null, next = '', ok = false): string {
  const body = html`
  ${message ? html`<p class="${ok ? 'ok' : 'error'}" role="${ok ? 'status' : 'alert'}">${message}</p>` : ''}
  <form method="post" action="/console/sign-in" class="filters">
    <input type="hidden" name="_csrf" value="${pre}">${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
    <label>Personal support token <input type="password" name="token" autocomplete="off" required autofocus size="60" spellcheck="false"></label>
    <button type="submit" class="primary">Sign in</button>
  </form>
  <p>Tokens are issued by an operator: <code>npm run keys -- issue --env support --partner YOURNAME</code>.</p>`;
  return page('Sign in', body, null);
}

export function messagePage(session: Session | null, title: string, message: string): string {
  return page(title, html`<p class="error" role="alert">${message}</p><p><a href="/console/search">Back to search</a></p>`, session);
}
