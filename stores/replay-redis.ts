// The replay log on Redis (REDIS_URL): one chunk per written batch with a TTL of the retention, a
// sorted-set index of chunks by their newest record, a hash of chunk sizes and a byte counter, kept
// consistent by Lua scripts (replay-store.ts describes the layout).
import { randomBytes } from 'node:crypto';
import { canReach, type RedisClient } from '../cache/redis-health.js';
import { defineScripts } from '../cache/redis-scripts.js';
import type { ReplaySettings } from './replay-settings.js';
import type { ReplayRecord } from './replay-record.js';
import type { ReplayQuery } from './replay-match.js';
import { scanThread } from './scan-thread.js';
import { chunkEncoder, decodeChunk, packChunk, unpackChunk, type BatchEncoder, type EncodedBatch } from './replay-chunk.js';
import type { Backend, ScanPosition, ScanUnit } from './replay-backend.js';

/** The Redis keys of one partition (an environment, or its personal-data records). */
export function replayKeys(partition: string) {
  const base = `epg:{replay}:v3:${partition}:`;
  return {
    chunk: (chunkId: string) => `${base}chunk:${chunkId}`,
    chunkPrefix: `${base}chunk:`,
    chunkIds: (chunkId: string) => `${base}chunk-ids:${chunkId}`,
    chunkIdsPrefix: `${base}chunk-ids:`,
    /** Sorted set: chunk id scored by the time (ms) of its newest record. */
    index: `${base}index`,
    /** Hash: request id -> chunk id, written by earlier versions (read and cleaned up, no longer written). */
    ids: `${base}ids`,
    /** Hash: chunk id -> bytes it accounts for. */
    sizes: `${base}sizes`,
    bytes: `${base}bytes`,
  };
}

type ReplayKeys = ReturnType<typeof replayKeys>;

/**
 * What one chunk costs its partition's budget in Redis: its deflated body (with jemalloc's
 * rounding), its id list, both key names and the bookkeeping (two keys with a TTL, an index member,
 * a sizes field), calibrated against Redis' own memory figures (docs/operations.md, "Replaying a
 * request"), so a partition written one record per chunk (a quiet gateway flushes every
 * REPLAY_FLUSH_MS) holds at most its budget, not twice it.
 */
function chunkCost(bodyBytes: number, idsBytes: number, keyLength: number): number {
  return Math.ceil(bodyBytes * 1.03) + idsBytes + 2 * keyLength + 480;
}

/** The keys of production's partition. */
export const REPLAY_KEYS = replayKeys('production');

// KEYS: chunk, chunk ids, index, sizes, bytes. ARGV: chunk id, chunk, ids text (one per line),
// score (ms), ttl (ms), size.
const PUT_LUA = `
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[5])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[6])
redis.call('INCRBY', KEYS[5], ARGV[6])
return 1
`;

/**
 * Chunks whose id lists one FIND call searches: a page short enough not to hold Redis up for long
 * (docs/benchmark.md, "Replay storage in Redis").
 */
const FIND_PAGE = 64;

// Whether a chunk's newline-separated id list holds `id` as a whole line.
const HOLDS_ID_LUA = `
local function holds(ids, id)
  local n = #id
  local from = 1
  while true do
    local at = string.find(ids, id, from, true)
    if not at then return false end
    local before = at == 1 or string.byte(ids, at - 1) == 10
    local after = at + n > #ids or string.byte(ids, at + n) == 10
    if before and after then return true end
    from = at + 1
  end
end
`;

// KEYS: index. ARGV: chunk-ids key prefix, request id, offset, count, min score. Searches the id
// lists of `count` chunks from `offset`, newest first, for a whole line equal to the id. Returns
// the chunk id, or the offset to go on from (a number), or false when no chunk is left.
const FIND_LUA = `${HOLDS_ID_LUA}
local cids = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', ARGV[5], 'LIMIT', ARGV[3], ARGV[4])
if #cids == 0 then return false end
for _, cid in ipairs(cids) do
  local ids = redis.call('GET', ARGV[1] .. cid)
  if ids and holds(ids, ARGV[2]) then return cid end
end
return tonumber(ARGV[3]) + #cids
`;

// As FIND, but returns every chunk of the page whose id list holds the id: { next offset or false, chunk ids... }.
const FIND_ALL_LUA = `${HOLDS_ID_LUA}
local cids = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', ARGV[5], 'LIMIT', ARGV[3], ARGV[4])
if #cids == 0 then return {} end
local out = { #cids < tonumber(ARGV[4]) and false or (tonumber(ARGV[3]) + #cids) }
for _, cid in ipairs(cids) do
  local ids = redis.call('GET', ARGV[1] .. cid)
  if ids and holds(ids, ARGV[2]) then out[#out + 1] = cid end
end
return out
`;

// KEYS: index, sizes, bytes, ids. ARGV: cutoff score, max bytes, chunk key prefix, chunk-ids key
// prefix, max removals. Drops chunks whose newest record is older than the cutoff, then the oldest
// while the total exceeds the bound.
const TRIM_LUA = `
local removed = 0
local limit = tonumber(ARGV[5])
local legacy = redis.call('EXISTS', KEYS[4]) == 1
local function drop(cid)
  local s = redis.call('HGET', KEYS[2], cid)
  if s then redis.call('DECRBY', KEYS[3], s) end
  redis.call('HDEL', KEYS[2], cid)
  redis.call('ZREM', KEYS[1], cid)
  -- Ids indexed by an earlier version: removed with their chunk.
  local ids = legacy and redis.call('GET', ARGV[4] .. cid)
  if ids then
    for id in string.gmatch(ids, '[^\\n]+') do
      if redis.call('HGET', KEYS[4], id) == cid then redis.call('HDEL', KEYS[4], id) end
    end
  end
  redis.call('DEL', ARGV[3] .. cid, ARGV[4] .. cid)
  removed = removed + 1
end
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, limit)
for _, cid in ipairs(old) do drop(cid) end
local max = tonumber(ARGV[2])
while removed < limit do
  local total = tonumber(redis.call('GET', KEYS[3]) or '0')
  if total <= max then break end
  local cids = redis.call('ZRANGE', KEYS[1], 0, 0)
  if #cids == 0 then
    redis.call('SET', KEYS[3], 0)
    break
  end
  drop(cids[1])
end
return removed
`;

type Scripts = {
  epgReplayPutChunk(...args: (string | number | Buffer)[]): Promise<number>;
  epgReplayTrimChunks(...args: (string | number)[]): Promise<number>;
  epgReplayFindChunk(...args: (string | number)[]): Promise<string | number | null>;
  epgReplayFindChunks(...args: (string | number)[]): Promise<(string | number | null)[]>;
};
type ScriptedRedis = RedisClient & Scripts;

const replayScripts = (redis: RedisClient): ScriptedRedis =>
  defineScripts<Scripts>(redis, {
    epgReplayPutChunk: { keys: 5, lua: PUT_LUA },
    epgReplayFindChunk: { keys: 1, lua: FIND_LUA },
    epgReplayFindChunks: { keys: 1, lua: FIND_ALL_LUA },
    epgReplayTrimChunks: { keys: 4, lua: TRIM_LUA },
  });

/** A command refused because the connection is closed (no offline queue) says Redis is down, as canReach would. */
function redisDown(err: unknown): unknown {
  return /Stream isn't writeable|Connection is closed/.test((err as Error)?.message ?? '')
    ? new Error('Redis is down (the connection closed during the write)')
    : err;
}

export class RedisBackend implements Backend {
  private readonly redis: ScriptedRedis;
  private readonly chunkPrefix = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}-`;
  private chunkSeq = 0;
  /** The JSON size of the last chunk written: a new batch starts with room for as much again. */
  private lastChunkBytes = 16 * 1024;

  constructor(
    redis: RedisClient,
    private readonly settings: ReplaySettings,
    private readonly now: () => number,
    private readonly keys: ReplayKeys,
  ) {
    this.redis = replayScripts(redis);
  }

  encoder(): BatchEncoder {
    // Records already past the retention would be trimmed at once: they are not written. A batch
    // is filled within REPLAY_FLUSH_MS (or until it holds 500 records), so its cutoff is read once.
    const cutoff = new Date(this.now() - this.settings.retentionMs).toISOString();
    return chunkEncoder((r) => !(r.time < cutoff), Math.min(Math.ceil(this.lastChunkBytes * 1.125), 4 * 1024 * 1024));
  }

  async write(batch: EncodedBatch): Promise<void> {
    if (!canReach(this.redis, REPLAY_KEYS.index)) throw new Error('Redis is down (or the cluster master of the replay keys)');
    const now = this.now();
    const cutoff = now - this.settings.retentionMs;
    const p = this.redis.pipeline() as unknown as {
      epgReplayPutChunk(...a: (string | number | Buffer)[]): void;
      epgReplayTrimChunks(...a: (string | number)[]): void;
      exec(): Promise<[Error | null, unknown][] | null>;
    };
    if (batch.count) {
      this.lastChunkBytes = Math.max(1024, batch.data.length);
      const chunkId = `${this.chunkPrefix}${(this.chunkSeq++).toString(36)}`;
      // Deflated off the event loop (libuv's pool); a Buffer goes to the socket as is.
      const body = await packChunk(batch.data);
      const size = chunkCost(body.length, batch.ids.length, this.keys.chunk(chunkId).length);
      p.epgReplayPutChunk(
        this.keys.chunk(chunkId),
        this.keys.chunkIds(chunkId),
        this.keys.index,
        this.keys.sizes,
        this.keys.bytes,
        chunkId,
        body,
        batch.ids,
        batch.newest || now,
        this.settings.retentionMs,
        size,
      );
    }
    p.epgReplayTrimChunks(
      this.keys.index,
      this.keys.sizes,
      this.keys.bytes,
      this.keys.ids,
      cutoff,
      this.settings.maxBytes,
      this.keys.chunkPrefix,
      this.keys.chunkIdsPrefix,
      1000,
    );
    // Redis may have gone while the chunk was deflated: a closed stream is Redis down, not a failed write.
    if (!canReach(this.redis, REPLAY_KEYS.index)) throw new Error('Redis is down (or the cluster master of the replay keys)');
    const res = await p.exec().catch((err: unknown) => {
      throw redisDown(err);
    });
    const failed = (res ?? []).find(([err]) => err);
    if (!res || failed) throw redisDown(failed?.[0] ?? new Error('Redis pipeline failed'));
  }

  async get(id: string): Promise<ReplayRecord | null> {
    // Each id is one line of a chunk's id list: an empty id, or one spanning lines, names no record
    // (and an empty one would make the search step through every byte of every list).
    if (id === '' || id.includes('\n')) return null;
    const cutoff = this.now() - this.settings.retentionMs;
    const chunkId = (await this.redis.hget(this.keys.ids, id)) ?? (await this.findChunk(id, cutoff));
    if (!chunkId) return null;
    const stored = await this.redis.getBuffer(this.keys.chunk(chunkId));
    if (!stored) return null;
    // The latest record with this id in its chunk (a reused request id: the newest wins).
    const found = decodeChunk(unpackChunk(stored))
      .filter((r) => r.id === id)
      .pop();
    return found && Date.parse(found.time) >= cutoff ? found : null;
  }

  async getAll(id: string): Promise<ReplayRecord[]> {
    if (id === '' || id.includes('\n')) return [];
    const cutoff = this.now() - this.settings.retentionMs;
    const found: ReplayRecord[] = [];
    for (let offset = 0; ;) {
      const page = await this.redis.epgReplayFindChunks(this.keys.index, this.keys.chunkIdsPrefix, id, offset, FIND_PAGE, cutoff);
      if (!Array.isArray(page) || page.length === 0) break;
      const [next, ...cids] = page;
      for (const cid of cids) {
        const stored = await this.redis.getBuffer(this.keys.chunk(String(cid)));
        if (!stored) continue;
        for (const r of decodeChunk(unpackChunk(stored))) if (r.id === id && Date.parse(r.time) >= cutoff) found.push(r);
      }
      if (next === null || next === undefined) break;
      offset = Number(next);
    }
    return found.sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
  }

  /** The newest chunk whose id list holds `id`, searched a page of chunks per call. */
  private async findChunk(id: string, cutoff: number): Promise<string | null> {
    for (let offset = 0; ;) {
      const found = await this.redis.epgReplayFindChunk(this.keys.index, this.keys.chunkIdsPrefix, id, offset, FIND_PAGE, cutoff);
      if (typeof found === 'string') return found;
      if (typeof found !== 'number') return null;
      offset = found;
    }
  }

  async peek(from: ScanPosition | null, n: number, since: number): Promise<ScanUnit[]> {
    const min = Math.max(since, this.now() - this.settings.retentionMs);
    const page = await this.redis.zrevrangebyscore(
      this.keys.index,
      from ? String(from.key) : '+inf',
      String(min),
      'WITHSCORES',
      'LIMIT',
      from?.skip ?? 0,
      n,
    );
    const units: ScanUnit[] = [];
    for (let i = 0; i < page.length; i += 2) units.push({ id: page[i]!, key: Number(page[i + 1]), newest: Number(page[i + 1]), cost: 1 });
    return units;
  }

  async scan(unit: ScanUnit, q: ReplayQuery, summary: boolean): Promise<ReplayRecord[]> {
    const stored = await this.redis.getBuffer(this.keys.chunk(unit.id));
    return stored ? scanThread.chunk(stored, q, summary) : [];
  }

  async close(): Promise<void> {}
}
