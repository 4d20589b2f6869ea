// A feed incident: from a record whose feed call failed, the other requests that failed on the
// same feed with the same kind of error in a window around it (count, partners affected, first
// and last). One bounded slice of the replay search, as the search page reads.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReplayRecord, ReplayUpstreamCall } from '../../stores/replay-store.js';
import { feedErrorKind } from '../../stores/replay-match.js';
import type { Session } from './session.js';
import { html, page, partnerLink, when } from './html.js';
import { recordHref } from './record-choice.js';
import { HttpError, send, text, type ConsoleContext } from './console-http.js';

/** Minutes either side of the record's time. */
const INCIDENT_WINDOW_MIN = 30;
/** The incident reads at most this many matches... */
const INCIDENT_LIMIT = 1000;
/** ...from at most this many chunks of the store. */
const INCIDENT_UNITS = 64;
/** Rows listed (the counts cover every match read). */
const SHOWN = 50;

const FEED = /^[A-Za-z0-9][A-Za-z0-9 _.:-]{0,63}$/;

/** The link from a failed feed call to its incident. */
function incidentHref(r: Pick<ReplayRecord, 'time'>, c: ReplayUpstreamCall): string {
  return `/console/incident?${new URLSearchParams({ feed: c.feed, error: feedErrorKind(c.error ?? ''), at: r.time })}`;
}

export const incidentLink = (r: Pick<ReplayRecord, 'time'>, c: ReplayUpstreamCall) =>
  html`<a class="incident" href="${incidentHref(r, c)}">other requests failing on ${c.feed} so</a>`;

function incidentPage(s: Session, feed: string, kind: string, at: number, records: ReplayRecord[], capped: boolean): string {
  const partners = [...new Set(records.map((r) => r.partnerCode).filter((p): p is string => p !== null))].sort();
  const times = records.map((r) => r.time).sort();
  const body = html`
  <p>Requests whose call to feed <strong>${feed}</strong> failed with <span class="mono">${kind.replace(/\bN\b/g, '…')}</span> (the figures may differ),
    from ${when(at - INCIDENT_WINDOW_MIN * 60_000)} to ${when(at + INCIDENT_WINDOW_MIN * 60_000)}.
    A feed failure answers 200 with errors: these are under <em>GraphQL errors</em>, not <em>Server errors</em>.</p>
  <dl class="meta" id="incident-summary"><dt>Requests</dt><dd id="incident-count">${records.length}${capped ? ' or more' : ''}</dd>
    <dt>Partners affected</dt><dd id="incident-partners">${partners.length ? partners.map((p, i) => html`${i ? ', ' : ''}${partnerLink(p)}`) : '–'}</dd>
    <dt>First</dt><dd>${when(times[0])}</dd><dt>Last</dt><dd>${when(times.at(-1))}</dd></dl>
  ${
    records.length
      ? html`<table id="incident" class="cards"><thead><tr><th>Request id</th><th>Time (UTC)</th><th>Environment</th><th>Partner</th></tr></thead>
    <tbody>${records.slice(0, SHOWN).map(
      (r) => html`<tr><td data-label="Request id"><a class="mono" href="${recordHref(r)}">${r.id}</a></td>
      <td data-label="Time (UTC)" class="mono">${when(r.time)}</td><td data-label="Environment">${r.environment}</td>
      <td data-label="Partner">${partnerLink(r.partnerCode)}</td></tr>`,
    )}</tbody></table>
    ${records.length > SHOWN ? html`<p class="n">The newest ${SHOWN} of ${records.length} listed.</p>` : ''}`
      : html`<p>No request failed so in that window.</p>`
  }`;
  return page(`Feed incident: ${feed}`, body, s, '/console/search');
}

export function incidentRoute(ctx: ConsoleContext) {
  const { opts, audit } = ctx;
  return async function incident(req: IncomingMessage, res: ServerResponse, s: Session, url: URL): Promise<void> {
    if (req.method !== 'GET') throw new HttpError(405, 'Method not allowed.');
    const q = url.searchParams;
    const feed = q.get('feed') ?? '';
    const kind = q.get('error') ?? '';
    const at = Date.parse(q.get('at') ?? '');
    if (!FEED.test(feed)) throw new HttpError(400, 'A feed is named by 1 to 64 letters, digits, spaces or . _ : -');
    if (!kind || kind.length > 200 || !/^[\x20-\x7e]+$/.test(kind)) throw new HttpError(400, 'An error is 1 to 200 printable characters.');
    if (!Number.isFinite(at) || (q.get('at') ?? '').length > 40)
      throw new HttpError(400, 'The time is an ISO time, such as 2026-03-01T14:05:09Z.');
    if (!opts.replay) throw new HttpError(503, 'The replay log is disabled on this gateway (REPLAY_ENABLED=false).');
    await audit(req, s, 'search', null, { incident: feed, error: text(kind, 200), at: new Date(at).toISOString() });
    const window = INCIDENT_WINDOW_MIN * 60_000;
    const slice = await opts.replay.search(
      { since: at - window, until: at + window, feedFailure: { feed, kind }, reruns: 'exclude', limit: INCIDENT_LIMIT },
      { maxUnits: INCIDENT_UNITS, summary: true },
    );
    return send(res, 200, incidentPage(s, feed, kind, at, slice.records, slice.next !== null));
  };
}
