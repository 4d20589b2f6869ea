// The replay log: one record per request (what the partner sent and exactly what it received),
// kept for support, bounded by age (REPLAY_RETENTION, default 7 days) and by size, oldest first.
//
// Partitions: each environment keeps its records apart, with a byte budget of its own
// (REPLAY_MAX_BYTES for production and for certification, REPLAY_PLAYGROUND_MAX_BYTES for the
// keyless playground), so keyless traffic can never evict a partner's records. Records holding
// personal data (sealed, see replay-privacy.ts) live in a further partition per environment with
// a shorter retention (REPLAY_PII_RETENTION, default 24 h) and budget (REPLAY_PII_MAX_BYTES). A
// request id names a record within its environment; a lookup without an environment looks at the
// keyed environments first, so a keyless request reusing a partner's id never shadows its record.
//
// Writing never slows or fails a request: records go into a bounded in-memory queue (count and
// bytes) and are written in batches in the background. A record is encoded into its partition's
// batch the moment it is queued (replay-chunk.ts): a queued batch is one buffer, not objects kept
// alive until it is written. A full queue or a store outage drops records and counts them
// (`dropped`); nothing is retried forever.
//
// Stores:
// - Redis (REDIS_URL): one chunk per written batch (up to 500 records) with a TTL of the
//   retention, in the format of replay-chunk.ts (a cached answer sent 500 times is one body and
//   500 records of ~250 bytes, deflated to ~30 bytes each) and its request ids, one per line; a
//   sorted-set index of chunks by their newest record, a hash of chunk sizes and a byte counter.
//   A record is found by its id by searching the chunks' id lists inside Redis, newest first, a
//   page of chunks per call (FIND_LUA): support looks a request up now and then, while every
//   answer writes a record, and an index entry per id was four fifths of Redis' CPU per record.
//   Ids that an earlier version indexed in a hash (`ids`) are still found there, and dropped with
//   their chunks. Retention and the size bound drop whole chunks, oldest first. All keys share the
//   hash tag `{replay}` so the Lua scripts that keep them consistent also run on Redis Cluster.
// - Embedded (no Redis): append-only JSONL segment files under <DATA_DIR>/replay/, rotated by
//   size; whole segments are deleted when older than the retention or when the total exceeds the
//   size bound (so the bound holds to within one segment).
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { canReach, type RedisClient } from '../../cache/redis-health.js';
import { defineScripts } from '../../cache/redis-scripts.js';
import type { ReplaySettings } from '../../cache/cache-config.js';
import type { ReplayRecord } from './replay-record.js';
import type { ReplayQuery } from './replay-match.js';
import { scanThread } from './scan-thread.js';
import { chunkEncoder, decodeChunk, linesEncoder, packChunk, unpackChunk, type BatchEncoder, type EncodedBatch } from './replay-chunk.js';

export { decodeChunk, encodeChunk, packChunk, unpackChunk } from './replay-chunk.js';

export type { ReplayRecord, ReplayUpstreamCall } from './replay-record.js';
export { bodyUnread, recordMatches, statusMatches, type ReplayQuery } from './replay-match.js';

export interface SearchOptions {
  /** From a previous slice's `next`; absent: from the newest. */
  cursor?: string | null;
  /** Chunks (Redis) or 512 KiB of segment (embedded) to read at most; default SEARCH_UNITS. */
  maxUnits?: number;
  /** Matches as a results table needs them (summaryOf): no bodies, headers, upstream calls or variables. */
  summary?: boolean;
}

export interface SearchSlice {
  /** Matching records of the units read, newest first (may exceed the query's limit by one unit's worth). */
  records: ReplayRecord[];
  /** Where to continue (older records); null when every unit in the time range was read. */
  next: string | null;
  /** Units read. */
  units: number;
  /** The newest record time (ms) not yet searched, when `next` is set. */
  searchedBack?: number;
}

/** Units one search slice reads by default: ~32 chunks of up to 500 records. */
export const SEARCH_UNITS = 32;

/** Units one listing reads at most: 256 chunks of up to 500 records, or 128 MiB of segments. */
export const LIST_UNITS = 8 * SEARCH_UNITS;

export interface ReplayListing {
  records: ReplayRecord[];
  /** Every unit of the time range was read, or `limit` records were found. */
  complete: boolean;
  /** When not complete: the newest record time (ms) not read yet. */
  searchedBack?: number;
  /** When not complete: the cursor that reads on from there (nothing read is skipped: fewer than `limit` matched). */
  next?: string;
}

/** A unit of a partition's storage a search reads whole, in the partition's newest-first order. */
export interface ScanUnit {
  id: string;
  /** Order within the partition (descending), stable while the unit exists. */
  key: number;
  /** Newest record time (ms), for merging partitions. */
  newest: number;
  /** Budget units it costs to read. */
  cost: number;
}

/** Where a partition's scan stands: units with a greater key are read, and `skip` of those with this key. */
interface ScanPosition {
  key: number;
  skip: number;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface ReplayStats {
  store: 'redis' | 'embedded';
  enqueued: number;
  written: number;
  dropped: number;
  writeErrors: number;
  queued: number;
  queuedBytes: number;
}

export interface ReplayStore {
  readonly kind: 'redis' | 'embedded';
  /** Queues a record for writing. Cheap, never throws, never waits. */
  enqueue(record: ReplayRecord): void;
  /** Counts a record that could not even be built. */
  noteDropped(n?: number): void;
  /** Writes everything queued so far (shutdown, tests). */
  flush(): Promise<void>;
  /** The record of a request id in `environment`; without one, keyed environments are searched first. */
  get(id: string, environment?: string): Promise<ReplayRecord | null>;
  /**
   * Every record of a request id (in `environment`, or all), newest first: a client may send the
   * request id another partner used, so an id alone does not name one record.
   */
  getAll(id: string, environment?: string): Promise<ReplayRecord[]>;
  /**
   * Up to `limit` matching records, newest first, from at most LIST_UNITS units (admin
   * `GET /replay`, `replay list`), from `cursor` on. `complete` is false when the bound stopped it
   * first; `searchedBack` then says how far back it read and `next` continues it.
   */
  listing(query: ReplayQuery, cursor?: string | null): Promise<ReplayListing>;
  /** listing()'s records. */
  list(query: ReplayQuery): Promise<ReplayRecord[]>;
  /**
   * One bounded slice of a search (the support console): reads at most `maxUnits` chunks (Redis)
   * or segment pieces (embedded) from `cursor` on, newest first across partitions, yielding to the
   * event loop between them, and stops early once `limit` records matched. `next` continues it.
   */
  search(query: ReplayQuery, opts?: SearchOptions): Promise<SearchSlice>;
  stats(): ReplayStats;
  close(): Promise<void>;
}

/**
 * The one record a request id names, from every record carrying it (getAll, newest first), or all
 * of them when it names none: keyed environments before the playground (a keyless request reusing a
 * partner's id never shadows the partner's record), then narrowed by `partner`; records of more than
 * one partner or keyed environment are ambiguous and never resolved by a guess.
 */
export function pickRecord(all: ReplayRecord[], partner?: string): { record: ReplayRecord } | { ambiguous: ReplayRecord[] } | null {
  const mine = partner === undefined ? all : all.filter((r) => r.partnerCode?.toUpperCase() === partner.toUpperCase());
  const keyed = mine.filter((r) => r.environment !== 'playground');
  const records = keyed.length ? keyed : mine;
  if (records.length === 0) return null;
  const owners = new Set(records.map((r) => `${r.environment}\n${r.partnerCode ?? ''}`));
  return owners.size > 1 ? { ambiguous: records } : { record: records[0]! };
}

/** Process-wide counters over every replay store, for metrics. */
export const replayStats = { enqueued: 0, written: 0, dropped: 0, writeErrors: 0, retries: 0 };

/** Approximate memory of a queued record, for the queue's byte bound. */
function approxSize(r: ReplayRecord): number {
  return 512 + r.responseBody.length + (r.query?.length ?? 0) + (r.queryDigest?.head.length ?? 0);
}

interface Backend {
  /** A new batch, encoded record by record as they are queued. */
  encoder(): BatchEncoder;
  write(batch: EncodedBatch): Promise<void>;
  get(id: string, environment?: string): Promise<ReplayRecord | null>;
  getAll(id: string): Promise<ReplayRecord[]>;
  /** Up to `n` units after `from`, newest first, none wholly older than `since`. */
  peek(from: ScanPosition | null, n: number, since: number): Promise<ScanUnit[]>;
  /** The records of one unit that match `q` (unpacked and filtered on the scan thread). */
  scan(unit: ScanUnit, q: ReplayQuery, summary: boolean): Promise<ReplayRecord[]>;
  close(): Promise<void>;
}

const BATCH = 500;
const FLUSH_DELAY_MS = 50;
/**
 * Pauses before each retry of a failed batch write, doubling from 200 ms up to 2 s, within
 * `budgetMs` in all (default 10 s: a Sentinel or Cluster failover with down-after / node-timeout
 * of a few seconds). Then the batch is dropped and counted; new records wait in the bounded queue.
 */
export function retryPauses(budgetMs: number): number[] {
  const pauses: number[] = [];
  for (let next = 200, total = 0; total + next <= budgetMs; total += next, next = Math.min(next * 2, 2000)) pauses.push(next);
  return pauses;
}

/** A batch in the queue, with the records and bytes the queue accepted into it. */
interface Queued<B> {
  partition: string;
  batch: B;
  records: number;
  bytes: number;
}

class QueuedReplayStore implements ReplayStore {
  /**
   * Batches being filled, one per partition; records are encoded into them as they arrive. The
   * queue counts what it accepted: a batch may hold fewer (a record already past the retention is
   * left out, and counts as written as it would be trimmed at once).
   */
  private readonly open = new Map<string, Queued<BatchEncoder>>();
  /** Full (or due) batches waiting to be written, oldest first. */
  private ready: Queued<EncodedBatch>[] = [];
  private queuedRecords = 0;
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private counters = { enqueued: 0, written: 0, dropped: 0, writeErrors: 0 };
  private closed = false;
  /** Set by close(): no more waiting to retry a failed batch. */
  private closing = false;
  private readonly retryPauses: number[];

  constructor(
    readonly kind: 'redis' | 'embedded',
    private readonly backend: PartitionedBackend,
    private readonly settings: ReplaySettings,
    private readonly onError: (err: unknown, what: string) => void,
  ) {
    this.retryPauses = retryPauses(settings.writeRetryMs ?? 10_000);
  }

  enqueue(record: ReplayRecord): void {
    try {
      if (this.closed) return this.noteDropped();
      const size = approxSize(record);
      if (this.queuedRecords >= this.settings.queueMaxRecords || this.queuedBytes + size > this.settings.queueMaxBytes) {
        return this.noteDropped();
      }
      const partition = partitionOf(record);
      let open = this.open.get(partition);
      if (!open) this.open.set(partition, (open = { partition, batch: this.backend.encoder(partition), records: 0, bytes: 0 }));
      this.counters.enqueued++;
      replayStats.enqueued++;
      if (!open.batch.add(record)) return this.noteDropped();
      this.queuedRecords++;
      this.queuedBytes += size;
      open.records++;
      open.bytes += size;
      if (open.records >= BATCH) this.seal(partition);
      this.schedule();
    } catch {
      this.noteDropped();
    }
  }

  noteDropped(n = 1): void {
    this.counters.dropped += n;
    replayStats.dropped += n;
  }

  /** Moves a batch being filled to the write queue. */
  private seal(partition: string): void {
    const open = this.open.get(partition);
    if (!open) return;
    this.open.delete(partition);
    this.ready.push({ ...open, batch: open.batch.finish() });
  }

  private sealAll(): void {
    for (const partition of [...this.open.keys()]) this.seal(partition);
  }

  private schedule(): void {
    if (this.ready.length && !this.running) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.running = this.drain();
      return;
    }
    // Set while a write runs too: a batch begun meanwhile is sealed on time and written next by the
    // running drain, so a record waits at most one flush interval plus the write in flight (the
    // records a kill -9 can lose).
    if (!this.timer && this.open.size) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.sealAll();
        if (!this.running) this.running = this.drain();
      }, this.settings.flushMs ?? FLUSH_DELAY_MS);
      this.timer.unref?.();
    }
  }

  private async drain(): Promise<void> {
    try {
      for (let next = this.ready.shift(); next; next = this.ready.shift()) {
        const { partition, batch, records, bytes } = next;
        this.queuedRecords -= records;
        this.queuedBytes -= bytes;
        for (let attempt = 0; ; attempt++) {
          try {
            await this.backend.write(partition, batch);
            this.counters.written += records;
            replayStats.written += records;
            break;
          } catch (err) {
            this.counters.writeErrors++;
            replayStats.writeErrors++;
            this.onError(err, 'replay write');
            const pause = this.retryPauses[attempt];
            if (pause === undefined || this.closing) {
              this.noteDropped(records);
              break;
            }
            replayStats.retries++;
            await new Promise((r) => setTimeout(r, pause).unref?.());
          }
        }
      }
    } finally {
      this.queuedBytes = Math.max(0, this.queuedBytes);
      this.running = null;
      // Batches sealed after the loop's last look, or begun while the last one was being written.
      if (this.ready.length || this.open.size) this.schedule();
    }
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.sealAll();
    while (this.running || this.ready.length) {
      if (!this.running) this.running = this.drain();
      await this.running;
    }
  }

  get(id: string, environment?: string): Promise<ReplayRecord | null> {
    return this.backend.get(id, environment);
  }

  getAll(id: string, environment?: string): Promise<ReplayRecord[]> {
    return this.backend.getAll(id, environment);
  }

  listing(query: ReplayQuery, cursor: string | null = null): Promise<ReplayListing> {
    return this.backend.listing(query, cursor);
  }

  async list(query: ReplayQuery): Promise<ReplayRecord[]> {
    return (await this.backend.listing(query, null)).records;
  }

  search(query: ReplayQuery, opts: SearchOptions = {}): Promise<SearchSlice> {
    return this.backend.search(query, opts);
  }

  stats(): ReplayStats {
    return { store: this.kind, ...this.counters, queued: this.queuedRecords, queuedBytes: Math.max(0, this.queuedBytes) };
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.flush();
    this.closed = true;
    await this.backend.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Redis

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

export type ReplayKeys = ReturnType<typeof replayKeys>;

/**
 * What one chunk costs its partition's budget in Redis: its deflated body (rounded up by jemalloc
 * by up to 3%), its id list, both key names and ~480 bytes of bookkeeping (two keys with a TTL, an
 * index member, a sizes field). Calibrated with MEMORY and used_memory over 10,000 chunks: 557-614
 * bytes per chunk beyond body and ids, so a partition written one record per chunk (a quiet
 * gateway flushes every REPLAY_FLUSH_MS) holds at most its budget, not twice it.
 */
export function chunkCost(bodyBytes: number, idsBytes: number, keyLength: number): number {
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

/** Chunks whose id lists one FIND call searches: ~40 µs of Redis time each, ~2.5 ms a call. */
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

class RedisBackend implements Backend {
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

// ---------------------------------------------------------------------------------------------
// Embedded: JSONL segments

const SEGMENT = /^replay-(\d{13})-(\d+)-(\d+)\.jsonl$/;

interface Segment {
  file: string;
  startedAt: number;
  size: number;
  mtimeMs: number;
}

/** The record on the line starting at `start`, if it is whole (a torn last line is not) and after `cutoff`. */
function recordLineAt(text: string, start: number, cutoff: number): ReplayRecord | null {
  const end = text.indexOf('\n', start);
  try {
    const r = JSON.parse(text.slice(start, end < 0 ? undefined : end)) as ReplayRecord;
    return Date.parse(r.time) >= cutoff ? r : null;
  } catch {
    return null;
  }
}

class FileBackend implements Backend {
  private current: Segment | null = null;
  private seq = 0;
  private lastAgeSweep = 0;

  constructor(
    private readonly dir: string,
    private readonly settings: ReplaySettings,
    private readonly now: () => number,
  ) {}

  private async segments(): Promise<Segment[]> {
    let names: string[];
    try {
      names = await fsp.readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: Segment[] = [];
    for (const name of names) {
      const m = SEGMENT.exec(name);
      if (!m) continue;
      const file = path.join(this.dir, name);
      try {
        const st = await fsp.stat(file);
        out.push({ file, startedAt: Number(m[1]), size: st.size, mtimeMs: st.mtimeMs });
      } catch {
        // Deleted meanwhile (another process trimming).
      }
    }
    // Oldest first: by start time, then name.
    return out.sort((a, b) => a.startedAt - b.startedAt || a.file.localeCompare(b.file));
  }

  encoder(): BatchEncoder {
    return linesEncoder();
  }

  async write(batch: EncodedBatch): Promise<void> {
    if (batch.count === 0) return;
    const bytes = batch.data.length;
    // Make room first, so the total stays within the bound after the append.
    await this.trim(bytes);
    if (!this.current || this.current.size >= this.settings.segmentBytes) {
      await fsp.mkdir(this.dir, { recursive: true });
      const startedAt = this.now();
      const name = `replay-${String(startedAt).padStart(13, '0')}-${process.pid}-${this.seq++}.jsonl`;
      this.current = { file: path.join(this.dir, name), startedAt, size: 0, mtimeMs: startedAt };
    }
    await fsp.appendFile(this.current.file, batch.data, { mode: 0o600 });
    this.current.size += bytes;
  }

  /**
   * Deletes whole segments, oldest first: those older than the retention, then while the total
   * plus `incoming` bytes would exceed the size bound.
   */
  private async trim(incoming: number): Promise<void> {
    const segs = await this.segments();
    let total = segs.reduce((s, x) => s + x.size, 0);
    const cutoff = this.now() - this.settings.retentionMs;
    const doAgeSweep = this.now() - this.lastAgeSweep > 1000;
    if (doAgeSweep) this.lastAgeSweep = this.now();
    for (const s of segs) {
      const expired = doAgeSweep && s.mtimeMs < cutoff;
      if (!expired && total + incoming <= this.settings.maxBytes) continue;
      try {
        await fsp.unlink(s.file);
        total -= s.size;
      } catch {
        // Already gone (another process trimming).
      }
      if (s.file === this.current?.file) this.current = null;
    }
  }

  /** Segments newest first, limited to those that may hold records at or after `since`. */
  private async newestFirst(since: number): Promise<Segment[]> {
    return (await this.segments()).filter((s) => s.mtimeMs >= since).reverse();
  }

  /** The text of each segment holding records after `cutoff`, newest first (one deleted meanwhile is skipped). */
  private async *segmentTexts(cutoff: number): AsyncGenerator<string> {
    for (const s of await this.newestFirst(cutoff)) {
      try {
        yield await fsp.readFile(s.file, 'utf8');
      } catch {
        // deleted by retention or the size bound since it was listed
      }
    }
  }

  async getAll(id: string): Promise<ReplayRecord[]> {
    const needle = `{"id":${JSON.stringify(id)},`;
    const cutoff = this.now() - this.settings.retentionMs;
    const found: ReplayRecord[] = [];
    for await (const text of this.segmentTexts(cutoff)) {
      for (let at = text.startsWith(needle) ? 0 : text.indexOf(`\n${needle}`); at >= 0; at = text.indexOf(`\n${needle}`, at + 1)) {
        const r = recordLineAt(text, text[at] === '\n' ? at + 1 : at, cutoff);
        if (r) found.push(r);
      }
    }
    return found.sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
  }

  async get(id: string): Promise<ReplayRecord | null> {
    const needle = `{"id":${JSON.stringify(id)},`;
    const cutoff = this.now() - this.settings.retentionMs;
    for await (const text of this.segmentTexts(cutoff)) {
      // The latest record with this id (a reused request id replaces the earlier one).
      const at = text.lastIndexOf(`\n${needle}`);
      const r = at >= 0 ? recordLineAt(text, at + 1, cutoff) : text.startsWith(needle) ? recordLineAt(text, 0, cutoff) : null;
      if (r) return r;
    }
    return null;
  }

  /** A segment is read in pieces of this many bytes' worth of budget. */
  private static readonly UNIT_BYTES = 512 * 1024;

  async peek(from: ScanPosition | null, n: number, since: number): Promise<ScanUnit[]> {
    const cutoff = Math.max(since, this.now() - this.settings.retentionMs);
    // Newest first by start time (stable while a segment grows), then name.
    const segs = (await this.segments()).filter((x) => x.mtimeMs >= cutoff).reverse();
    const out: ScanUnit[] = [];
    let skip = from?.skip ?? 0;
    for (const x of segs) {
      if (from && x.startedAt > from.key) continue;
      if (from && x.startedAt === from.key && skip > 0) {
        skip--;
        continue;
      }
      out.push({ id: x.file, key: x.startedAt, newest: x.mtimeMs, cost: Math.max(1, Math.ceil(x.size / FileBackend.UNIT_BYTES)) });
      if (out.length >= n) break;
    }
    return out;
  }

  scan(unit: ScanUnit, q: ReplayQuery, summary: boolean): Promise<ReplayRecord[]> {
    return scanThread.lines(unit.id, q, summary);
  }

  async close(): Promise<void> {}
}

// ---------------------------------------------------------------------------------------------

export interface ReplayStoreOptions {
  redis: RedisClient | null;
  dataDir: string;
  settings: ReplaySettings;
  now?: () => number;
  onError?: (err: unknown, what: string) => void;
}

export function replayDir(dataDir: string): string {
  return path.join(dataDir, 'replay');
}

export function createReplayStore(opts: ReplayStoreOptions): ReplayStore {
  const now = opts.now ?? Date.now;
  const onError = opts.onError ?? (() => {});
  const redis = opts.redis;
  const dir = replayDir(opts.dataDir);
  if (!redis) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      onError(err, 'replay directory');
    }
  }
  const backend = new PartitionedBackend(
    (partition, settings) =>
      redis ? new RedisBackend(redis, settings, now, replayKeys(partition)) : new FileBackend(path.join(dir, partition), settings, now),
    opts.settings,
  );
  return new QueuedReplayStore(redis ? 'redis' : 'embedded', backend, opts.settings, onError);
}

// ---------------------------------------------------------------------------------------------
// Partitions

/** Environments in lookup order: keyed first, so a keyless record never shadows a keyed one. */
const PARTITION_ENVIRONMENTS = ['production', 'certification', 'playground'];

/** The partition of a record: its environment (an unknown one counts as keyless), personal data apart. */
export function partitionOf(record: Pick<ReplayRecord, 'environment' | 'personalData'>): string {
  const env = PARTITION_ENVIRONMENTS.includes(record.environment) ? record.environment : 'playground';
  return record.personalData ? `${env}.personal` : env;
}

/** The settings of one partition: its own budget, retention and segment size. */
export function partitionSettings(partition: string, s: ReplaySettings): ReplaySettings {
  const personal = partition.endsWith('.personal');
  const maxBytes = personal ? s.personal.maxBytes : partition === 'playground' ? s.playgroundMaxBytes : s.maxBytes;
  return {
    ...s,
    maxBytes,
    retentionMs: personal ? s.personal.retentionMs : s.retentionMs,
    segmentBytes: Math.max(1024, Math.min(s.segmentBytes, Math.floor(maxBytes / 8))),
  };
}

class PartitionedBackend {
  private readonly parts = new Map<string, Backend>();
  private readonly order: string[] = PARTITION_ENVIRONMENTS.flatMap((e) => [e, `${e}.personal`]);

  constructor(
    private readonly make: (partition: string, settings: ReplaySettings) => Backend,
    private readonly settings: ReplaySettings,
  ) {}

  private part(name: string): Backend {
    let b = this.parts.get(name);
    if (!b) this.parts.set(name, (b = this.make(name, partitionSettings(name, this.settings))));
    return b;
  }

  private partitionsOf(environment: string | undefined): string[] {
    return environment === undefined ? this.order : this.order.filter((p) => p.split('.')[0] === environment);
  }

  encoder(partition: string): BatchEncoder {
    return this.part(partition).encoder();
  }

  write(partition: string, batch: EncodedBatch): Promise<void> {
    return this.part(partition).write(batch);
  }

  async get(id: string, environment?: string): Promise<ReplayRecord | null> {
    for (const p of this.partitionsOf(environment)) {
      const r = await this.part(p).get(id);
      if (r) return r;
    }
    return null;
  }

  async getAll(id: string, environment?: string): Promise<ReplayRecord[]> {
    const found = await Promise.all(this.partitionsOf(environment).map((p) => this.part(p).getAll(id)));
    return found.flat().sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
  }

  async listing(q: ReplayQuery, cursor: string | null): Promise<ReplayListing> {
    const limit = q.limit ?? 50;
    const records: ReplayRecord[] = [];
    let units = 0;
    for (let next = cursor; ;) {
      const slice = await this.search({ ...q, limit }, { cursor: next, maxUnits: LIST_UNITS - units });
      units += slice.units;
      records.push(...slice.records);
      records.sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
      next = slice.next;
      // Limit reached: the newest `limit` are the answer once no unread unit can hold a newer one
      // (instances interleave their chunks). Past it the cursor is not offered: it would skip the
      // rest of the last unit read.
      const full = records.length >= limit;
      if (next === null || (full && (units >= LIST_UNITS || (slice.searchedBack ?? 0) < Date.parse(records[limit - 1]!.time))))
        return { records: records.slice(0, limit), complete: true };
      if (units >= LIST_UNITS) return { records, complete: false, searchedBack: slice.searchedBack, next };
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.parts.values()].map((b) => b.close()));
  }

  /**
   * A bounded slice of a search: units are taken newest first across the partitions (always the
   * partition whose next unit holds the newest records), read one at a time with a yield to the
   * event loop between them, until the budget is spent or `limit` records matched.
   */
  async search(q: ReplayQuery, opts: SearchOptions): Promise<SearchSlice> {
    const budget = Math.max(1, opts.maxUnits ?? SEARCH_UNITS);
    const limit = q.limit ?? 50;
    const positions = decodeCursor(opts.cursor);
    const since = q.since ?? 0;
    const queues = new Map<string, ScanUnit[]>();
    for (const p of this.partitionsOf(q.environment)) {
      if (positions[p] === 'done') continue;
      const pos = positions[p] as ScanPosition | undefined;
      const units = await this.part(p).peek(pos ?? null, budget + 1, since);
      queues.set(p, units);
      if (units.length === 0) positions[p] = 'done';
    }
    const out: ReplayRecord[] = [];
    let spent = 0;
    let units = 0;
    while (spent < budget && out.length < limit) {
      let best: string | null = null;
      for (const [p, qu] of queues) if (qu.length && (best === null || qu[0]!.newest > queues.get(best)![0]!.newest)) best = p;
      if (best === null) break;
      const unit = queues.get(best)!.shift()!;
      if (units > 0 && spent + unit.cost > budget) break;
      out.push(...(await this.part(best).scan(unit, q, opts.summary === true)));
      spent += unit.cost;
      units++;
      const prev = positions[best];
      positions[best] = { key: unit.key, skip: typeof prev === 'object' && prev.key === unit.key ? prev.skip + 1 : 1 };
      if (queues.get(best)!.length === 0) {
        // Peeked budget + 1: an empty queue after reading means nothing older is left.
        positions[best] = 'done';
        queues.delete(best);
      }
      await yieldToLoop();
    }
    const left = [...queues.values()].filter((qu) => qu.length);
    out.sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
    return {
      records: out,
      next: left.length ? encodeCursor(positions) : null,
      units,
      ...(left.length ? { searchedBack: Math.max(...left.map((qu) => qu[0]!.newest)) } : {}),
    };
  }
}

type Positions = Record<string, ScanPosition | 'done'>;

function encodeCursor(positions: Positions): string {
  return Buffer.from(JSON.stringify(positions)).toString('base64url');
}

/** Whether `cursor` is one a search or listing gave (tools are told of a typo; a browser's search just starts over). */
export function isSearchCursor(cursor: string): boolean {
  return Object.keys(decodeCursor(cursor)).length > 0;
}

/** A cursor as sent back by a browser: anything malformed starts from the newest. */
function decodeCursor(cursor: string | null | undefined): Positions {
  if (!cursor || cursor.length > 2000) return {};
  try {
    const raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const out: Positions = {};
    for (const [k, v] of Object.entries(raw ?? {})) {
      if (!PARTITION_ENVIRONMENTS.includes(k.replace(/\.personal$/, ''))) continue;
      if (v === 'done') out[k] = 'done';
      else if (v && typeof v === 'object' && Number.isFinite((v as ScanPosition).key) && Number.isInteger((v as ScanPosition).skip))
        out[k] = { key: (v as ScanPosition).key, skip: Math.max(0, (v as ScanPosition).skip) };
    }
    return out;
  } catch {
    return {};
  }
}
