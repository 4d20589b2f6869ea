// Settings of the response cache and the replay log: TTLs per root field from one config file
// (`cache.config.yaml`, or `.json`, at the repo root; another file with CACHE_CONFIG), sizes and
// retention from environment variables. Parsed once by server/config.ts; a bad value stops the
// process with a message naming the variable or the file.
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { envReader } from '../lib/env-reader.js';
import { SCHEMA_FILE, schemaPolicy, type SchemaPolicy } from '../resolvers/schema-policy.js';

/** How long an answer containing a root field may be served from cache. */
export type TtlRule =
  | { kind: 'fixed'; ms: number }
  /**
   * Until the next of some local wall-clock times (e.g. midnight and same-day cut-offs) in any of
   * the listed time zones, capped by maxMs. Used for nextStartDate, whose answer changes at local
   * midnight and at the territory's cut-off time.
   */
  | { kind: 'untilLocalTime'; times: string[]; timeZones: string[]; maxMs: number };

export interface CacheSettings {
  enabled: boolean;
  /** Where the TTLs came from (a file path, or "defaults"). */
  source: string;
  /** Bump in the config file to invalidate every cached answer at the next deploy. */
  generation: string;
  /** TTL of root fields not listed in `ttl` (0 = not cached). */
  defaultTtl: TtlRule;
  ttl: Record<string, TtlRule>;
  /** Byte bound of the in-process LRU (sum of cached body sizes). */
  lruBytes: number;
  /** Larger answers are not cached at all. */
  maxEntryBytes: number;
  /** Give up on a Redis read after this long and answer from upstream (ms). */
  redisReadTimeoutMs: number;
  /** Re-read purge epochs from Redis this often, in case a purge message was missed (ms). */
  epochRefreshMs: number;
  /** Concurrent identical misses wait for one execution (request coalescing). */
  coalesce: boolean;
}

export interface ReplaySettings {
  enabled: boolean;
  retentionMs: number;
  /** Byte budget of each keyed environment (production, certification). */
  maxBytes: number;
  /** Byte budget of the playground's records: keyless traffic never evicts keyed records. */
  playgroundMaxBytes: number;
  /** Records holding personal data: their own, shorter retention and budget per environment. */
  personal: { retentionMs: number; maxBytes: number };
  /** AES-256 key (REPLAY_PII_KEY) that seals personal data in records; null = not stored at all. */
  piiKey: Buffer | null;
  queueMaxRecords: number;
  queueMaxBytes: number;
  /** Embedded store: a segment file is closed once it reaches this size. */
  segmentBytes: number;
  /** How long a failed batch write is retried before its records are dropped (ms; 0 = no retry; default 10 s). */
  writeRetryMs?: number;
  /** The longest a record waits in its batch before the batch is written (ms; default 50; a batch of 500 is written at once). */
  flushMs?: number;
}

export interface CacheReplaySettings {
  cache: CacheSettings;
  replay: ReplaySettings;
}

/** Every US time zone with a distinct UTC offset (Hawaii to Eastern; Arizona has no DST). */
export const US_TIME_ZONES = [
  'Pacific/Honolulu',
  'America/Anchorage',
  'America/Los_Angeles',
  'America/Phoenix',
  'America/Denver',
  'America/Chicago',
  'America/New_York',
];

const H = 3_600_000;

/**
 * TTLs of the schema's `@cacheTtl` directives, parsed like the config file's. An invalid one is a
 * start-up error naming the schema file.
 */
export function schemaTtls(problems: string[], policy: Pick<SchemaPolicy, 'cacheTtl'> = schemaPolicy): Record<string, TtlRule> {
  const ttl: Record<string, TtlRule> = {};
  for (const [field, spec] of policy.cacheTtl) {
    const rule = parseRule(field, spec, problems, SCHEMA_FILE);
    if (rule) ttl[field] = rule;
  }
  return ttl;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: H, d: 24 * H };

/** "15m", "24h", "7d", "500ms", "90s"; a bare number means seconds. */
export function parseDuration(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : null;
  if (typeof value !== 'string') return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(value);
  if (!m) return null;
  return Math.round(Number(m[1]) * UNITS[(m[2] ?? 's').toLowerCase()]!);
}

/** "256MiB", "64mb", "1gib", "1000"; bare numbers are bytes. */
export function parseBytes(value: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?\s*$/i.exec(value);
  if (!m) return null;
  const unit = (m[2] ?? 'b').toLowerCase();
  const mult = unit === 'b' ? 1 : unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 ** 2 : 1024 ** 3;
  return Math.floor(Number(m[1]) * mult);
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** The longest TTL a file may set: beyond it a value is a slip (a bare number in ms, say). */
const MAX_TTL_MS = 365 * 24 * H;

function parseRule(field: string, raw: unknown, problems: string[], where: string): TtlRule | null {
  if (raw === 'never' || raw === false) return { kind: 'fixed', ms: 0 };
  const fixed = parseDuration(raw);
  if (fixed !== null && fixed > MAX_TTL_MS) {
    problems.push(`${where}: ttl.${field} must be at most 365d, got ${JSON.stringify(raw)} (a bare number is seconds)`);
    return null;
  }
  if (fixed !== null) return { kind: 'fixed', ms: fixed };
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const r = raw as Record<string, unknown>;
    const times = r.untilLocalTime ?? r.untilLocalTimes;
    if (times !== undefined) {
      const list = (Array.isArray(times) ? times : [times]).map(String);
      const bad = list.filter((t) => !HHMM.test(t));
      if (bad.length || list.length === 0) {
        problems.push(`${where}: ttl.${field}.untilLocalTime must be HH:MM times, got ${JSON.stringify(times)}`);
        return null;
      }
      const zones = r.timeZones === undefined ? US_TIME_ZONES : (Array.isArray(r.timeZones) ? r.timeZones : [r.timeZones]).map(String);
      for (const z of zones) {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: z });
        } catch {
          problems.push(`${where}: ttl.${field}.timeZones: unknown time zone "${z}"`);
          return null;
        }
      }
      const maxMs = r.max === undefined ? 24 * H : parseDuration(r.max);
      if (maxMs === null || maxMs > MAX_TTL_MS) {
        problems.push(`${where}: ttl.${field}.max must be a duration like 1h, at most 365d, got ${JSON.stringify(r.max)}`);
        return null;
      }
      return { kind: 'untilLocalTime', times: list, timeZones: zones, maxMs };
    }
  }
  problems.push(
    `${where}: ttl.${field} must be a duration (e.g. 15m, 24h, 0) or { untilLocalTime: [HH:MM], timeZones: [...], max: 1h }, got ${JSON.stringify(raw)}`,
  );
  return null;
}

function readConfigFile(file: string, problems: string[]): Record<string, unknown> | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`CACHE_CONFIG: cannot read ${file}: ${(err as Error).message}`);
    return null;
  }
  try {
    const parsed = file.endsWith('.json') ? JSON.parse(text) : yaml.load(text);
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('expected a mapping at the top level');
    return parsed as Record<string, unknown>;
  } catch (err) {
    problems.push(`${file}: ${(err as Error).message.split('\n')[0]}`);
    return null;
  }
}

export function loadCacheReplaySettings(env: NodeJS.ProcessEnv, cwd: string, problems: string[]): CacheReplaySettings {
  const read = envReader(env, problems);
  const bytes = (name: string, fallback: number, min: number) =>
    read.parsed(name, fallback, min, parseBytes, `a size of at least ${min} bytes (e.g. 64MiB)`);
  const duration = (name: string, fallback: number, min: number) =>
    read.parsed(name, fallback, min, parseDuration, `a duration of at least ${min} ms (e.g. 7d, 12h, 30m)`);
  const { int, bool } = read;

  // The TTL file: CACHE_CONFIG, else cache.config.yaml / .yml / .json in the working directory.
  let file: string | null = null;
  if (env.CACHE_CONFIG?.trim()) file = path.resolve(cwd, env.CACHE_CONFIG.trim());
  else
    for (const name of ['cache.config.yaml', 'cache.config.yml', 'cache.config.json']) {
      const candidate = path.resolve(cwd, name);
      if (fs.existsSync(candidate)) {
        file = candidate;
        break;
      }
    }
  const doc = file ? (readConfigFile(file, problems) ?? {}) : {};
  const where = file ?? 'cache config';
  const ttl = schemaTtls(problems);
  const rawTtl = doc.ttl;
  if (rawTtl !== undefined) {
    if (!rawTtl || typeof rawTtl !== 'object' || Array.isArray(rawTtl))
      problems.push(`${where}: ttl must be a mapping of root field to duration`);
    else
      for (const [field, raw] of Object.entries(rawTtl)) {
        // A misspelt field would otherwise leave the one meant on its schema TTL without a word.
        if (!schemaPolicy.rootFields.has(field)) {
          problems.push(`${where}: ttl.${field}: no such root field (the schema's: ${[...schemaPolicy.rootFields].join(', ')})`);
          continue;
        }
        const rule = parseRule(field, raw, problems, where);
        if (rule) ttl[field] = rule;
      }
  }
  // Personal data is never cached, whatever the file says.
  for (const field of schemaPolicy.neverCached) ttl[field] = { kind: 'fixed', ms: 0 };
  const defaultTtl =
    doc.defaultTtl === undefined
      ? { kind: 'fixed' as const, ms: 0 }
      : (parseRule('defaultTtl', doc.defaultTtl, problems, where) ?? { kind: 'fixed' as const, ms: 0 });
  const known = new Set(['enabled', 'generation', 'ttl', 'defaultTtl']);
  for (const k of Object.keys(doc)) if (!known.has(k)) problems.push(`${where}: unknown setting "${k}" (use ${[...known].join(', ')})`);
  const fileEnabled = doc.enabled === undefined ? true : doc.enabled === true;
  if (doc.enabled !== undefined && typeof doc.enabled !== 'boolean') problems.push(`${where}: enabled must be true or false`);

  const lruBytes = bytes('CACHE_LRU_BYTES', 32 * 1024 * 1024, 1024);
  const replayMax = bytes('REPLAY_MAX_BYTES', 256 * 1024 * 1024, 4096);
  const retentionMs = duration('REPLAY_RETENTION', 7 * 24 * H, 1000);
  const piiRetentionMs = duration('REPLAY_PII_RETENTION', Math.min(24 * H, retentionMs), 1000);
  if (piiRetentionMs > retentionMs) problems.push('REPLAY_PII_RETENTION must not be longer than REPLAY_RETENTION');
  return {
    cache: {
      enabled: bool('CACHE_ENABLED', fileEnabled),
      source: file ?? 'defaults',
      generation: doc.generation === undefined ? '1' : String(doc.generation),
      defaultTtl,
      ttl,
      lruBytes,
      maxEntryBytes: bytes('CACHE_MAX_ENTRY_BYTES', Math.min(lruBytes, 4 * 1024 * 1024), 256),
      redisReadTimeoutMs: int('CACHE_REDIS_TIMEOUT_MS', 200, 10, 10_000),
      epochRefreshMs: int('CACHE_EPOCH_REFRESH_MS', 5000, 100, 3_600_000),
      coalesce: bool('CACHE_COALESCE', true),
    },
    replay: {
      enabled: bool('REPLAY_ENABLED', true),
      retentionMs,
      maxBytes: replayMax,
      playgroundMaxBytes: bytes('REPLAY_PLAYGROUND_MAX_BYTES', Math.max(4096, Math.floor(replayMax / 8)), 4096),
      personal: { retentionMs: piiRetentionMs, maxBytes: bytes('REPLAY_PII_MAX_BYTES', Math.max(4096, Math.floor(replayMax / 4)), 4096) },
      piiKey: parsePiiKey(env.REPLAY_PII_KEY, problems),
      queueMaxRecords: int('REPLAY_QUEUE_MAX', 10_000, 1, 1_000_000),
      queueMaxBytes: bytes('REPLAY_QUEUE_BYTES', 16 * 1024 * 1024, 1024),
      segmentBytes: bytes('REPLAY_SEGMENT_BYTES', Math.max(1024, Math.min(16 * 1024 * 1024, Math.floor(replayMax / 8))), 1024),
      writeRetryMs: int('REPLAY_WRITE_RETRY_MS', 10_000, 0, 120_000),
      flushMs: int('REPLAY_FLUSH_MS', 50, 1, 60_000),
    },
  };
}

/** REPLAY_PII_KEY: 32 bytes as 64 hex digits or base64 (`openssl rand -base64 32`). */
export function parsePiiKey(raw: string | undefined, problems: string[]): Buffer | null {
  const text = raw?.trim();
  if (!text) return null;
  const key = /^[0-9a-f]{64}$/i.test(text)
    ? Buffer.from(text, 'hex')
    : /^[A-Za-z0-9+/]{43}=?$/.test(text)
      ? Buffer.from(text, 'base64')
      : null;
  if (key?.length === 32) return key;
  problems.push('REPLAY_PII_KEY must be 32 bytes: 64 hex digits or base64 (openssl rand -base64 32)');
  return null;
}
