// The audit trail in Redis: each entry once in a hash (id -> JSON), its id in sorted sets scored by
// time: all entries, per action, per actor, per action and actor, and the noise actions. A filter
// reads only the index it names (a family of actions: one index per action, merged), so a flood
// of refused sign-ins costs a filter on record.unmask nothing. Trimming (age, then size with noise
// first) runs at most once a minute per process, in bounded batches.
import {
  completeEntry,
  newestFirst,
  normaliseQuery,
  NOISE_ACTIONS,
  trimAfterWrites,
  type AuditEntry,
  type AuditLog,
} from './audit-entry.js';
import type { RedisClient } from '../../cache/redis-connection.js';

// One hash tag for every key of the trail: a Redis Cluster keeps them in one slot, so an entry and
// its indexes are written in one MULTI.
const P = '{audit}:';
const ENTRIES = `${P}e`;
const ALL = `${P}x:all`;
const NOISE = `${P}x:noise`;
/** The single sorted set of the earlier trail (another slot in a cluster: emptied apart). */
const LEGACY = 'audit:log';
const byAction = (a: string) => `${P}x:act:${a}`;
const byActor = (a: string) => `${P}x:who:${a}`;
const byBoth = (action: string, actor: string) => `${P}x:aw:${action}\n${actor}`;
const TRIM_BATCH = 5000;
/** At most this many batches a trim: a trail far over its size shrinks over several minutes. */
const TRIM_BATCHES = 20;

function indexesOf(e: AuditEntry): string[] {
  return [ALL, byAction(e.action), byActor(e.actor), byBoth(e.action, e.actor), ...(NOISE_ACTIONS.has(e.action) ? [NOISE] : [])];
}

export function createRedisAudit(redis: RedisClient, o: { retentionMs: number; maxEntries: number; now: () => number }): AuditLog {
  const trimSometimes = trimAfterWrites(() => trim(), o.now);
  let migrated: Promise<void> | null = null;

  const add = (m: ReturnType<RedisClient['multi']>, e: AuditEntry) => {
    const t = Date.parse(e.time);
    m.hset(ENTRIES, e.id, JSON.stringify(e));
    for (const k of indexesOf(e)) m.zadd(k, t, e.id);
  };

  /** Removes entries by id from the hash and every index they are in. */
  async function remove(ids: string[]): Promise<void> {
    if (!ids.length) return;
    const raw = await redis.hmget(ENTRIES, ...ids);
    const m = redis.multi();
    ids.forEach((id, i) => {
      const json = raw[i];
      if (json) for (const k of indexesOf(JSON.parse(json) as AuditEntry)) m.zrem(k, id);
      else m.zrem(ALL, id).zrem(NOISE, id);
    });
    m.hdel(ENTRIES, ...ids);
    await m.exec();
  }

  async function trim(): Promise<void> {
    const cutoff = o.now() - o.retentionMs;
    await remove(await redis.zrangebyscore(ALL, '-inf', `(${cutoff}`, 'LIMIT', 0, TRIM_BATCH));
    for (let batches = 0; batches < TRIM_BATCHES; batches++) {
      const over = (await redis.zcard(ALL)) - o.maxEntries;
      if (over <= 0) return;
      const n = Math.min(over, TRIM_BATCH);
      const noise = await redis.zrange(NOISE, 0, n - 1);
      await remove(noise.length ? noise : await redis.zrange(ALL, 0, n - 1));
    }
  }

  /** Entries of the single-set trail this store replaced move into the indexes once. */
  async function migrate(): Promise<void> {
    for (;;) {
      const batch = await redis.zrange(LEGACY, 0, 999);
      if (!batch.length) return;
      const m = redis.multi();
      for (const json of batch) {
        try {
          add(m, JSON.parse(json) as AuditEntry);
        } catch {
          // not an entry: dropped with the old set
        }
      }
      await m.exec();
      // After the entries are in (adding one twice is harmless if this stops in between).
      await redis.zrem(LEGACY, ...batch);
    }
  }
  const ready = () => (migrated ??= migrate());

  async function range(key: string, from: number, to: number, offset: number, count: number): Promise<Array<{ id: string; t: number }>> {
    const raw = await redis.zrevrangebyscore(key, to, from, 'WITHSCORES', 'LIMIT', offset, count);
    const out: Array<{ id: string; t: number }> = [];
    for (let i = 0; i < raw.length; i += 2) out.push({ id: raw[i]!, t: Number(raw[i + 1]) });
    return out;
  }

  return {
    async write(e) {
      await ready();
      const entry = completeEntry(e, o.now);
      const m = redis.multi();
      add(m, entry);
      await m.exec();
      await trimSometimes();
      return entry;
    },
    async list(q = {}) {
      await ready();
      const n = normaliseQuery(q, o.now() - o.retentionMs);
      const keys = n.actions ? n.actions.map((a) => (n.actor ? byBoth(a, n.actor) : byAction(a))) : [n.actor ? byActor(n.actor) : ALL];
      const want = n.offset + n.limit;
      // One index: Redis skips to the page (in the order of the merge below: time, then id, both
      // descending), so a deep page costs the keyed process one page, not every entry before it.
      const hits =
        keys.length === 1
          ? await range(keys[0]!, n.from, n.to, n.offset, n.limit)
          : (await Promise.all(keys.map((k) => range(k, n.from, n.to, 0, want))))
              .flat()
              .sort((a, b) => b.t - a.t || (a.id < b.id ? 1 : -1))
              .slice(n.offset, want);
      if (!hits.length) return [];
      const raw = await redis.hmget(ENTRIES, ...hits.map((h) => h.id));
      return raw
        .flatMap((json) => (json ? [JSON.parse(json) as AuditEntry] : []))
        .sort(newestFirst)
        .slice(0, n.limit);
    },
  };
}
