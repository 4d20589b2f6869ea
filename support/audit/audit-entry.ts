// What an audit entry is, the actions there are, and the query every audit store answers.
import { randomBytes } from 'node:crypto';

export interface AuditEntry {
  id: string;
  /** ISO 8601; for an aggregated entry, its first occurrence. */
  time: string;
  /** "support:ALICE", "admin-token", "cli:<os user>", "anonymous". */
  actor: string;
  action: string;
  /** What it was done to: a request id, a partner code, a key id. */
  target: string | null;
  /** Client address of the console user, or "cli". */
  from: string;
  details?: Record<string, unknown>;
  /** Occurrences folded into this entry (aggregated noise); absent means one. */
  count?: number;
}

export interface AuditQuery {
  actor?: string;
  /** An action and the actions under it ("record" = record.view, record.unmask, ...). Unknown: AuditFilterError. */
  action?: string;
  /** Epoch ms, inclusive. `since` is the older spelling of `from`. */
  from?: number;
  since?: number;
  /** Epoch ms, inclusive. */
  to?: number;
  limit?: number;
  offset?: number;
}

/** With an id: the new state of that entry (an aggregated entry's count). */
export type AuditInput = Omit<AuditEntry, 'id' | 'time'> & { id?: string; time?: string };

export interface AuditLog {
  write(entry: AuditInput): Promise<AuditEntry>;
  /** Newest first. */
  list(q?: AuditQuery): Promise<AuditEntry[]>;
  /** Writes what is pending (aggregated noise) and stops timers. */
  close?(): Promise<void>;
}

/** Every action written to the trail, with what it means (docs/support.md lists the same). */
export const AUDIT_ACTIONS: Record<string, string> = {
  'sign-in': 'a support user signed in to the console',
  'sign-in.refused': 'a console sign-in with a token that is not an active support token (aggregated)',
  'sign-in.limited': 'a console sign-in refused with 429 after too many refused sign-ins from that address (aggregated)',
  'sign-out': 'a support user signed out',
  search: 'console searches (aggregated)',
  'audit.view': 'audit log pages viewed (aggregated)',
  'record.view': 'a replay record opened',
  'record.unmask': "a record's personal data opened",
  'record.unmask.refused': 'an unmasking refused',
  'record.rerun': 'a record rerun',
  'record.rerun.refused': 'a rerun refused: the token has no unmask role for a record holding personal data',
  'partner.save.refused': 'a partner change refused: the token has no partners role',
  'partner.ip.enable.refused': 'a test IP change refused: the token has no partners role',
  'partner.ip.disable.refused': 'a test IP change refused: the token has no partners role',
  'partner.save': 'a partner record created or changed',
  'partner.ip.enable': 'a certification test IP enabled',
  'partner.ip.disable': 'a certification test IP removed',
  'partner.ip.check': 'a certification test IP checked',
  'partner.quota': "a partner's request quota set (npm run partners -- quota, or the console)",
  'partner.quota.refused': 'a quota change refused: the token has no partners role',
  'allowance.show': "a client address's playground allowance read (console or npm run allowance)",
  'allowance.reset': "a client address's playground allowance given back, with the ticket (console or npm run allowance)",
  'allowance.reset.refused': 'an allowance reset refused: the token has no partners role',
  'key.issue': 'an API key or support token issued (npm run keys -- issue)',
  'key.revoke': 'an API key or support token revoked (npm run keys -- revoke)',
};

/** Actions aggregated per actor, address and minute, and trimmed first when the trail is full. */
export const NOISE_ACTIONS: ReadonlySet<string> = new Set(['sign-in.refused', 'sign-in.limited', 'search', 'audit.view']);

const MAX_LIST = 1000;

export class AuditFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditFilterError';
  }
}

/** The actions a filter selects: the action named and the ones under it ("sign-in" = sign-in, sign-in.refused, ...). */
export function actionsFor(filter: string | undefined): string[] | null {
  if (!filter) return null;
  const selected = Object.keys(AUDIT_ACTIONS).filter((a) => a === filter || a.startsWith(`${filter}.`));
  if (selected.length) return selected;
  throw new AuditFilterError(
    `unknown audit action "${filter.slice(0, 64)}"; use one of ${Object.keys(AUDIT_ACTIONS).join(', ')} ` +
      `or a family (sign-in, record, partner, allowance, key)`,
  );
}

/** Checks and normalises a query: known actions, ordered bounds, a bounded page. */
export function normaliseQuery(
  q: AuditQuery,
  earliest: number,
): Required<Pick<AuditQuery, 'from' | 'to' | 'limit' | 'offset'>> & {
  actor: string | null;
  actions: string[] | null;
} {
  const from = Math.max(q.from ?? q.since ?? earliest, earliest);
  const to = q.to ?? Number.MAX_SAFE_INTEGER;
  const limit = Math.min(Math.max(q.limit ?? 100, 1), MAX_LIST);
  const offset = Math.max(q.offset ?? 0, 0);
  if (offset > 100_000) throw new AuditFilterError('an audit page starts at most 100,000 entries back; narrow the time range');
  return { actor: q.actor || null, actions: actionsFor(q.action), from, to, limit, offset };
}

export function completeEntry(e: AuditInput, now: () => number): AuditEntry {
  return {
    id: e.id ?? `aud_${randomBytes(8).toString('hex')}`,
    time: e.time ?? new Date(now()).toISOString(),
    actor: e.actor,
    action: e.action,
    target: e.target,
    from: e.from,
    ...(e.details ? { details: e.details } : {}),
    ...(e.count !== undefined ? { count: e.count } : {}),
  };
}

/** Newest first; equal times by id, so every store pages the same way. */
export function newestFirst(a: AuditEntry, b: AuditEntry): number {
  const d = Date.parse(b.time) - Date.parse(a.time);
  return d !== 0 ? d : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Trimming by age and size runs at most once a minute, after a write (either store). */
const TRIM_EVERY_MS = 60_000;

/** `trim` at most once every TRIM_EVERY_MS, called after each write. */
export function trimAfterWrites(trim: () => Promise<void>, now: () => number): () => Promise<void> {
  let last = 0;
  return async () => {
    if (now() - last <= TRIM_EVERY_MS) return;
    last = now();
    await trim();
  };
}
