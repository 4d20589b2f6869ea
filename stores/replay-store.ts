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
// - Redis (REDIS_URL, replay-redis.ts): one chunk per written batch (up to 500 records) with a TTL of the
//   retention, in the format of replay-chunk.ts (a cached answer sent 500 times is one body and 500
//   small records, deflated together: docs/benchmark.md, "Replay storage in Redis") and its request
//   ids, one per line; a sorted-set index of chunks by their newest record, a hash of chunk sizes
//   and a byte counter. A record is found by its id by searching the chunks' id lists inside Redis,
//   newest first, a page of chunks per call (FIND_LUA): support looks a request up now and then,
//   while every answer writes a record, and an index entry per id was most of Redis' CPU per record
//   (docs/benchmark.md, "Replay storage in Redis"). Ids that an earlier version indexed in a hash
//   (`ids`) are still found there, and dropped with their chunks. Retention and the size bound drop
//   whole chunks, oldest first. All keys share the hash tag `{replay}` so the Lua scripts that keep
//   them consistent also run on Redis Cluster.
// - Embedded (no Redis, replay-segments.ts): append-only JSONL segment files under <DATA_DIR>/replay/, rotated by
//   size; whole segments are deleted when older than the retention or when the total exceeds the
//   size bound (so the bound holds to within one segment).
import fs from 'node:fs';
import path from 'node:path';
import type { RedisClient } from '../cache/redis-health.js';
import type { ReplaySettings } from './replay-settings.js';
import type { ReplayRecord } from './replay-record.js';
import type { ReplayQuery } from './replay-match.js';
import type { BatchEncoder, EncodedBatch } from './replay-chunk.js';
import type { Backend, ScanPosition, ScanUnit } from './replay-backend.js';
import { RedisBackend, replayKeys } from './replay-redis.js';
import { FileBackend } from './replay-segments.js';

export { decodeChunk, encodeChunk, unpackChunk } from './replay-chunk.js';
export { REPLAY_KEYS, replayKeys } from './replay-redis.js';

export type { ReplayRecord, ReplayUpstreamCall } from './replay-record.js';
export { bodyUnread, statusMatches, type ReplayQuery } from './replay-match.js';

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
const SEARCH_UNITS = 32;

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

const BATCH = 500;
const FLUSH_DELAY_MS = 50;
/**
 * Pauses before each retry of a failed batch write, doubling from 200 ms up to 2 s, within
 * `budgetMs` in all (default 10 s: a Sentinel or Cluster failover with down-after / node-timeout
 * of a few seconds). Then the batch is dropped and counted; new records wait in the bounded queue.
 */
function retryPauses(budgetMs: number): number[] {
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
            // Written and answered: nothing reads its buffers any more (a failed write's are left
            // to the collector: the command may still be queued in the client).
            batch.release();
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

interface ReplayStoreOptions {
  redis: RedisClient | null;
  dataDir: string;
  settings: ReplaySettings;
  now?: () => number;
  onError?: (err: unknown, what: string) => void;
}

function replayDir(dataDir: string): string {
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
function partitionOf(record: Pick<ReplayRecord, 'environment' | 'personalData'>): string {
  const env = PARTITION_ENVIRONMENTS.includes(record.environment) ? record.environment : 'playground';
  return record.personalData ? `${env}.personal` : env;
}

/** The settings of one partition: its own budget, retention and segment size. */
function partitionSettings(partition: string, s: ReplaySettings): ReplaySettings {
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
    // A batch whose write timed out after Redis had applied it is written again: the same record
    // twice is one record (two requests that merely share an id differ in time or content).
    const seen = new Set<string>();
    const unique = found.flat().filter((r) => {
      const whole = JSON.stringify(r);
      return !seen.has(whole) && Boolean(seen.add(whole));
    });
    return unique.sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
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
