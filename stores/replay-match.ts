// Which replay records a search or listing wants: the filters of ReplayQuery, read from a record's
// own fields and its facets (replay-facets.ts). Kept apart from the store so the scan thread
// (scan-worker.ts) filters with the same code without loading Redis or the file store.
import type { ReplayRecord } from './replay-record.js';
import type { ReplayFacets } from './replay-facets.js';

export type Outcome = 'ok' | 'graphql-errors' | 'refused' | 'server-errors';
export const OUTCOMES: readonly Outcome[] = ['ok', 'graphql-errors', 'refused', 'server-errors'];

/** The outcome of a recorded answer; records written before facets existed go by status alone. */
export function outcomeOf(status: number, facets: ReplayFacets | undefined): Outcome {
  if (status >= 500) return 'server-errors';
  if (status >= 400) return 'refused';
  return facets && facets.errors > 0 ? 'graphql-errors' : 'ok';
}

export interface ReplayQuery {
  partner?: string;
  /** ms since epoch: records at or after. */
  since?: number;
  until?: number;
  /** "200", "429", "4xx", "5xx"... */
  status?: string;
  environment?: string;
  /** ok, graphql-errors, refused (4xx) or server-errors (5xx). */
  outcome?: Outcome;
  /** An `extensions.code` of the answer's errors. */
  errorCode?: string;
  clientIp?: string;
  rootField?: string;
  zip?: string;
  /**
   * A partner's request refused before its body was read (a key of another environment, or
   * revoked) has no known root field or ZIP: with this set it matches those filters rather than
   * hiding from a search for the partner's failed call.
   */
  unreadMatches?: boolean;
  /** HIT, MISS, BYPASS, STALE, COALESCED. */
  cache?: string;
  /** A feed incident: records with a failed call to this feed whose error is of this kind (feedErrorKind). */
  feedFailure?: { feed: string; kind: string };
  /** Support reruns (records the console wrote with notes.rerunOf): left out, or only them; unset, both. */
  reruns?: 'exclude' | 'only';
  limit?: number;
}

export function statusMatches(status: number, filter: string | undefined): boolean {
  if (!filter) return true;
  const f = filter.trim().toLowerCase();
  const m = /^([1-5])xx$/.exec(f);
  if (m) return Math.floor(status / 100) === Number(m[1]);
  return String(status) === f;
}

/** The request was answered before its body was read: its operation, root fields and ZIPs are unknown. */
export function bodyUnread(r: ReplayRecord): boolean {
  return r.query === null && !r.queryDigest && !r.personalData && r.status >= 400;
}

/** The filters read from the record's facets: outcome, error code, root field, ZIP. */
function facetsMatch(r: ReplayRecord, q: ReplayQuery): boolean {
  if (q.outcome !== undefined && outcomeOf(r.status, r.facets) !== q.outcome) return false;
  if (q.errorCode !== undefined && !r.facets?.codes.includes(q.errorCode)) return false;
  const unknown = q.unreadMatches === true && r.partnerCode !== null && bodyUnread(r);
  if (q.rootField !== undefined && !unknown && !r.facets?.rootFields.includes(q.rootField)) return false;
  if (q.zip !== undefined && !unknown && !r.facets?.zips.includes(q.zip)) return false;
  return true;
}

/**
 * A support rerun's record: not partner traffic. Marked by the note the console writes on it
 * (notes.rerunOf, the original's id), never by its request id: a partner may send any id,
 * `rerun.…` included, and that is its ordinary traffic.
 */
export function isRerun(r: Pick<ReplayRecord, 'notes'>): boolean {
  return typeof r.notes?.rerunOf === 'string';
}

/** A feed error without its figures ("timeout after 2503 ms" and "… 2000 ms" are one kind). */
export function feedErrorKind(error: string): string {
  return error.replace(/\d+(\.\d+)?/g, 'N').slice(0, 200);
}

function feedFailed(r: ReplayRecord, f: { feed: string; kind: string }): boolean {
  return r.upstreamCalls.some((c) => c.feed === f.feed && c.error !== undefined && feedErrorKind(c.error) === f.kind);
}

export function recordMatches(r: ReplayRecord, q: ReplayQuery): boolean {
  if (q.feedFailure !== undefined && !feedFailed(r, q.feedFailure)) return false;
  if (q.reruns !== undefined && isRerun(r) !== (q.reruns === 'only')) return false;
  if (q.partner !== undefined && r.partnerCode !== q.partner) return false;
  if (q.environment !== undefined && r.environment !== q.environment) return false;
  if (!statusMatches(r.status, q.status)) return false;
  if (q.clientIp !== undefined && r.clientIp !== q.clientIp) return false;
  if (q.cache !== undefined && r.cache !== q.cache) return false;
  if (!facetsMatch(r, q)) return false;
  const t = Date.parse(r.time);
  if (q.since !== undefined && t < q.since) return false;
  if (q.until !== undefined && t > q.until) return false;
  return true;
}

/**
 * A record as a results table needs it: the answer body, its headers, the upstream calls and the
 * variables left out, and the query text too where the facets already name its root fields. A
 * page of 1,000 matches of a cached answer would otherwise copy its body 1,000 times between
 * threads; the record page reads the whole record by its id.
 */
export function summaryOf(r: ReplayRecord): ReplayRecord {
  return {
    ...r,
    query: r.query !== null && r.facets?.rootFields.length ? '' : r.query,
    variables: null,
    responseBody: '',
    responseHeaders: {},
    upstreamCalls: [],
  };
}
