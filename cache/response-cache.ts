// The response cache: an in-process LRU bounded by bytes in front of Redis (shared by every gateway
// instance); the LRU alone without Redis. It stores the exact serialized body a partner received.
//
// Keys keep apart what must never mix: environment and schema variant (the playground hides
// fields), the normalized operation, operation name and variables (canonical JSON), the partner
// when answers depend on it, the config generation, the schema, and a purge epoch per root field.
// Purging bumps an epoch in Redis and tells every instance over pub/sub; old entries become
// unreachable at once, and are dropped from Redis (response-cache-redis.ts, which also keeps the
// Redis level within CACHE_REDIS_MAX_BYTES).
//
// Redis trouble never fails a request: reads give up after a short timeout, writes are
// fire-and-forget, and both are counted (responseCacheStats).
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { canReach, noteRedisFailure, redisDeadline as withTimeout, redisHealth, type RedisClient } from './redis-health.js';
import { schemaPolicy } from '../resolvers/schema-policy.js';
import type { CacheSettings, TtlRule } from './cache-config.js';
import { announce, PURGE_TOPIC, type InstanceBus } from './instance-registry.js';
import { purgeRedisEntries, redisEntryKey, storeInRedis } from './response-cache-redis.js';

export type SchemaVariant = 'keyed' | 'playground';

export const EPOCHS_KEY = 'epg:cache:epochs';
/** Epoch field bumped by `purge --all`. */
const ALL_FIELDS = '*';

export interface CachedEntry {
  body: string;
  /** The body as UTF-8 bytes, made on the first hit served from this process (see bodyBytes). */
  bytes?: Buffer;
  /** ms since epoch. */
  storedAt: number;
  ttlMs: number;
  /** Root fields of the operation (purge by field drops these from the LRU). */
  fields: string[];
}

export interface CacheLookup {
  entry: CachedEntry;
  level: 'lru' | 'redis';
  ageSeconds: number;
}

/** What the cache needs to know about an operation. */
interface CacheableOperation {
  operationType: 'query' | 'mutation' | 'subscription';
  rootFields: string[];
  introspectionOnly: boolean;
}

export type CachePolicy =
  | { cacheable: true; fields: string[]; ttlMs: number }
  | { cacheable: false; reason: 'disabled' | 'not a query' | 'introspection' | 'personal data' | 'ttl 0' };

export interface KeyInput {
  environment: string;
  variant: SchemaVariant;
  /** Normalized operation text (PreparedOperation.normalized). */
  normalized: string;
  operationName: string | null | undefined;
  variables: Record<string, unknown> | null | undefined;
  /** Only when answers depend on the partner (FILL_PARTNER_REF puts it into enrollment URLs). */
  partnerCode?: string | null;
}

interface ResponseCacheStats {
  hits: number;
  lruHits: number;
  redisHits: number;
  misses: number;
  bypasses: number;
  stores: number;
  /** Answers not stored: errors, stale data, upstream no-store, too large. */
  notStored: number;
  cacheReadErrors: number;
  cacheWriteErrors: number;
  evictions: number;
  purges: number;
}

const zeroStats = (): ResponseCacheStats => ({
  hits: 0,
  lruHits: 0,
  redisHits: 0,
  misses: 0,
  bypasses: 0,
  stores: 0,
  notStored: 0,
  cacheReadErrors: 0,
  cacheWriteErrors: 0,
  evictions: 0,
  purges: 0,
});

/** Process-wide counters over every cache instance, for metrics. */
export const responseCacheStats: ResponseCacheStats = zeroStats();

export interface PurgeTarget {
  /** Root fields to purge; ignored when all is true. */
  fields?: string[];
  all?: boolean;
}

export interface PurgeResult {
  /** 'all instances' when Redis carried the purge; 'this instance' without Redis. */
  reach: 'all instances' | 'this instance';
  epochs: Record<string, number>;
  /** Gateway instances that confirmed they applied the purge (Redis only). */
  instancesNotified?: number;
  /** Gateway instances registered as live when it was sent (Redis only). */
  instancesLive?: number;
  /** Stored answers dropped from Redis (Redis only). */
  redisEntriesDropped?: number;
}

interface ResponseCacheOptions {
  settings: CacheSettings;
  redis: RedisClient | null;
  /** Identifies each schema variant's schema (e.g. a hash of its SDL): a schema change is a new key space. */
  schemaIds?: Partial<Record<SchemaVariant, string>>;
  now?: () => number;
  onError?: (err: unknown, what: string) => void;
  /** This process' instance bus (with Redis): purge messages of other instances, acknowledged. */
  bus?: InstanceBus | null;
}

// ---------------------------------------------------------------------------------------------
// Pure helpers

/** Deeper than the request checks allow (MAX_VARIABLES_DEPTH in http/request-body.ts), with margin. */
const CANONICAL_MAX_DEPTH = 64;

/** JSON with object keys sorted at every level, so {a,b} and {b,a} give the same text. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  // Client input reaches this (variables): never recurse without a bound.
  if (depth >= CANONICAL_MAX_DEPTH) throw new RangeError(`canonicalJson: nested more than ${CANONICAL_MAX_DEPTH} levels`);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v, depth + 1))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k], depth + 1)}`).join(',')}}`;
}

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();
function secondsOfDay(now: Date, timeZone: string): number {
  let f = zoneFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    zoneFormatters.set(timeZone, f);
  }
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(now)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return ((parts.hour ?? 0) % 24) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0);
}

/**
 * Milliseconds from `now` to the next local wall-clock time `hhmm` in a time zone. Computed from
 * the current local time of day, so on a DST change day it can be off by the shift (one hour);
 * rules using it carry a `max` for that reason.
 */
export function msUntilLocalTime(now: Date, timeZone: string, hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  const target = h * 3600 + m * 60;
  let delta = target - secondsOfDay(now, timeZone);
  if (delta <= 0) delta += 86_400;
  return Math.max(1, delta * 1000 - now.getUTCMilliseconds());
}

function ruleMs(rule: TtlRule, now: Date): number {
  if (rule.kind === 'fixed') return rule.ms;
  let min = rule.maxMs;
  for (const zone of rule.timeZones) for (const t of rule.times) min = Math.min(min, msUntilLocalTime(now, zone, t));
  return min;
}

/** Cacheability and TTL of an operation: the minimum TTL over its root fields. */
export function cachePolicy(settings: CacheSettings, op: CacheableOperation, now: Date): CachePolicy {
  if (!settings.enabled) return { cacheable: false, reason: 'disabled' };
  if (op.operationType !== 'query') return { cacheable: false, reason: 'not a query' };
  if (op.introspectionOnly) return { cacheable: false, reason: 'introspection' };
  const fields = [...new Set(op.rootFields.filter((f) => !f.startsWith('__')))].sort();
  if (fields.length === 0) return { cacheable: false, reason: 'introspection' };
  if (schemaPolicy.selectsPersonalData(fields)) return { cacheable: false, reason: 'personal data' };
  let ttlMs = Infinity;
  for (const f of fields) ttlMs = Math.min(ttlMs, ruleMs(settings.ttl[f] ?? settings.defaultTtl, now));
  if (!(ttlMs > 0) || !Number.isFinite(ttlMs)) return { cacheable: false, reason: 'ttl 0' };
  return { cacheable: true, fields, ttlMs };
}

/** An upstream Cache-Control max-age (seconds) may shorten the TTL, never lengthen it. */
export function shortenByUpstream(ttlMs: number, upstreamMaxAge: number | null): number {
  if (upstreamMaxAge === null || !Number.isFinite(upstreamMaxAge)) return ttlMs;
  return Math.max(0, Math.min(ttlMs, upstreamMaxAge * 1000));
}

function encodeEntry(e: CachedEntry): string {
  return `1|${e.storedAt}|${e.ttlMs}|${e.fields.join(',')}|${e.body}`;
}

function decodeEntry(raw: string): CachedEntry | null {
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < 4; i++) {
    const at = raw.indexOf('|', from);
    if (at < 0) return null;
    parts.push(raw.slice(from, at));
    from = at + 1;
  }
  if (parts[0] !== '1') return null;
  const storedAt = Number(parts[1]);
  const ttlMs = Number(parts[2]);
  if (!Number.isFinite(storedAt) || !Number.isFinite(ttlMs)) return null;
  return { storedAt, ttlMs, fields: parts[3] ? parts[3].split(',') : [], body: raw.slice(from) };
}

/**
 * Bumps purge epochs in Redis and tells every instance, while the answers it made unreachable are
 * dropped from Redis. Used by the gateway (admin endpoint) and by `npm run cache -- purge`. Returns
 * the new epochs, how many gateway instances confirmed they applied it (waiting up to `ackWaitMs`
 * for every live one: cache/instance-registry.ts), how many were live and how many stored answers
 * were dropped.
 */
export async function purgeInRedis(
  redis: RedisClient,
  target: PurgeTarget,
  ackWaitMs?: number,
  onError: (err: unknown) => void = () => {},
): Promise<{ epochs: Record<string, number>; receivers: number; live: number; dropped: number }> {
  const fields = target.all ? [ALL_FIELDS] : [...new Set(target.fields ?? [])];
  if (fields.length === 0) throw new Error('nothing to purge: name --field or --all');
  const multi = redis.multi();
  for (const f of fields) multi.hincrby(EPOCHS_KEY, f, 1);
  const res = await multi.exec();
  const epochs: Record<string, number> = {};
  fields.forEach((f, i) => {
    const [err, value] = res?.[i] ?? [new Error('no reply'), null];
    if (err) throw err;
    epochs[f] = Number(value);
  });
  const [{ applied, live }, dropped] = await Promise.all([
    announce(redis, PURGE_TOPIC, { fields, epochs }, ackWaitMs),
    purgeRedisEntries(redis, fields, onError),
  ]);
  return { epochs, receivers: applied, live, dropped };
}

// ---------------------------------------------------------------------------------------------

/**
 * What one in-process entry holds beyond its body and key, checked against the V8 heap by
 * test/unit/response-cache-cost.test.ts: the entry object, its fields array, the LRU's node, and
 * once served the Buffer object beside its bytes.
 */
const LRU_ENTRY_OVERHEAD = 600;

/** The body twice (its text, and its bytes once served), the key, and the overhead. */
const lruEntryCost = (key: string, body: string) => 2 * Buffer.byteLength(body) + key.length + LRU_ENTRY_OVERHEAD;

export class ResponseCache {
  readonly settings: CacheSettings;
  readonly stats: ResponseCacheStats = zeroStats();
  private readonly redis: RedisClient | null;
  private readonly lru: LRUCache<string, CachedEntry>;
  private readonly now: () => number;
  private readonly schemaIds: Partial<Record<SchemaVariant, string>>;
  private readonly onError: (err: unknown, what: string) => void;
  private epochs = new Map<string, number>();
  /** Bumped whenever an epoch changes: epochVector answers from its memo until then. */
  private epochSeq = 0;
  private readonly vectors = new WeakMap<string[], { seq: number; text: string }>();
  private readonly bus: InstanceBus | null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(opts: ResponseCacheOptions) {
    this.settings = opts.settings;
    this.redis = opts.redis;
    this.now = opts.now ?? Date.now;
    this.schemaIds = opts.schemaIds ?? {};
    this.onError = opts.onError ?? (() => {});
    this.bus = opts.bus ?? null;
    this.lru = new LRUCache<string, CachedEntry>({
      maxSize: opts.settings.lruBytes,
      maxEntrySize: Math.min(opts.settings.lruBytes, 2 * opts.settings.maxEntryBytes + LRU_ENTRY_OVERHEAD + 1024),
      sizeCalculation: (e, key) => lruEntryCost(key, e.body),
      dispose: (_v, _k, reason) => {
        if (reason === 'evict') this.bump('evictions');
      },
    });
  }

  /**
   * Reads purge epochs and serves purge messages on the instance bus (no-op without Redis).
   * Bounded: epochs that cannot be read now are read by the periodic refresh.
   */
  async start(): Promise<void> {
    if (!this.redis) return;
    await this.refreshEpochs();
    // Messages may have been missed before a (re)subscription: re-read the epochs then.
    this.bus?.serve(
      PURGE_TOPIC,
      (message) => this.onPurgeMessage(message),
      () => void this.refreshEpochs(),
    );
    this.refreshTimer = setInterval(() => void this.refreshEpochs(), this.settings.epochRefreshMs);
    this.refreshTimer.unref();
  }

  get lruBytes(): number {
    return this.lru.calculatedSize;
  }

  get lruEntries(): number {
    return this.lru.size;
  }

  get redisState(): 'shared' | 'partial' | 'down' | 'off' {
    if (!this.redis) return 'off';
    const { state } = redisHealth(this.redis);
    return state === 'up' ? 'shared' : state;
  }

  policy(op: CacheableOperation): CachePolicy {
    return cachePolicy(this.settings, op, new Date(this.now()));
  }

  /** TTL to store an answer with, at store time (fields' TTLs, shortened by upstream max-age). */
  storeTtl(fields: string[], upstreamMaxAge: number | null): number {
    const policy = this.policy({ operationType: 'query', rootFields: fields, introspectionOnly: false });
    return policy.cacheable ? shortenByUpstream(policy.ttlMs, upstreamMaxAge) : 0;
  }

  epochVector(fields: string[]): string {
    // Asked on every cacheable request with the same fields array (the operation's policy).
    const known = this.vectors.get(fields);
    if (known && known.seq === this.epochSeq) return known.text;
    const parts = [`${ALL_FIELDS}=${this.epochs.get(ALL_FIELDS) ?? 0}`];
    for (const f of [...fields].sort()) parts.push(`${f}=${this.epochs.get(f) ?? 0}`);
    const text = parts.join(';');
    this.vectors.set(fields, { seq: this.epochSeq, text });
    return text;
  }

  keyFor(input: KeyInput, fields: string[]): string {
    const material = JSON.stringify([
      'v1',
      this.settings.generation,
      input.environment,
      input.variant,
      this.schemaIds[input.variant] ?? '',
      input.normalized,
      input.operationName ?? '',
      canonicalJson(input.variables ?? {}),
      input.partnerCode ?? '',
      this.epochVector(fields),
    ]);
    return createHash('sha256').update(material).digest('hex');
  }

  /**
   * The in-process level alone, answered synchronously: a hit, or null when `get` must look further
   * (a hit there costs no promise and no turn of the microtask queue).
   */
  getLocal(key: string): CacheLookup | null {
    const local = this.lru.get(key);
    if (!local) return null;
    const now = this.now();
    if (local.storedAt + local.ttlMs > now) {
      this.bump('hits');
      this.bump('lruHits');
      return { entry: local, level: 'lru', ageSeconds: ageOf(local, now) };
    }
    this.lru.delete(key);
    return null;
  }

  async get(key: string): Promise<CacheLookup | null> {
    return this.getLocal(key) ?? this.getShared(key);
  }

  /** Past the in-process level (`getLocal` missed): Redis, or a miss. */
  async getShared(key: string): Promise<CacheLookup | null> {
    if (this.redis) {
      const redisKey = redisEntryKey(key);
      if (!canReach(this.redis, redisKey)) {
        this.bump('cacheReadErrors');
      } else {
        try {
          const raw = await withTimeout(this.redis.get(redisKey), this.settings.redisReadTimeoutMs);
          const entry = raw ? decodeEntry(raw) : null;
          const at = this.now();
          if (entry && entry.storedAt + entry.ttlMs > at) {
            this.lru.set(key, entry);
            this.bump('hits');
            this.bump('redisHits');
            return { entry, level: 'redis', ageSeconds: ageOf(entry, at) };
          }
        } catch (err) {
          noteRedisFailure(this.redis, redisKey, err);
          this.bump('cacheReadErrors');
          this.onError(err, 'cache read');
        }
      }
    }
    this.bump('misses');
    return null;
  }

  /** Stores an answer: LRU now, Redis in the background. Returns false when not stored. */
  set(key: string, body: string, ttlMs: number, fields: string[]): boolean {
    if (!(ttlMs > 0) || Buffer.byteLength(body) > this.settings.maxEntryBytes) {
      this.bump('notStored');
      return false;
    }
    const entry: CachedEntry = { body, storedAt: this.now(), ttlMs: Math.round(ttlMs), fields };
    this.lru.set(key, entry);
    this.bump('stores');
    const redis = this.redis;
    if (redis) {
      const redisKey = redisEntryKey(key);
      if (!canReach(redis, redisKey)) {
        this.bump('cacheWriteErrors');
      } else {
        // Within CACHE_REDIS_MAX_BYTES: an answer larger than its share is kept in process only.
        storeInRedis(redis, key, encodeEntry(entry), Math.max(1, entry.ttlMs), this.settings.redisMaxBytes).catch((err: unknown) => {
          noteRedisFailure(redis, redisKey, err);
          this.bump('cacheWriteErrors');
          this.onError(err, 'cache write');
        });
      }
    }
    return true;
  }

  noteBypass(): void {
    this.bump('bypasses');
  }

  noteNotStored(): void {
    this.bump('notStored');
  }

  /** Purge by root field or everything: on every instance through Redis, else on this one. */
  async purge(target: PurgeTarget): Promise<PurgeResult> {
    const fields = target.all ? [ALL_FIELDS] : [...new Set(target.fields ?? [])];
    if (fields.length === 0) throw new Error('nothing to purge: name a field or all');
    if (this.redis) {
      const { epochs, receivers, live, dropped } = await purgeInRedis(this.redis, target, undefined, (err) =>
        this.onError(err, 'cache purge in Redis'),
      );
      this.applyEpochs(epochs, fields);
      return { reach: 'all instances', epochs, instancesNotified: receivers, instancesLive: live, redisEntriesDropped: dropped };
    }
    const epochs: Record<string, number> = {};
    for (const f of fields) epochs[f] = (this.epochs.get(f) ?? 0) + 1;
    this.bump('purges');
    this.applyEpochs(epochs, fields);
    return { reach: 'this instance', epochs };
  }

  /** Re-reads the purge epochs from Redis; drops LRU entries of fields whose epoch moved. */
  async refreshEpochs(): Promise<void> {
    if (!this.redis || this.closed || !canReach(this.redis, EPOCHS_KEY)) return;
    try {
      const all = await withTimeout(this.redis.hgetall(EPOCHS_KEY), 2000);
      const next = new Map<string, number>();
      for (const [f, v] of Object.entries(all ?? {})) next.set(f, Number(v) || 0);
      const changed: string[] = [];
      for (const f of new Set([...next.keys(), ...this.epochs.keys()])) {
        if ((next.get(f) ?? 0) !== (this.epochs.get(f) ?? 0)) changed.push(f);
      }
      this.epochs = next;
      this.epochSeq++;
      if (changed.length) this.dropLocal(changed);
    } catch (err) {
      this.onError(err, 'cache epoch refresh');
    }
  }

  /** A purge of another instance (or the CLI): applied at once, so acknowledged. */
  private onPurgeMessage(msg: Record<string, unknown>): boolean {
    const fields = Array.isArray(msg.fields) ? msg.fields.map(String) : [ALL_FIELDS];
    const epochs = msg.epochs && typeof msg.epochs === 'object' ? (msg.epochs as Record<string, number>) : {};
    this.bump('purges');
    this.applyEpochs(epochs, fields);
    void this.refreshEpochs();
    return true;
  }

  private applyEpochs(epochs: Record<string, number>, fields: string[]): void {
    for (const [f, v] of Object.entries(epochs)) {
      const n = Number(v);
      if (Number.isFinite(n) && n > (this.epochs.get(f) ?? 0)) {
        this.epochs.set(f, n);
        this.epochSeq++;
      }
    }
    this.dropLocal(fields);
  }

  private dropLocal(fields: string[]): void {
    if (fields.includes(ALL_FIELDS)) {
      this.lru.clear();
      return;
    }
    const set = new Set(fields);
    for (const [k, e] of this.lru.entries()) if (e.fields.some((f) => set.has(f))) this.lru.delete(k);
  }

  private bump(name: keyof ResponseCacheStats): void {
    this.stats[name]++;
    responseCacheStats[name]++;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = null;
    this.lru.clear();
  }
}

function ageOf(e: CachedEntry, now: number): number {
  return Math.max(0, Math.floor((now - e.storedAt) / 1000));
}

/** The entry's body as bytes, encoded once per entry: a hit is then written without re-encoding it. */
export function bodyBytes(entry: CachedEntry): Buffer {
  return (entry.bytes ??= Buffer.from(entry.body));
}
