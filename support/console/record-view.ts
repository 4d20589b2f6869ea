// What one session remembers of one record page between its actions (Post/Redirect/Get): the
// ticket typed for the record (asked once, sent again by the forms, validated and audited on each
// action), whether its personal data was opened, and the last rerun's result. An action answers
// with a redirect to the record's own URL, whose page shows this. Held in the session's memory,
// a few records per session, each for a while after its last action.
import type { ReplayRecord } from '../../stores/replay-store.js';
import type { ResponseDiff } from '../replay-diff.js';
import type { RerunAnswer } from '../rerun.js';
import type { Session } from './session.js';
import { recordTarget } from './record-choice.js';

/** Records remembered per session (the oldest goes first)... */
const MAX_VIEWS = 8;
/** ...each for this long after its last action. */
const RECORD_VIEW_MS = 15 * 60_000;

export interface RerunResult {
  /** The record as it ran (opened in the server when it holds personal data). */
  ran: ReplayRecord;
  answer: RerunAnswer;
  diff: ResponseDiff;
  /** When the rerun ran (ms). */
  at: number;
  /** Rerun with personal data in clear, for the ticket. */
  personal: boolean;
}

interface RecordViewState {
  ticket?: string;
  unmasked?: boolean;
  rerun?: RerunResult;
  until: number;
}

const views = new WeakMap<Session, Map<string, RecordViewState>>();

/** One record page, told apart from others of the same id by environment, partner and time. */
const keyOf = (r: Pick<ReplayRecord, 'id' | 'environment' | 'partnerCode' | 'time'>) => `${recordTarget(r)}@${r.time}`;

/** What the session remembers of the record's page, or undefined (never, or too long ago). */
export function recordView(s: Session, r: ReplayRecord, now: number): RecordViewState | undefined {
  const map = views.get(s);
  const state = map?.get(keyOf(r));
  if (state && state.until <= now) {
    map!.delete(keyOf(r));
    return undefined;
  }
  return state;
}

/** Remembers a change to the record's page (after its action was done and audited). */
export function rememberView(s: Session, r: ReplayRecord, now: number, change: Omit<Partial<RecordViewState>, 'until'>): void {
  let map = views.get(s);
  if (!map) views.set(s, (map = new Map()));
  const key = keyOf(r);
  const state = { ...map.get(key), ...change, until: now + RECORD_VIEW_MS };
  // Newest last, so the oldest is the first key.
  map.delete(key);
  map.set(key, state);
  while (map.size > MAX_VIEWS) map.delete(map.keys().next().value!);
}
