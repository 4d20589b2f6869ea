// Documents registered through automatic persisted queries (APQ), by SHA-256 hash, one key space per
// environment, bounded by bytes (the least recently used documents go first). A budget counts what
// an entry really holds, not only its document: entryCost() adds the hash (stored twice: hash field
// and sorted-set member) and a per-entry overhead, calibrated against Redis `MEMORY USAGE` and the
// V8 heap of the embedded LRU (docs/operations.md, "Persisted queries"), so either store holds at
// most its budget whatever the documents' sizes.
//
// - Redis (REDIS_URL set): per environment a hash of documents, a sorted set of last-use times and a
//   byte counter under `epg:apq:v1:{<environment>}:*` (one hash tag: one Cluster slot). A Lua
//   script stores and evicts atomically, so every gateway instance shares one bounded store.
// - Embedded: an in-process LRU per environment, bounded by the same byte budget.
//
// A store that fails is a cache that misses: the client sends the full document again (the APQ
// protocol's own fallback), so answers are never affected. A lookup waits at most
// PERSISTED_QUERY_DEADLINE_MS, and none is sent while the part of Redis holding it is known down.
import { LRUCache } from 'lru-cache';
import type { RedisClient } from './redis-connection.js';
import { canReach, noteRedisFailure, redisDeadline } from './redis-health.js';
import { defineScripts } from './redis-scripts.js';

/** A lookup gives up after this (as a response-cache read does): the request goes on as a miss. */
export const PERSISTED_QUERY_DEADLINE_MS = 200;

export interface PersistedQueryStore {
  readonly kind: 'redis' | 'embedded';
  get(environment: string, hash: string): Promise<string | null>;
  /** Stores unless the document alone is larger than the budget; evicts the least recently used. */
  put(environment: string, hash: string, document: string): Promise<void>;
}

/** v2: budgets count entryCost() (v1 counted document bytes only; its keys are no longer read). */
export const PERSISTED_QUERY_KEY_PREFIX = 'epg:apq:v2:';

/** The allocator's rounding of a stored document (jemalloc size classes), as a factor. */
const ENTRY_DOCUMENT_FACTOR = 1.05;
/** Bytes per entry besides the document and its hash twice (hash and sorted-set bookkeeping). */
const ENTRY_OVERHEAD_BYTES = 208;

/** What one stored document costs its environment's budget (the same formula runs in the Lua script). */
export function entryCost(documentBytes: number, hashLength: number): number {
  return Math.ceil(documentBytes * ENTRY_DOCUMENT_FACTOR) + 2 * hashLength + ENTRY_OVERHEAD_BYTES;
}

/** docs hash, last-use sorted set, byte counter of one environment (one hash tag, one slot). */
export function persistedQueryKeys(environment: string): [string, string, string] {
  const base = `${PERSISTED_QUERY_KEY_PREFIX}{${environment}}`;
  return [`${base}:docs`, `${base}:lru`, `${base}:bytes`];
}

// KEYS: docs, lru, bytes. ARGV: hash, document, now (ms), budget (bytes). Returns 1 stored, 0 too large.
const PUT_LUA = `
local function cost(len, keylen) return math.ceil(len * ${ENTRY_DOCUMENT_FACTOR}) + 2 * keylen + ${ENTRY_OVERHEAD_BYTES} end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  return 1
end
local size = cost(string.len(ARGV[2]), string.len(ARGV[1]))
local budget = tonumber(ARGV[4])
if size > budget then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
local total = redis.call('INCRBY', KEYS[3], size)
while total > budget do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  if #oldest == 0 then break end
  local len = redis.call('HSTRLEN', KEYS[1], oldest[1])
  redis.call('HDEL', KEYS[1], oldest[1])
  total = redis.call('DECRBY', KEYS[3], cost(len, string.len(oldest[1])))
end
return 1
`;

// KEYS: docs, lru. ARGV: hash, now (ms). Returns the document (and marks it used) or nil.
const GET_LUA = `
local doc = redis.call('HGET', KEYS[1], ARGV[1])
if doc then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1]) end
return doc
`;

type Scripts = {
  epgApqPut(docs: string, lru: string, bytes: string, hash: string, doc: string, now: number, budget: number): Promise<number>;
  epgApqGet(docs: string, lru: string, hash: string, now: number): Promise<string | null>;
};

export function createPersistedQueryStore(opts: {
  redis: RedisClient | null;
  maxBytes: number;
  /** Budgets of their own (the playground's), else maxBytes. */
  budgets?: Partial<Record<string, number>>;
  now?: () => number;
}): PersistedQueryStore {
  const now = opts.now ?? Date.now;
  const budget = (environment: string) => opts.budgets?.[environment] ?? opts.maxBytes;
  const redis = opts.redis;
  if (redis) {
    const scripts = defineScripts<Scripts>(redis, { epgApqPut: { keys: 3, lua: PUT_LUA }, epgApqGet: { keys: 2, lua: GET_LUA } });
    return {
      kind: 'redis',
      async get(environment, hash) {
        const [docs, lru] = persistedQueryKeys(environment);
        if (!canReach(redis, docs)) throw new Error('persisted query store (Redis) not connected or not answering');
        try {
          return (await redisDeadline(scripts.epgApqGet(docs, lru, hash, now()), PERSISTED_QUERY_DEADLINE_MS)) ?? null;
        } catch (err) {
          noteRedisFailure(redis, docs, err);
          throw err;
        }
      },
      async put(environment, hash, document) {
        const [docs, lru, bytes] = persistedQueryKeys(environment);
        await scripts.epgApqPut(docs, lru, bytes, hash, document, now(), budget(environment));
      },
    };
  }
  const byEnvironment = new Map<string, LRUCache<string, string>>();
  const lru = (environment: string) => {
    let c = byEnvironment.get(environment);
    if (!c)
      byEnvironment.set(
        environment,
        (c = new LRUCache<string, string>({
          maxSize: budget(environment),
          sizeCalculation: (doc, hash) => entryCost(Buffer.byteLength(doc), hash.length),
        })),
      );
    return c;
  };
  return {
    kind: 'embedded',
    get: (environment, hash) => Promise.resolve(lru(environment).get(hash) ?? null),
    put(environment, hash, document) {
      // lru-cache refuses (does not store) an entry larger than maxSize, as the Redis script does.
      lru(environment).set(hash, document);
      return Promise.resolve();
    },
  };
}
