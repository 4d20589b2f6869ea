// Lua scripts as ioredis commands, for the stores that keep a budget (or a count) atomic in Redis:
// every key a script touches carries one hash tag, so a script also runs on Redis Cluster.
// defineCommand sends EVALSHA and falls back to EVAL on NOSCRIPT (e.g. after a Redis restart).
import type { RedisClient } from './redis-health.js';

interface ScriptSpec {
  /** How many of the arguments are keys (the first ones). */
  keys: number;
  lua: string;
}

/** Defines each script once per client (several stores share one), and returns the client with them. */
export function defineScripts<T>(redis: RedisClient, scripts: { [name in keyof T & string]: ScriptSpec }): RedisClient & T {
  const client = redis as RedisClient & Record<string, unknown>;
  for (const [name, { keys, lua }] of Object.entries<ScriptSpec>(scripts))
    if (typeof client[name] !== 'function') redis.defineCommand(name, { numberOfKeys: keys, lua });
  return client as unknown as RedisClient & T;
}

/**
 * Lua: the bytes jemalloc (Redis' allocator) hands out for a request of n bytes: 8, then steps of 16
 * up to 128, then four size classes per doubling (a value is rounded up by up to 25%).
 */
export const ALLOC_LUA = `
local function alloc(n)
  if n <= 8 then return 8 end
  if n <= 128 then return math.ceil(n / 16) * 16 end
  local p = 128
  while p * 2 < n do p = p * 2 end
  local step = p / 4
  return math.ceil(n / step) * step
end
`;
