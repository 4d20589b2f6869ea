// The audit trail of the support console and the onboarding commands: who did what,
// when and from where (sign-in, search, record view, unmasking, rerun, partner changes, key issue
// and revoke). Kept longer than replay records (AUDIT_RETENTION, default 400 days; never shorter
// than REPLAY_RETENTION) and trimmed by size (AUDIT_MAX_ENTRIES), noise first. Every instance
// writes to the same place: Redis with per-action and per-actor indexes when REDIS_URL is set
// (audit-redis.ts), else segment files with per-segment summaries under <DATA_DIR>/audit/
// (audit-segments.ts). Filters run inside the store, so a flood of one action never hides another.
//
// Noise (refused or limited sign-ins, searches, audit views) is aggregated: one entry per actor,
// action and address per minute, with a count (audit-aggregate.ts). Every other entry is written
// before the action answers: an action that cannot be audited fails.
import type { RedisClient } from '../../cache/redis-connection.js';
import { createRedisAudit } from './audit-redis.js';
import { createSegmentAudit } from './audit-segments.js';
import { aggregateNoise } from './audit-aggregate.js';
import type { AuditLog } from './audit-entry.js';

export * from './audit-entry.js';

interface AuditLogOptions {
  redis: RedisClient | null;
  dataDir: string;
  retentionMs: number;
  /** AUDIT_MAX_ENTRIES: the trail's size; beyond it the oldest noise goes first, then the oldest of the rest. */
  maxEntries?: number;
  now?: () => number;
  /** False: noise is written one by one (the store tests). */
  aggregate?: boolean;
}

const DEFAULT_MAX_ENTRIES = 200_000;

/** The raw store (no aggregation). */
export function createAuditStore(opts: AuditLogOptions): AuditLog {
  const o = { retentionMs: opts.retentionMs, maxEntries: opts.maxEntries ?? DEFAULT_MAX_ENTRIES, now: opts.now ?? Date.now };
  return opts.redis ? createRedisAudit(opts.redis, o) : createSegmentAudit(opts.dataDir, o);
}

export function createAuditLog(opts: AuditLogOptions): AuditLog {
  const store = createAuditStore(opts);
  return opts.aggregate === false ? store : aggregateNoise(store, { now: opts.now ?? Date.now });
}
