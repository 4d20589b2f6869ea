// The response cache's Redis level, bounded by bytes (CACHE_REDIS_MAX_BYTES) as well as by TTLs:
// a client sending many distinct cacheable documents (aliases, field orders, variables) could
// otherwise fill Redis with answers within their TTL.
//
// Entries are spread over SHARDS hash tags by the first hex digit of their key, each with a sixteenth
// of the budget: a tag keeps an entry and its bookkeeping in one Cluster slot (so one Lua script
// stores and trims it atomically, for every instance sharing Redis), and sixteen tags keep the
// entries spread over the Cluster's masters rather than on one. Keys are uniformly random, so the
// shards fill evenly. Per shard: the entries (`…:e:<key>`, with their TTL), a sorted set of keys by
// expiry time, a hash of what each entry costs, and a byte counter. A write stores its entry, drops
// the expired ones and then, while over budget, the one that expires first (the oldest among
// answers of one TTL). A hit stays one GET: only a write pays for the accounting.
//
// An entry counts what Redis holds for it (entryCost in PUT_LUA): its value as jemalloc allocates it,
// its key name, its key again as index member and sizes field, and ENTRY_OVERHEAD_BYTES of
// bookkeeping (key and value objects, dict entries in the key space, the expiry table, the sorted
// set and the hash). Calibrated against `MEMORY USAGE` over every key of the level: what it counts is
// 1.01-1.26 times what Redis says it holds (the most for the smallest answers) and at least the
// used_memory growth, so the level holds at most its budget (test/e2e/response-cache-budget.test.ts).
import { canReach, noteRedisFailure, type RedisClient } from './redis-health.js';
import { ALLOC_LUA, defineScripts } from './redis-scripts.js';

/** Hash tags the entries are spread over, by the first hex digit of their key. */
const SHARDS = 16;

/** Bytes per entry besides its value, key name and index members (see the header). */
const ENTRY_OVERHEAD_BYTES = 350;

/** The keys of one shard (h: a hex digit). v2: v1 entries (`epg:cache:r:<key>`) had no budget. */
function responseCacheShard(h: string) {
  const base = `epg:cache:v2:{r${h}}`;
  return { entryPrefix: `${base}:e:`, index: `${base}:index`, sizes: `${base}:sizes`, bytes: `${base}:bytes` };
}

type ResponseCacheShard = ReturnType<typeof responseCacheShard>;

export const RESPONSE_CACHE_SHARDS: ResponseCacheShard[] = Array.from({ length: SHARDS }, (_, i) => responseCacheShard(i.toString(16)));

/** The shard of a cache key (a SHA-256 in hex). */
const shardOf = (key: string): ResponseCacheShard => RESPONSE_CACHE_SHARDS[parseInt(key[0]!, 16) || 0]!;

/** The Redis key of a cached answer: the hit path's one GET. */
export const redisEntryKey = (key: string): string => shardOf(key).entryPrefix + key;

// Drops one member of a shard: its entry, index member and size; returns the shard's total.
// KEYS of the caller: index, sizes, bytes at 2, 3, 4 (PUT) or 1, 2, 3 (PURGE): passed as i.
const DROP_LUA = `
local function drop(i, prefix, member)
  local size = redis.call('HGET', KEYS[i + 1], member)
  redis.call('HDEL', KEYS[i + 1], member)
  redis.call('ZREM', KEYS[i], member)
  redis.call('DEL', prefix .. member)
  if size then return redis.call('DECRBY', KEYS[i + 2], size) end
  return tonumber(redis.call('GET', KEYS[i + 2]) or '0')
end
`;

// KEYS: entry, index, sizes, bytes. ARGV: member (the cache key), value, ttl (ms), shard budget,
// entry key prefix, expired entries to drop at most. Returns 1 stored, 0 larger than the budget.
// Expiry times are Redis' own clock (TIME), the clock its TTLs run on.
const PUT_LUA = `${ALLOC_LUA}${DROP_LUA}
local function entryCost(valueLength, keyLength, memberLength)
  return alloc(valueLength + 10) + keyLength + 2 * memberLength + ${ENTRY_OVERHEAD_BYTES}
end
local size = entryCost(#ARGV[2], #KEYS[1], #ARGV[1])
local budget = tonumber(ARGV[4])
if size > budget then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
local old = redis.call('HGET', KEYS[3], ARGV[1])
if old then redis.call('DECRBY', KEYS[4], old) end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], size)
local total = redis.call('INCRBY', KEYS[4], size)
-- The first to expire goes while it has expired (up to a bound) or the shard is over budget.
local expired = tonumber(ARGV[6])
while true do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if #first == 0 then
    if total ~= 0 then redis.call('SET', KEYS[4], 0, 'KEEPTTL') end
    break
  end
  if total <= budget then
    if tonumber(first[2]) >= now or expired == 0 then break end
    expired = expired - 1
  end
  total = drop(2, ARGV[5], first[1])
end
-- The bookkeeping outlives its longest entry (extended once per TTL, not at every store) and
-- goes after it: a shard no longer written leaves nothing behind.
if redis.call('PTTL', KEYS[2]) < ttl then
  for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], 2 * ttl) end
end
return 1
`;

// KEYS: index, sizes, bytes. ARGV: entry key prefix, root fields (comma-separated; '*': all),
// offset, count. Drops the entries among `count` members from `offset` that select one of the
// fields (or are gone already). Returns { dropped, next offset or -1 when the index is read }.
const PURGE_LUA = `${DROP_LUA}
local offset = tonumber(ARGV[3])
local count = tonumber(ARGV[4])
local members = redis.call('ZRANGE', KEYS[1], offset, offset + count - 1)
local wanted = {}
for f in string.gmatch(ARGV[2], '[^,]+') do wanted[f] = true end
local dropped = 0
for _, member in ipairs(members) do
  local hit = wanted['*']
  if not hit then
    -- An entry is 1|storedAt|ttl|fields|body (encodeEntry in response-cache.ts).
    local fields = string.match(redis.call('GETRANGE', ARGV[1] .. member, 0, 1023), '^1|[^|]*|[^|]*|([^|]*)|')
    hit = fields == nil
    if fields then
      for f in string.gmatch(fields, '[^,]+') do hit = hit or wanted[f] == true end
    end
  end
  if hit then
    drop(1, ARGV[1], member)
    dropped = dropped + 1
  end
end
if #members < count then return { dropped, -1 } end
return { dropped, offset + #members - dropped }
`;

type Scripts = {
  epgCachePut(...args: (string | number)[]): Promise<number>;
  epgCachePurge(...args: (string | number)[]): Promise<[number, number]>;
};

const scripted = (redis: RedisClient) =>
  defineScripts<Scripts>(redis, { epgCachePut: { keys: 4, lua: PUT_LUA }, epgCachePurge: { keys: 3, lua: PURGE_LUA } });

/** Expired entries one write drops at most (each write adds one: they never pile up while writes come). */
const SWEEP = 100;

/**
 * Stores an encoded entry under its TTL; with a budget (maxBytes > 0) within it, trimming its shard.
 * Resolves to false when the entry alone is larger than its shard's budget (not stored).
 */
export async function storeInRedis(redis: RedisClient, key: string, value: string, ttlMs: number, maxBytes: number): Promise<boolean> {
  const redisKey = redisEntryKey(key);
  if (maxBytes <= 0) return (await redis.set(redisKey, value, 'PX', ttlMs)) === 'OK';
  const s = shardOf(key);
  const budget = Math.floor(maxBytes / SHARDS);
  return (await scripted(redis).epgCachePut(redisKey, s.index, s.sizes, s.bytes, key, value, ttlMs, budget, s.entryPrefix, SWEEP)) === 1;
}

/** Members one purge call reads: a GETRANGE each, well under a millisecond of Redis time a call. */
const PURGE_PAGE = 200;

/**
 * Drops the stored answers selecting any of `fields` ('*': all) from every shard it can reach, so a
 * purge frees their budget at once (the purge epochs already made them unreachable). Returns how
 * many were dropped; a shard that fails is left to its TTLs and trimming.
 */
export async function purgeRedisEntries(redis: RedisClient, fields: string[], onError: (err: unknown) => void): Promise<number> {
  const scripts = scripted(redis);
  const list = fields.join(',');
  const dropped = await Promise.all(
    RESPONSE_CACHE_SHARDS.map(async (s) => {
      if (!canReach(redis, s.index)) return 0;
      let n = 0;
      try {
        for (let offset = 0; offset >= 0;) {
          const [gone, next] = await scripts.epgCachePurge(s.index, s.sizes, s.bytes, s.entryPrefix, list, offset, PURGE_PAGE);
          n += Number(gone);
          offset = Number(next);
        }
      } catch (err) {
        noteRedisFailure(redis, s.index, err);
        onError(err);
      }
      return n;
    }),
  );
  return dropped.reduce((a, b) => a + b, 0);
}
