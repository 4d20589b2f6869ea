// The audit trail of the support console and the onboarding commands: who did what,
// when and from where (sign-in, search, record view, unmasking, rerun, partner changes). Kept
// longer than replay records (AUDIT_RETENTION, default 400 days; never shorter than
// REPLAY_RETENTION). Every instance writes to the same place: a Redis sorted set scored by time
// when REDIS_URL is set, else an append-only JSONL file under <DATA_DIR>/audit/. Unlike replay
// records, an audit entry is written before the action answers: an action that cannot be audited
// fails.
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { RedisClient } from '../../cache/redis-connection.js';

export interface AuditEntry {
  id: string;
  /** ISO 8601. */
  time: string;
  /** "support:ALICE", "admin-token", "cli:<os user>". */
  actor: string;
  action: string;
  /** What it was done to: a request id, a partner code, a search. */
  target: string | null;
  /** Client address of the console user, or "cli". */
  from: string;
  details?: Record<string, unknown>;
}

export interface AuditQuery {
  actor?: string;
  action?: string;
  since?: number;
  limit?: number;
  offset?: number;
}

export interface AuditLog {
  write(entry: Omit<AuditEntry, 'id' | 'time'> & { time?: string }): Promise<AuditEntry>;
  /** Newest first. */
  list(q?: AuditQuery): Promise<AuditEntry[]>;
}

const KEY = 'audit:log';
const MAX_LIST = 1000;

function complete(e: Omit<AuditEntry, 'id' | 'time'> & { time?: string }, now: () => number): AuditEntry {
  return {
    id: `aud_${randomBytes(8).toString('hex')}`,
    time: e.time ?? new Date(now()).toISOString(),
    actor: e.actor,
    action: e.action,
    target: e.target,
    from: e.from,
    ...(e.details ? { details: e.details } : {}),
  };
}

function matches(e: AuditEntry, q: AuditQuery): boolean {
  return (
    (!q.actor || e.actor === q.actor) && (!q.action || e.action === q.action) && (q.since === undefined || Date.parse(e.time) >= q.since)
  );
}

function page(entries: AuditEntry[], q: AuditQuery): AuditEntry[] {
  const offset = q.offset ?? 0;
  return entries.filter((e) => matches(e, q)).slice(offset, offset + Math.min(q.limit ?? 100, MAX_LIST));
}

export function auditFile(dataDir: string): string {
  return path.join(dataDir, 'audit', 'audit.jsonl');
}

export function createAuditLog(opts: { redis: RedisClient | null; dataDir: string; retentionMs: number; now?: () => number }): AuditLog {
  const now = opts.now ?? Date.now;
  if (opts.redis) {
    const redis = opts.redis;
    return {
      async write(e) {
        const entry = complete(e, now);
        const t = Date.parse(entry.time);
        await redis
          .multi()
          .zadd(KEY, t, JSON.stringify(entry))
          .zremrangebyscore(KEY, '-inf', t - opts.retentionMs)
          .exec();
        return entry;
      },
      async list(q = {}) {
        // Newest first; filters apply after reading, so read generously (the log is small).
        const min = q.since ?? now() - opts.retentionMs;
        const raw = await redis.zrevrangebyscore(KEY, '+inf', min, 'LIMIT', 0, 20_000);
        return page(
          raw.map((r) => JSON.parse(r) as AuditEntry),
          q,
        );
      },
    };
  }
  const file = auditFile(opts.dataDir);
  let lastTrim = 0;
  const readAll = async (): Promise<AuditEntry[]> => {
    const text = await fsp.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw err;
    });
    const cutoff = now() - opts.retentionMs;
    return text
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => {
        try {
          const e = JSON.parse(line) as AuditEntry;
          return Date.parse(e.time) >= cutoff ? [e] : [];
        } catch {
          return []; // a torn last line after a crash
        }
      });
  };
  return {
    async write(e) {
      const entry = complete(e, now);
      await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await fsp.appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
      // Expired entries are dropped at most once a day, by rewriting the file.
      if (now() - lastTrim > 86_400_000) {
        lastTrim = now();
        const kept = await readAll();
        const tmp = `${file}.${process.pid}.tmp`;
        await fsp.writeFile(tmp, kept.map((k) => `${JSON.stringify(k)}\n`).join(''), { mode: 0o600 });
        await fsp.rename(tmp, file);
      }
      return entry;
    },
    async list(q = {}) {
      return page((await readAll()).reverse(), q);
    },
  };
}
