// The playground allowance: a fixed number of counted calls per client IP, once, never refilled.
//
// Two stores with the same contract:
// - Redis (REDIS_URL set): one Lua script per counted call increments `epg:allowance:v1:<ip>` only
//   while it is below the limit. The script runs atomically in Redis, so concurrent calls, from one
//   process or from several gateway processes sharing the Redis, can never hand out more than the
//   limit. The key has no TTL: the allowance never refills (a Redis without persistence forgets it
//   on a Redis restart; run Redis with AOF/RDB in production).
// - Embedded (no REDIS_URL): counts in memory, every counted call appended (and fdatasync'd) to
//   <DATA_DIR>/allowance.log before the call is answered, replayed at start so a restart does not
//   refill. One process per data directory (enforced with a lock file); several processes need Redis.
//
// Failure policy: FAIL CLOSED. When the store cannot count (Redis down or timing out, the log not
// writable), consume() rejects with AllowanceUnavailableError and the playground answers 503 with
// Retry-After instead of serving uncounted calls: the allowance is the only thing between an
// anonymous caller and our upstream feeds, and an outage must not become an unlimited free tier.
// The keyed environments do not use this store and keep serving.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { canReach, noteRedisFailure, redisDeadline, redisHealth, type RedisClient } from './redis-health.js';

export interface AllowanceResult {
  /** True when this call was counted and may be served. */
  allowed: boolean;
  /** Calls left after this one (0 when refused). */
  remaining: number;
  /** Calls counted for this IP, this one included when allowed. */
  used: number;
}

export interface AllowanceStore {
  readonly limit: number;
  /** Counts one call for `ip` if any allowance is left. Rejects with AllowanceUnavailableError when it cannot count. */
  consume(ip: string): Promise<AllowanceResult>;
  /** Calls left, without counting. Rejects with AllowanceUnavailableError when it cannot tell. */
  peek(ip: string): Promise<{ remaining: number }>;
  /** `degraded` says what a partial Redis outage costs (a cluster with a master down). */
  health(): { ok: boolean; mode: string; degraded?: string };
  close(): Promise<void> | void;
}

export class AllowanceUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AllowanceUnavailableError';
  }
}

/**
 * The longest a counted call waits on Redis before failing closed (503), whatever the topology:
 * below the 1 s bound of docs/operations.md with room for the rest of the request. A call that
 * timed out may still have been counted by Redis (a lost answer, never an extra call served).
 */
export const ALLOWANCE_DEADLINE_MS = 800;

export const ALLOWANCE_KEY_PREFIX = 'epg:allowance:v1:';

export function allowanceKey(ip: string): string {
  return `${ALLOWANCE_KEY_PREFIX}${ip}`;
}

// KEYS[1] the counter, ARGV[1] the limit. Returns { allowed (1|0), used }.
const CONSUME_LUA = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[1])
if used < limit then
  used = redis.call('INCR', KEYS[1])
  return {1, used}
end
return {0, used}
`;

type ConsumeCommand = (key: string, limit: number) => Promise<[number, number]>;

export class RedisAllowanceStore implements AllowanceStore {
  private readonly run: ConsumeCommand;

  /** The Redis client is shared (server/stores/redis-connection.ts); close() leaves it open. */
  constructor(private readonly redis: RedisClient, readonly limit: number) {
    const client = redis as RedisClient & Record<string, unknown>;
    // defineCommand sends EVALSHA and falls back to EVAL on NOSCRIPT (e.g. after a Redis restart).
    if (typeof client.epgAllowanceConsume !== 'function') {
      redis.defineCommand('epgAllowanceConsume', { numberOfKeys: 1, lua: CONSUME_LUA });
    }
    this.run = (key, lim) => (client.epgAllowanceConsume as (k: string, l: number) => Promise<[number, number]>).call(redis, key, lim);
  }

  async consume(ip: string): Promise<AllowanceResult> {
    const key = allowanceKey(ip);
    this.failFastWhenDown(key);
    let reply: [number, number];
    try {
      reply = await redisDeadline(this.run(key, this.limit), ALLOWANCE_DEADLINE_MS);
    } catch (err) {
      noteRedisFailure(this.redis, key, err);
      throw new AllowanceUnavailableError(`allowance store (Redis) unavailable: ${(err as Error).message}`, { cause: err });
    }
    const allowed = Number(reply[0]) === 1;
    const used = Number(reply[1]);
    return { allowed, used, remaining: allowed ? Math.max(0, this.limit - used) : 0 };
  }

  async peek(ip: string): Promise<{ remaining: number }> {
    const key = allowanceKey(ip);
    this.failFastWhenDown(key);
    let raw: string | null;
    try {
      raw = await redisDeadline(this.redis.get(key), ALLOWANCE_DEADLINE_MS);
    } catch (err) {
      noteRedisFailure(this.redis, key, err);
      throw new AllowanceUnavailableError(`allowance store (Redis) unavailable: ${(err as Error).message}`, { cause: err });
    }
    return { remaining: Math.max(0, this.limit - (Number(raw) || 0)) };
  }

  health() {
    const { state } = redisHealth(this.redis);
    if (state === 'partial') return { ok: false, mode: 'redis', degraded: 'counted calls of clients whose counter is on an unreachable master are refused (503)' };
    return { ok: state === 'up', mode: 'redis', ...(state === 'down' ? { degraded: 'every counted call is refused (503)' } : {}) };
  }

  /** A Redis (or the cluster master of this key) known to be down or hung is not asked: no wait for a timeout. */
  private failFastWhenDown(key: string): void {
    if (!canReach(this.redis, key)) throw new AllowanceUnavailableError('allowance store (Redis) unavailable: not connected or not answering');
  }

  close(): void {}
}

/**
 * Embedded store. Log format: one line per counted call, `<ip> <used>` where <used> is the IP's
 * count after that call (absolute, so replay takes the maximum and a duplicated or reordered line
 * is harmless). Lines that do not parse (a torn last line after a crash, garbage) are skipped. At
 * open the log is compacted to one line per IP (temp file + rename).
 */
export class EmbeddedAllowanceStore implements AllowanceStore {
  private fd: number | null;

  private constructor(readonly file: string, readonly limit: number, private readonly counts: Map<string, number>, fd: number, readonly skippedLines: number) {
    this.fd = fd;
  }

  static async open(dataDir: string, limit: number, opts: { fileName?: string } = {}): Promise<EmbeddedAllowanceStore> {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = path.resolve(dataDir, opts.fileName ?? 'allowance.log');
    acquireOwnership(file);
    try {
      return EmbeddedAllowanceStore.load(file, limit);
    } catch (err) {
      releaseOwnership(file);
      throw err;
    }
  }

  private static load(file: string, limit: number): EmbeddedAllowanceStore {
    const { counts, skipped } = readLog(file);
    // Compact: one line per IP, written atomically, before we start appending.
    const tmp = `${file}.${process.pid}.tmp`;
    const lines = [...counts].map(([ip, used]) => `${ip} ${used}\n`).join('');
    const tfd = fs.openSync(tmp, 'w', 0o600);
    try {
      fs.writeSync(tfd, lines);
      fs.fsyncSync(tfd);
    } finally {
      fs.closeSync(tfd);
    }
    fs.renameSync(tmp, file);
    const fd = fs.openSync(file, 'a', 0o600);
    return new EmbeddedAllowanceStore(file, limit, counts, fd, skipped);
  }

  // Check, count and append happen in one synchronous step: no other call can interleave.
  async consume(ip: string): Promise<AllowanceResult> {
    if (this.fd === null) throw new AllowanceUnavailableError('allowance store is closed');
    const used = this.counts.get(ip) ?? 0;
    if (used >= this.limit) return { allowed: false, used, remaining: 0 };
    const next = used + 1;
    try {
      fs.writeSync(this.fd, `${ip} ${next}\n`);
      fs.fdatasyncSync(this.fd);
    } catch (err) {
      throw new AllowanceUnavailableError(`allowance log ${this.file} not writable: ${(err as Error).message}`, { cause: err });
    }
    this.counts.set(ip, next);
    return { allowed: true, used: next, remaining: Math.max(0, this.limit - next) };
  }

  async peek(ip: string): Promise<{ remaining: number }> {
    return { remaining: Math.max(0, this.limit - (this.counts.get(ip) ?? 0)) };
  }

  health() {
    return { ok: this.fd !== null, mode: 'embedded' };
  }

  close(): void {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
    releaseOwnership(this.file);
  }
}

// Two writers on one log would each count from their own memory and hand out the allowance twice.
// One store per log: within this process a Set, across processes a lock file holding the pid
// (taken over when that process no longer exists).
const OWNED = new Set<string>();

function acquireOwnership(file: string): void {
  if (OWNED.has(file)) throw new Error(`the playground allowance log ${file} is already in use by this process`);
  const lock = `${file}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const pid = Number(fs.readFileSync(lock, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processExists(pid)) {
        throw new Error(`the playground allowance log ${file} is in use by process ${pid}; the embedded store serves one gateway process per DATA_DIR (set REDIS_URL to run several). If no such gateway runs, delete ${lock}.`);
      }
      fs.rmSync(lock, { force: true });
    }
  }
  OWNED.add(file);
}

function releaseOwnership(file: string): void {
  OWNED.delete(file);
  fs.rmSync(`${file}.lock`, { force: true });
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const MAX_COUNT = 1_000_000_000;

function readLog(file: string): { counts: Map<string, number>; skipped: number } {
  const counts = new Map<string, number>();
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const m = /^(\S+) (\d{1,10})$/.exec(line);
    const n = m ? Number(m[2]) : NaN;
    if (!m || !(net.isIP(m[1]!) || m[1] === 'unknown') || !(n >= 1 && n <= MAX_COUNT)) {
      skipped++;
      continue;
    }
    if (n > (counts.get(m[1]!) ?? 0)) counts.set(m[1]!, n);
  }
  return { counts, skipped };
}

export async function createAllowanceStore(opts: { redis: RedisClient | null; dataDir: string; limit: number }): Promise<AllowanceStore> {
  return opts.redis ? new RedisAllowanceStore(opts.redis, opts.limit) : EmbeddedAllowanceStore.open(opts.dataDir, opts.limit);
}
