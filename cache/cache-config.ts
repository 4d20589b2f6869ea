// Settings of the response cache: TTLs per root field from one config file (`cache.config.yaml`,
// or `.json`, at the repo root; another file with CACHE_CONFIG), sizes from environment variables
// (declared here as the config they fill). Parsed once by server/config.ts; a bad value stops the
// process with a message naming the variable or the file.
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import type { z } from 'zod';
import { kinds as k, parseDuration, readSettingsOrDefaults, setting, settingsSchema } from '../lib/settings.js';
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

const MiB = 1024 * 1024;

/** The response cache's environment variables (the TTL file adds the TTLs and may switch it off). */
export const cacheEnvSettings = settingsSchema({
  configFile: setting(
    'CACHE_CONFIG',
    k.path(),
    { text: 'cache.config.yaml (or .yml, .json) in the working directory', from: () => null },
    'the TTL file of the response cache',
  ),
  enabled: setting('CACHE_ENABLED', k.bool(), { text: "on (or the TTL file's enabled)", from: () => null }, 'the response cache on or off'),
  /** Byte bound of the in-process LRU (sum of cached body sizes). */
  lruBytes: setting('CACHE_LRU_BYTES', k.bytes(1024), 32 * MiB, 'in-process cache level'),
  /** Larger answers are not cached at all. */
  maxEntryBytes: setting(
    'CACHE_MAX_ENTRY_BYTES',
    k.bytes(256),
    { text: 'CACHE_LRU_BYTES, at most 4 MiB', from: (v) => Math.min(v.CACHE_LRU_BYTES as number, 4 * MiB) },
    'largest answer cached',
  ),
  /** Byte budget of the Redis level (what Redis holds for the entries); 0 = bounded by TTLs only. */
  redisMaxBytes: setting(
    'CACHE_REDIS_MAX_BYTES',
    k.bytes(0),
    256 * MiB,
    "the Redis level's budget (what Redis holds for it, shared by every instance); the entries that expire first are trimmed; 0 = bounded by TTLs only",
  ),
  /** Give up on a Redis read after this long and answer from upstream (ms). */
  redisReadTimeoutMs: setting(
    'CACHE_REDIS_TIMEOUT_MS',
    k.int(10, 10_000),
    200,
    'how long a cache read waits for Redis before answering as a miss',
  ),
  /** Re-read purge epochs from Redis this often, in case a purge message was missed (ms). */
  epochRefreshMs: setting(
    'CACHE_EPOCH_REFRESH_MS',
    k.int(100, 3_600_000),
    5000,
    'how often each instance re-reads the purge epochs from Redis, beside the purge messages it is sent',
  ),
  /** Concurrent identical misses wait for one execution (request coalescing). */
  coalesce: setting('CACHE_COALESCE', k.bool(), true, 'request coalescing: concurrent identical misses wait for one execution'),
});

export type CacheSettings = Omit<z.output<typeof cacheEnvSettings>, 'configFile' | 'enabled'> & {
  enabled: boolean;
  /** Where the TTLs came from (a file path, or "defaults"). */
  source: string;
  /** Bump in the config file to invalidate every cached answer at the next deploy. */
  generation: string;
  /** TTL of root fields not listed in `ttl` (0 = not cached). */
  defaultTtl: TtlRule;
  ttl: Record<string, TtlRule>;
};

/** Every US time zone with a distinct UTC offset (Hawaii to Eastern; Arizona has no DST). */
const US_TIME_ZONES = [
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

/** The response cache's settings: its environment variables and its TTL file. */
export function loadCacheSettings(env: NodeJS.ProcessEnv, cwd: string, problems: string[]): CacheSettings {
  const { configFile, enabled, ...sizes } = readSettingsOrDefaults(cacheEnvSettings, env, problems);
  const file = cacheConfigFile(configFile, cwd);
  const doc = file ? (readConfigFile(file, problems) ?? {}) : {};
  const where = file ?? 'cache config';
  const fileEnabled = fileSettings(doc, where, problems);
  return {
    enabled: enabled ?? fileEnabled,
    source: file ?? 'defaults',
    generation: doc.generation === undefined ? '1' : String(doc.generation),
    defaultTtl: defaultTtlOf(doc, where, problems),
    ttl: ttlsOf(doc, where, problems),
    ...sizes,
  };
}

/** CACHE_CONFIG, else cache.config.yaml / .yml / .json in the working directory, else none. */
function cacheConfigFile(configured: string | null, cwd: string): string | null {
  if (configured) return path.resolve(cwd, configured);
  for (const name of ['cache.config.yaml', 'cache.config.yml', 'cache.config.json']) {
    const candidate = path.resolve(cwd, name);
    if (fs.existsSync(candidate)) return candidate;
  }
  return null;
}

/** The file's own settings checked; its `enabled` (default true). */
function fileSettings(doc: Record<string, unknown>, where: string, problems: string[]): boolean {
  const known = new Set(['enabled', 'generation', 'ttl', 'defaultTtl']);
  for (const k of Object.keys(doc)) if (!known.has(k)) problems.push(`${where}: unknown setting "${k}" (use ${[...known].join(', ')})`);
  if (doc.enabled !== undefined && typeof doc.enabled !== 'boolean') problems.push(`${where}: enabled must be true or false`);
  return doc.enabled === undefined ? true : doc.enabled === true;
}

function defaultTtlOf(doc: Record<string, unknown>, where: string, problems: string[]): TtlRule {
  if (doc.defaultTtl === undefined) return { kind: 'fixed', ms: 0 };
  return parseRule('defaultTtl', doc.defaultTtl, problems, where) ?? { kind: 'fixed', ms: 0 };
}

/** The schema's TTLs, overridden by the file's per root field; personal data never cached. */
function ttlsOf(doc: Record<string, unknown>, where: string, problems: string[]): Record<string, TtlRule> {
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
  return ttl;
}
