// The replay log: one record per request (what the partner sent and exactly what it received),
// kept for support, bounded by age (REPLAY_RETENTION, default 7 days) and by total size
// (REPLAY_MAX_BYTES, default 256 MiB), oldest first.
//
// Writing never slows or fails a request: records go into a bounded in-memory queue (count and
// bytes) and are written in batches in the background. A full queue or a store outage drops
// records and counts them (`dropped`); nothing is retried forever.
//
// Stores:
// - Redis (REDIS_URL): one string per record with a TTL of the retention, a sorted-set index by
//   time, a hash of record sizes and a byte counter. All keys share the hash tag `{replay}` so the
//   Lua scripts that keep the index and the byte count consistent also run on Redis Cluster.
// - Embedded (no Redis): append-only JSONL segment files under <DATA_DIR>/replay/, rotated by
//   size; whole segments are deleted when older than the retention or when the total exceeds the
//   size bound (so the bound holds to within one segment).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isRedisUp, type RedisClient } from './redis-connection.js';
import type { ReplaySettings } from './cache-config.js';

export interface ReplayUpstreamCall {
  feed: string;
  url: string;
  status: number | null;
  durationMs: number;
  error?: string;
}

export interface ReplayRecord {
  /** The request id (x-request-id). */
  id: string;
  /** When the request was received, ISO 8601. */
  time: string;
  environment: string;
  partnerCode: string | null;
  clientIp: string;
  operationName: string | null;
  /** The operation text as sent (null when the request had no readable body). */
  query: string | null;
  variables: Record<string, unknown> | null;
  status: number;
  /** The exact body sent. */
  responseBody: string;
  /** The headers that matter for support: x-request-id, x-cache, age, X-RateLimit-*, Retry-After. */
  responseHeaders: Record<string, string>;
  fromCache: boolean;
  cache: string | null;
  upstreamCalls: ReplayUpstreamCall[];
  durationMs: number;
  /** Plugins' notes (allowance state, key id, cache level). */
  notes?: Record<string, unknown>;
}

export interface ReplayQuery {
  partner?: string;
  /** ms since epoch: records at or after. */
  since?: number;
  until?: number;
  /** "200", "429", "4xx", "5xx"... */
  status?: string;
  environment?: string;
  limit?: number;
}

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
  get(id: string): Promise<ReplayRecord | null>;
  /** Newest first. */
  list(query: ReplayQuery): Promise<ReplayRecord[]>;
  stats(): ReplayStats;
  close(): Promise<void>;
}

/** Process-wide counters over every replay store, for metrics. */
export const replayStats = { enqueued: 0, written: 0, dropped: 0, writeErrors: 0 };

export function statusMatches(status: number, filter: string | undefined): boolean {
  if (!filter) return true;
  const f = filter.trim().toLowerCase();
  const m = /^([1-5])xx$/.exec(f);
  if (m) return Math.floor(status / 100) === Number(m[1]);
  return String(status) === f;
}

export function recordMatches(r: ReplayRecord, q: ReplayQuery): boolean {
  if (q.partner !== undefined && r.partnerCode !== q.partner) return false;
  if (q.environment !== undefined && r.environment !== q.environment) return false;
  if (!statusMatches(r.status, q.status)) return false;
  const t = Date.parse(r.time);
  if (q.since !== undefined && t < q.since) return false;
  if (q.until !== undefined && t > q.until) return false;
  return true;
}

/** Approximate memory of a queued record, for the queue's byte bound. */
function approxSize(r: ReplayRecord): number {
  return 512 + r.responseBody.length + (r.query?.length ?? 0);
}

interface Backend {
  write(lines: { record: ReplayRecord; json: string }[]): Promise<void>;
  get(id: string): Promise<ReplayRecord | null>;
  list(q: ReplayQuery): Promise<ReplayRecord[]>;
  close(): Promise<void>;
}

const BATCH = 500;
const FLUSH_DELAY_MS = 50;

class QueuedReplayStore implements ReplayStore {
  private queue: ReplayRecord[] = [];
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private counters = { enqueued: 0, written: 0, dropped: 0, writeErrors: 0 };
  private closed = false;

  constructor(
    readonly kind: 'redis' | 'embedded',
    private readonly backend: Backend,
    private readonly settings: ReplaySettings,
    private readonly onError: (err: unknown, what: string) => void,
  ) {}

  enqueue(record: ReplayRecord): void {
    try {
      if (this.closed) return this.noteDropped();
      const size = approxSize(record);
      if (this.queue.length >= this.settings.queueMaxRecords || this.queuedBytes + size > this.settings.queueMaxBytes) {
        return this.noteDropped();
      }
      this.queue.push(record);
      this.queuedBytes += size;
      this.counters.enqueued++;
      replayStats.enqueued++;
      this.schedule();
    } catch {
      this.noteDropped();
    }
  }

  noteDropped(n = 1): void {
    this.counters.dropped += n;
    replayStats.dropped += n;
  }

  private schedule(): void {
    if (this.running) return;
    if (this.queue.length >= BATCH) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.running = this.drain();
      return;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        if (!this.running) this.running = this.drain();
      }, FLUSH_DELAY_MS);
      this.timer.unref?.();
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, BATCH);
        for (const r of batch) this.queuedBytes -= approxSize(r);
        const lines: { record: ReplayRecord; json: string }[] = [];
        for (const record of batch) {
          try {
            lines.push({ record, json: JSON.stringify(record) });
          } catch {
            this.noteDropped();
          }
        }
        try {
          await this.backend.write(lines);
          this.counters.written += lines.length;
          replayStats.written += lines.length;
        } catch (err) {
          this.counters.writeErrors++;
          replayStats.writeErrors++;
          this.noteDropped(lines.length);
          this.onError(err, 'replay write');
        }
      }
    } finally {
      this.queuedBytes = Math.max(0, this.queuedBytes);
      this.running = null;
    }
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.running || this.queue.length) {
      if (!this.running) this.running = this.drain();
      await this.running;
    }
  }

  get(id: string): Promise<ReplayRecord | null> {
    return this.backend.get(id);
  }

  list(query: ReplayQuery): Promise<ReplayRecord[]> {
    return this.backend.list(query);
  }

  stats(): ReplayStats {
    return { store: this.kind, ...this.counters, queued: this.queue.length, queuedBytes: Math.max(0, this.queuedBytes) };
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.backend.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Redis

export const REPLAY_KEYS = {
  record: (id: string) => `epg:{replay}:rec:${id}`,
  recordPrefix: 'epg:{replay}:rec:',
  index: 'epg:{replay}:index',
  sizes: 'epg:{replay}:sizes',
  bytes: 'epg:{replay}:bytes',
};

// KEYS: record, index, sizes, bytes. ARGV: id, json, score (ms), ttl (ms).
// A reused request id replaces the earlier record and its size.
const PUT_LUA = `
local old = redis.call('HGET', KEYS[3], ARGV[1])
if old then redis.call('DECRBY', KEYS[4], old) end
local size = string.len(ARGV[2])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], size)
redis.call('INCRBY', KEYS[4], size)
return size
`;

// KEYS: index, sizes, bytes. ARGV: cutoff score, max bytes, record key prefix, max removals.
// Removes records older than the cutoff, then the oldest while the total exceeds the bound.
const TRIM_LUA = `
local removed = 0
local limit = tonumber(ARGV[4])
local function drop(id)
  local s = redis.call('HGET', KEYS[2], id)
  if s then redis.call('DECRBY', KEYS[3], s) end
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('DEL', ARGV[3] .. id)
  removed = removed + 1
end
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, limit)
for _, id in ipairs(old) do drop(id) end
local max = tonumber(ARGV[2])
while removed < limit do
  local total = tonumber(redis.call('GET', KEYS[3]) or '0')
  if total <= max then break end
  local ids = redis.call('ZRANGE', KEYS[1], 0, 0)
  if #ids == 0 then
    redis.call('SET', KEYS[3], 0)
    break
  end
  drop(ids[1])
end
return removed
`;

type ScriptedRedis = RedisClient & {
  epgReplayPut(...args: (string | number | Buffer)[]): Promise<number>;
  epgReplayTrim(...args: (string | number)[]): Promise<number>;
};

function defineScripts(redis: RedisClient): ScriptedRedis {
  const r = redis as ScriptedRedis;
  if (typeof r.epgReplayPut !== 'function') redis.defineCommand('epgReplayPut', { numberOfKeys: 4, lua: PUT_LUA });
  if (typeof r.epgReplayTrim !== 'function') redis.defineCommand('epgReplayTrim', { numberOfKeys: 3, lua: TRIM_LUA });
  return r;
}

class RedisBackend implements Backend {
  private readonly redis: ScriptedRedis;

  constructor(redis: RedisClient, private readonly settings: ReplaySettings, private readonly now: () => number) {
    this.redis = defineScripts(redis);
  }

  async write(lines: { record: ReplayRecord; json: string }[]): Promise<void> {
    if (!isRedisUp(this.redis)) throw new Error('Redis is down');
    const p = this.redis.pipeline() as unknown as {
      epgReplayPut(...a: (string | number | Buffer)[]): void;
      epgReplayTrim(...a: (string | number)[]): void;
      exec(): Promise<[Error | null, unknown][] | null>;
    };
    for (const { record, json } of lines) {
      const t = Date.parse(record.time);
      // A Buffer goes to the socket as is; a long string would be copied into the command text.
      p.epgReplayPut(REPLAY_KEYS.record(record.id), REPLAY_KEYS.index, REPLAY_KEYS.sizes, REPLAY_KEYS.bytes, record.id, Buffer.from(json), Number.isFinite(t) ? t : this.now(), this.settings.retentionMs);
    }
    p.epgReplayTrim(REPLAY_KEYS.index, REPLAY_KEYS.sizes, REPLAY_KEYS.bytes, this.now() - this.settings.retentionMs, this.settings.maxBytes, REPLAY_KEYS.recordPrefix, 10_000);
    const res = await p.exec();
    const failed = (res ?? []).find(([err]) => err);
    if (!res || failed) throw failed?.[0] ?? new Error('Redis pipeline failed');
  }

  async get(id: string): Promise<ReplayRecord | null> {
    const raw = await this.redis.get(REPLAY_KEYS.record(id));
    return raw ? (JSON.parse(raw) as ReplayRecord) : null;
  }

  async list(q: ReplayQuery): Promise<ReplayRecord[]> {
    const limit = q.limit ?? 50;
    const min = Math.max(q.since ?? 0, this.now() - this.settings.retentionMs);
    const max = q.until === undefined ? '+inf' : String(q.until);
    const out: ReplayRecord[] = [];
    let offset = 0;
    const PAGE = 200;
    // Bounded scan: the index holds at most the retention window.
    while (out.length < limit && offset < 1_000_000) {
      const ids = await this.redis.zrevrangebyscore(REPLAY_KEYS.index, max, String(min), 'LIMIT', offset, PAGE);
      if (ids.length === 0) break;
      offset += ids.length;
      const values = await this.redis.mget(...ids.map(REPLAY_KEYS.record));
      for (const raw of values) {
        if (!raw) continue;
        const r = JSON.parse(raw) as ReplayRecord;
        if (recordMatches(r, q)) out.push(r);
        if (out.length >= limit) break;
      }
    }
    return out;
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

class FileBackend implements Backend {
  private current: Segment | null = null;
  private seq = 0;
  private lastAgeSweep = 0;

  constructor(private readonly dir: string, private readonly settings: ReplaySettings, private readonly now: () => number) {}

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

  async write(lines: { record: ReplayRecord; json: string }[]): Promise<void> {
    if (lines.length === 0) return;
    const text = lines.map((l) => l.json).join('\n') + '\n';
    const bytes = Buffer.byteLength(text);
    // Make room first, so the total stays within the bound after the append.
    await this.trim(bytes);
    if (!this.current || this.current.size >= this.settings.segmentBytes) {
      await fsp.mkdir(this.dir, { recursive: true });
      const startedAt = this.now();
      const name = `replay-${String(startedAt).padStart(13, '0')}-${process.pid}-${this.seq++}.jsonl`;
      this.current = { file: path.join(this.dir, name), startedAt, size: 0, mtimeMs: startedAt };
    }
    await fsp.appendFile(this.current.file, text, { mode: 0o600 });
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

  async get(id: string): Promise<ReplayRecord | null> {
    const needle = `{"id":${JSON.stringify(id)},`;
    const cutoff = this.now() - this.settings.retentionMs;
    for (const s of await this.newestFirst(cutoff)) {
      let text: string;
      try {
        text = await fsp.readFile(s.file, 'utf8');
      } catch {
        continue;
      }
      // The latest record with this id (a reused request id replaces the earlier one).
      let at = text.lastIndexOf(`\n${needle}`);
      if (at >= 0) at += 1;
      else if (text.startsWith(needle)) at = 0;
      if (at < 0) continue;
      const end = text.indexOf('\n', at);
      try {
        const r = JSON.parse(text.slice(at, end < 0 ? undefined : end)) as ReplayRecord;
        if (Date.parse(r.time) >= cutoff) return r;
      } catch {
        // A torn last line (crash mid-write): ignore.
      }
    }
    return null;
  }

  async list(q: ReplayQuery): Promise<ReplayRecord[]> {
    const limit = q.limit ?? 50;
    const since = Math.max(q.since ?? 0, this.now() - this.settings.retentionMs);
    const query = { ...q, since };
    const out: ReplayRecord[] = [];
    for (const s of await this.newestFirst(since)) {
      let text: string;
      try {
        text = await fsp.readFile(s.file, 'utf8');
      } catch {
        continue;
      }
      const lines = text.split('\n');
      const batch: ReplayRecord[] = [];
      for (const line of lines) {
        if (!line) continue;
        try {
          const r = JSON.parse(line) as ReplayRecord;
          if (recordMatches(r, query)) batch.push(r);
        } catch {
          // torn line
        }
      }
      batch.sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
      for (const r of batch) {
        out.push(r);
        if (out.length >= limit) break;
      }
      if (out.length >= limit) break;
    }
    // Several writers (processes) may interleave segments: order the page by time.
    return out.sort((a, b) => Date.parse(b.time) - Date.parse(a.time)).slice(0, limit);
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
  if (opts.redis) return new QueuedReplayStore('redis', new RedisBackend(opts.redis, opts.settings, now), opts.settings, onError);
  const dir = replayDir(opts.dataDir);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    onError(err, 'replay directory');
  }
  return new QueuedReplayStore('embedded', new FileBackend(dir, opts.settings, now), opts.settings, onError);
}
