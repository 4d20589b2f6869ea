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
// Free requests (free-rate.ts) are counted beside the allowance: `admit` peeks the allowance and
// charges one free request in one step, and `consume` gives the point back when it counts the call,
// so a counted playground call costs two store round trips (in Redis, one script each).
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
import { FreeRateCounter, type FreeRate } from './free-rate.js';
import { defineScripts } from './redis-scripts.js';

export interface AllowanceResult {
  /** True when this call was counted and may be served. */
  allowed: boolean;
  /** Calls left after this one (0 when refused). */
  remaining: number;
  /** Calls counted for this IP, this one included when allowed. */
  used: number;
}

export interface Admission {
  /** Calls left (not counted), or null when the store cannot tell (Redis down). */
  remaining: number | null;
  /** Milliseconds the client stays refused for too many free requests; 0 when within the free rate. */
  freeRefusedMs: number;
  /** Why remaining is null. */
  error?: unknown;
}

export interface AllowanceStore {
  readonly limit: number;
  /** The free-request rate counted beside the allowance (points 0: none). */
  readonly free: FreeRateCounter;
  /**
   * Counts one call for `ip` if any allowance is left, and gives back the free request `admit`
   * charged for it. Rejects with AllowanceUnavailableError when it cannot count.
   */
  consume(ip: string): Promise<AllowanceResult>;
  /** Calls left, without counting. Rejects with AllowanceUnavailableError when it cannot tell. */
  peek(ip: string): Promise<{ remaining: number }>;
  /** Before a playground request's body is read: calls left, and one free request charged. Never rejects. */
  admit(ip: string): Promise<Admission>;
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

const ALLOWANCE_KEY_PREFIX = 'epg:allowance:v1:';

export function allowanceKey(ip: string): string {
  return `${ALLOWANCE_KEY_PREFIX}${ip}`;
}

// KEYS[1] the allowance counter, KEYS[2] the free-request counter (same hash slot); ARGV[1] the
// limit, ARGV[2] 1 to give a charged free request back. Returns { allowed (1|0), used }.
const CONSUME_LUA = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[1])
if used < limit then
  used = redis.call('INCR', KEYS[1])
  if ARGV[2] == '1' and tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
  return {1, used}
end
return {0, used}
`;

// KEYS as above; ARGV[1] the free window (ms), ARGV[2] 1 to charge a free request. Returns
// { allowance used, free requests in the window, ms left of the window }.
const ADMIT_LUA = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[2] ~= '1' then return {used, 0, 0} end
local n = redis.call('INCR', KEYS[2])
local ttl = redis.call('PTTL', KEYS[2])
if ttl < 0 then
  ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return {used, n, ttl}
`;

type Script = (allowance: string, free: string, a: number, b: number) => Promise<[number, number, number?]>;

/** The free-request counter of a client, in the allowance key's hash slot (a Cluster runs both scripts). */
export function freeRateKey(ip: string): string {
  return `epg:free-rate:v2:{${allowanceKey(ip)}}`;
}

export class RedisAllowanceStore implements AllowanceStore {
  private readonly consumeScript: Script;
  private readonly admitScript: Script;
  readonly free: FreeRateCounter;

  /** The Redis client is shared (cache/redis-connection.ts); close() leaves it open. */
  constructor(
    private readonly redis: RedisClient,
    readonly limit: number,
    freeRate: FreeRate = { points: 0, windowSeconds: 60 },
  ) {
    this.free = new FreeRateCounter(freeRate);
    const client = defineScripts<{ epgPlaygroundConsume: Script; epgPlaygroundAdmit: Script }>(redis, {
      epgPlaygroundConsume: { keys: 2, lua: CONSUME_LUA },
      epgPlaygroundAdmit: { keys: 2, lua: ADMIT_LUA },
    });
    this.consumeScript = client.epgPlaygroundConsume.bind(redis);
    this.admitScript = client.epgPlaygroundAdmit.bind(redis);
  }

  async consume(ip: string): Promise<AllowanceResult> {
    const key = allowanceKey(ip);
    const reply = await this.ask(key, () => this.consumeScript(key, freeRateKey(ip), this.limit, this.free.enabled ? 1 : 0));
    const allowed = Number(reply[0]) === 1;
    const used = Number(reply[1]);
    return { allowed, used, remaining: allowed ? Math.max(0, this.limit - used) : 0 };
  }

  async peek(ip: string): Promise<{ remaining: number }> {
    const key = allowanceKey(ip);
    const raw = await this.ask(key, () => this.redis.get(key));
    return { remaining: Math.max(0, this.limit - (Number(raw) || 0)) };
  }

  async admit(ip: string): Promise<Admission> {
    // A client known to be over the free rate is refused from memory, without a round trip.
    const blocked = this.free.enabled ? this.free.blockedFor(ip) : null;
    if (blocked) return { remaining: blocked.remaining, freeRefusedMs: blocked.ms };
    const key = allowanceKey(ip);
    try {
      const [used, count, msLeft] = await this.ask(key, () =>
        this.admitScript(key, freeRateKey(ip), this.free.windowMs, this.free.enabled ? 1 : 0),
      );
      const remaining = Math.max(0, this.limit - (Number(used) || 0));
      return { remaining, freeRefusedMs: this.free.enabled ? this.free.verdict(ip, Number(count), Number(msLeft), remaining) : 0 };
    } catch (error) {
      // Redis down: the in-memory limiter counts free requests meanwhile.
      return { remaining: null, freeRefusedMs: this.free.enabled ? await this.free.charge(ip, null) : 0, error };
    }
  }

  /** One command on `key`, within the deadline, failing at once when its Redis is known to be down. */
  private async ask<T>(key: string, command: () => Promise<T>): Promise<T> {
    if (!canReach(this.redis, key))
      throw new AllowanceUnavailableError('allowance store (Redis) unavailable: not connected or not answering');
    try {
      return await redisDeadline(command(), ALLOWANCE_DEADLINE_MS);
    } catch (err) {
      noteRedisFailure(this.redis, key, err);
      throw new AllowanceUnavailableError(`allowance store (Redis) unavailable: ${(err as Error).message}`, { cause: err });
    }
  }

  health() {
    const { state } = redisHealth(this.redis);
    if (state === 'partial')
      return { ok: false, mode: 'redis', degraded: 'counted calls of clients whose counter is on an unreachable master are refused (503)' };
    return { ok: state === 'up', mode: 'redis', ...(state === 'down' ? { degraded: 'every counted call is refused (503)' } : {}) };
  }

  close(): void {}
}

/**
 * Embedded store. Log format: one line per counted call, `<ip> <used>` where <used> is the IP's
 * count after that call (absolute, so replay takes the maximum and a duplicated or reordered line
 * is harmless), and `<ip> reset` where an operator gave the IP its allowance back (`npm run
 * allowance -- reset`, appended by that command beside the running gateway: the store reads what
 * others appended before each count and peek). Lines that do not parse (a torn last line after a
 * crash, garbage) are skipped. At open the log is compacted to one line per IP (temp file + rename).
 */
export class EmbeddedAllowanceStore implements AllowanceStore {
  private fd: number | null;
  /** Bytes of the log read or written by this store; more on disk means another process appended (a reset). */
  private size: number;

  readonly free: FreeRateCounter;

  private constructor(
    readonly file: string,
    readonly limit: number,
    private readonly counts: Map<string, number>,
    fd: number,
    readonly skippedLines: number,
    freeRate: FreeRate,
  ) {
    this.fd = fd;
    this.size = fs.fstatSync(fd).size;
    this.free = new FreeRateCounter(freeRate);
  }

  /** Applies what another process appended since (resets), in order. */
  private catchUp(): void {
    if (this.fd === null) return;
    const size = fs.fstatSync(this.fd).size;
    if (size <= this.size) return;
    const buf = Buffer.alloc(size - this.size);
    const rfd = fs.openSync(this.file, 'r');
    try {
      fs.readSync(rfd, buf, 0, buf.length, this.size);
    } finally {
      fs.closeSync(rfd);
    }
    // Up to the last complete line: a line still being written is read next time.
    const end = buf.lastIndexOf(0x0a) + 1;
    for (const line of buf.subarray(0, end).toString('utf8').split('\n')) if (line) applyLogLine(this.counts, line);
    this.size += end;
  }

  static async open(
    dataDir: string,
    limit: number,
    opts: { fileName?: string; freeRate?: FreeRate } = {},
  ): Promise<EmbeddedAllowanceStore> {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = path.resolve(dataDir, opts.fileName ?? 'allowance.log');
    acquireOwnership(file);
    try {
      return EmbeddedAllowanceStore.load(file, limit, opts.freeRate ?? { points: 0, windowSeconds: 60 });
    } catch (err) {
      releaseOwnership(file);
      throw err;
    }
  }

  private static load(file: string, limit: number, freeRate: FreeRate): EmbeddedAllowanceStore {
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
    return new EmbeddedAllowanceStore(file, limit, counts, fd, skipped, freeRate);
  }

  // Check, count and append happen in one synchronous step: no other call can interleave.
  async consume(ip: string): Promise<AllowanceResult> {
    if (this.fd === null) throw new AllowanceUnavailableError('allowance store is closed');
    let next: number;
    try {
      this.catchUp();
      const used = this.counts.get(ip) ?? 0;
      if (used >= this.limit) return { allowed: false, used, remaining: 0 };
      next = used + 1;
      const line = `${ip} ${next}\n`;
      fs.writeSync(this.fd, line);
      fs.fdatasyncSync(this.fd);
      this.size += Buffer.byteLength(line);
    } catch (err) {
      throw new AllowanceUnavailableError(`allowance log ${this.file} not writable: ${(err as Error).message}`, { cause: err });
    }
    this.counts.set(ip, next);
    if (this.free.enabled) this.free.refund(ip);
    return { allowed: true, used: next, remaining: Math.max(0, this.limit - next) };
  }

  async peek(ip: string): Promise<{ remaining: number }> {
    this.catchUp();
    return { remaining: Math.max(0, this.limit - (this.counts.get(ip) ?? 0)) };
  }

  async admit(ip: string): Promise<Admission> {
    try {
      this.catchUp();
    } catch {
      // Unreadable log: the count in memory answers; consume() fails closed if it cannot write.
    }
    const remaining = Math.max(0, this.limit - (this.counts.get(ip) ?? 0));
    const blocked = this.free.enabled ? this.free.blockedFor(ip) : null;
    const freeRefusedMs = blocked ? blocked.ms : this.free.enabled ? await this.free.charge(ip, remaining) : 0;
    return { remaining, freeRefusedMs };
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
        throw new Error(
          `the playground allowance log ${file} is in use by process ${pid}; the embedded store serves one gateway process per DATA_DIR (set ` +
            `REDIS_URL to run several). If no such gateway runs, delete ${lock}.`,
        );
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

/** Who a log line may name: an address, the /64 network of an IPv6 client (client-ip.ts allowanceSubject), or "unknown". */
function isSubject(s: string): boolean {
  return net.isIP(s) !== 0 || s === 'unknown' || (s.endsWith('::/64') && net.isIPv6(s.slice(0, -3)));
}

/** Applies one log line to the counts; false when it does not parse. */
function applyLogLine(counts: Map<string, number>, line: string): boolean {
  const m = /^(\S+) (\d{1,10}|reset)$/.exec(line);
  if (!m || !isSubject(m[1]!)) return false;
  if (m[2] === 'reset') {
    counts.delete(m[1]!);
    return true;
  }
  const n = Number(m[2]);
  if (!(n >= 1 && n <= MAX_COUNT)) return false;
  if (n > (counts.get(m[1]!) ?? 0)) counts.set(m[1]!, n);
  return true;
}

/** The counts of an embedded allowance log, as a gateway would replay them (for `npm run allowance`). */
export function readAllowanceLog(file: string): Map<string, number> {
  return readLog(file).counts;
}

/** Gives `subject` its allowance back in an embedded log: a running gateway applies it before its next count. */
export function appendAllowanceReset(file: string, subject: string): void {
  if (!isSubject(subject)) throw new Error(`not an address: ${subject}`);
  const fd = fs.openSync(file, 'a', 0o600);
  try {
    fs.writeSync(fd, `${subject} reset\n`);
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

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
    if (line && !applyLogLine(counts, line)) skipped++;
  }
  return { counts, skipped };
}

export async function createAllowanceStore(opts: {
  redis: RedisClient | null;
  dataDir: string;
  limit: number;
  freeRate?: FreeRate;
}): Promise<AllowanceStore> {
  return opts.redis
    ? new RedisAllowanceStore(opts.redis, opts.limit, opts.freeRate)
    : EmbeddedAllowanceStore.open(opts.dataDir, opts.limit, { freeRate: opts.freeRate });
}
