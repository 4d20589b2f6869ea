// A request id is the client's: two partners (or one partner in two environments, or twice) may
// send the same `x-request-id`, so an id alone does not name a record. Console links name a record
// by id, environment, partner and time; a link that names several lists them all and asks which,
// and nothing (a view, an unmasking, a rerun) is ever done to a guess.
import type { ReplayRecord } from '../../stores/replay-store.js';
import type { Session } from './session.js';
import { HttpError } from './console-http.js';
import { html, page } from './html.js';

const ENVIRONMENTS = ['production', 'certification', 'playground'];
/** In a link, a record without a partner (keyless playground, or refused before its key was read). */
const NO_PARTNER = '-';
const PARTNER = /^[A-Za-z0-9][A-Za-z0-9_-]{1,31}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;

interface RecordSelector {
  env?: string;
  /** null: records without a partner. */
  partner?: string | null;
  /** The record's time as stored (ISO). */
  at?: string;
  /** Which of records alike in all of the above (getAll's order), when they are. */
  n?: number;
}

type Identified = Pick<ReplayRecord, 'id' | 'environment' | 'partnerCode'> & { time?: string };

/** The selector of a record link's query string; a malformed part is refused, never ignored. */
export function selectorOf(q: URLSearchParams): RecordSelector {
  const sel: RecordSelector = {};
  const env = q.get('env');
  const partner = q.get('partner');
  const at = q.get('at');
  if (env !== null && env !== '') {
    if (!ENVIRONMENTS.includes(env)) throw new HttpError(400, `Unknown environment (one of ${ENVIRONMENTS.join(', ')}).`);
    sel.env = env;
  }
  if (partner !== null && partner !== '') {
    if (partner !== NO_PARTNER && !PARTNER.test(partner))
      throw new HttpError(400, 'A partner code is 2 to 32 characters A-Z, 0-9, _ or -.');
    sel.partner = partner === NO_PARTNER ? null : partner.toUpperCase();
  }
  if (at !== null && at !== '') {
    if (!TIME.test(at)) throw new HttpError(400, 'The record time in the link is damaged; search again.');
    sel.at = at;
  }
  const n = q.get('n');
  if (n !== null && n !== '') {
    if (!/^\d{1,3}$/.test(n)) throw new HttpError(400, 'The record number in the link is damaged; search again.');
    sel.n = Number(n);
  }
  return sel;
}

/** The records of one id the selector names (getAll's order: newest first). */
export function recordsMatching(all: ReplayRecord[], sel: RecordSelector): ReplayRecord[] {
  const found = all.filter(
    (r) =>
      (sel.env === undefined || r.environment === sel.env) &&
      (sel.partner === undefined || (r.partnerCode?.toUpperCase() ?? null) === sel.partner) &&
      (sel.at === undefined || r.time === sel.at),
  );
  if (sel.n === undefined) return found;
  const alike = found.filter((r) => sameKey(r, found[0]!));
  return alike.length === found.length && alike[sel.n] ? [alike[sel.n]!] : [];
}

const sameKey = (a: Identified, b: Identified) => a.environment === b.environment && a.partnerCode === b.partnerCode && a.time === b.time;

/** A link naming the record by id, environment, partner and (when known) time; `action` is rerun or unmask. */
export function recordHref(r: Identified, action = '', n?: number): string {
  const q = new URLSearchParams({ env: r.environment, partner: r.partnerCode ?? NO_PARTNER });
  if (r.time) q.set('at', r.time);
  if (n !== undefined) q.set('n', String(n));
  return `/console/records/${encodeURIComponent(r.id)}${action ? `/${action}` : ''}?${q}`;
}

/** The audit target of a record: its environment, partner and id (`production/ACME/req-1`). */
export function recordTarget(r: Identified): string {
  return `${r.environment}/${r.partnerCode ?? NO_PARTNER}/${r.id}`;
}

/** The page that asks which of the records carrying one request id is meant. */
export function choicePage(session: Session, id: string, records: ReplayRecord[]): string {
  // Records alike in environment, partner and time are told apart by their place among them.
  const place = (r: ReplayRecord) => {
    const alike = records.filter((x) => sameKey(x, r));
    return alike.length > 1 ? alike.indexOf(r) : undefined;
  };
  const rows = records.map(
    (r) => html`<tr><td data-label="Partner">${r.partnerCode ?? '–'}</td><td data-label="Environment">${r.environment}</td>
    <td data-label="Time (UTC)" class="mono">${r.time}</td><td data-label="Status" class="num">${r.status}</td>
    <td data-label="Record"><a href="${recordHref(r, '', place(r))}">Open this record</a></td></tr>`,
  );
  const body = html`<p class="notice" id="several">${records.length} records carry the request id <span class="mono">${id}</span>
    (a client may send an id another partner or environment used): choose one.</p>
  <table id="choices" class="cards"><thead><tr><th>Partner</th><th>Environment</th><th>Time (UTC)</th><th class="num">Status</th>
    <th>Record</th></tr></thead><tbody>${rows}</tbody></table>
  <p><a href="/console/search">Back to search</a></p>`;
  return page(`Request id ${id}: several records`, body, session, '');
}
