// Every setting comes from the environment, is checked once at start-up, and a bad value stops the
// process with a message naming the variable (never a stack trace).
import path from 'node:path';
import { redactUrl } from '../feeds/upstream/fetch.js';
import { envReader, ConfigError } from '../lib/env-reader.js';
import { parseTrustProxy, type TrustProxy } from './http/client-ip.js';
import { DEFAULT_LIMITS, type QueryLimits } from './graphql/limits.js';
import type { EnvironmentName } from './http/plugin.js';
// --- response cache and replay (issue 4): settings parsed in server/stores/cache-config.ts ---
import { loadCacheReplaySettings, type CacheReplaySettings } from './stores/cache-config.js';
// --- end response cache and replay ---

export interface GatewayConfig {
  environments: EnvironmentName[];
  host: string;
  ports: Record<EnvironmentName, number> & { admin: number | null; ops: number | null };
  upstream: { start: boolean; port: number; url: string };
  meshDir: string;
  redisUrl: string | null;
  dataDir: string;
  keysFile: string;
  trustProxy: TrustProxy;
  enrollmentBaseUrl: string;
  utmSource: string;
  fillPartnerRef: boolean;
  corsOrigins: '*' | Set<string>;
  bodyLimitBytes: number;
  limits: { keyed: QueryLimits; playground: QueryLimits };
  playgroundAllowance: number;
  adminToken: string | null;
  logLevel: string;
  /** How long SIGTERM waits for in-flight requests before cutting connections. */
  shutdownGraceMs: number;
  // --- response cache and replay (issue 4) ---
  /** TTLs (cache.config.yaml / CACHE_CONFIG), CACHE_* and REPLAY_* sizes and retention. */
  cacheReplay: CacheReplaySettings;
  // --- end response cache and replay ---
}

export { ConfigError } from '../lib/env-reader.js';

const ENVIRONMENTS: EnvironmentName[] = ['production', 'certification', 'playground'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): GatewayConfig {
  const problems: string[] = [];
  const port = (name: string, fallback: number | null): number | null => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || n > 65535) {
      problems.push(`${name} must be a port number 0-65535, got "${raw}"`);
      return fallback;
    }
    return n;
  };
  const { int, bool } = envReader(env, problems);
  const url = (name: string, fallback: string, protocols: string[]): string => {
    const raw = env[name] ?? fallback;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) problems.push(`${name} must use ${protocols.join(' or ')}, got "${u.protocol}"`);
    } catch {
      problems.push(`${name} is not a valid URL: "${raw}"`);
    }
    return raw;
  };

  const environments = (env.ENVIRONMENTS ?? ENVIRONMENTS.join(','))
    .split(',').map((s) => s.trim()).filter(Boolean) as EnvironmentName[];
  for (const e of environments) if (!ENVIRONMENTS.includes(e)) problems.push(`ENVIRONMENTS: unknown environment "${e}" (use ${ENVIRONMENTS.join(', ')})`);
  if (environments.length === 0) problems.push('ENVIRONMENTS names no environment');

  const upstreamPort = port('UPSTREAM_PORT', 4010)!;
  const explicitUpstream = env.UPSTREAM_URL;
  const upstreamUrl = explicitUpstream ? url('UPSTREAM_URL', explicitUpstream, ['http:', 'https:']) : `http://127.0.0.1:${upstreamPort}`;
  const dataDir = path.resolve(cwd, env.DATA_DIR ?? 'data');
  const redisUrl = env.REDIS_URL?.trim() || null;
  if (redisUrl) url('REDIS_URL', redisUrl, ['redis:', 'rediss:', 'redis-sentinel:', 'redis-cluster:']);

  let trustProxy: TrustProxy = null;
  try {
    trustProxy = parseTrustProxy(env.TRUST_PROXY);
  } catch (err) {
    problems.push((err as Error).message);
  }
  const cors = env.CORS_ORIGINS?.trim();
  const adminToken = env.ADMIN_TOKEN?.trim() || null;
  if (adminToken && adminToken.length < 24) problems.push('ADMIN_TOKEN must be at least 24 characters');

  const limits = {
    keyed: { ...DEFAULT_LIMITS.keyed, maxDepth: int('KEYED_MAX_DEPTH', DEFAULT_LIMITS.keyed.maxDepth, 2, 50), maxAliases: int('KEYED_MAX_ALIASES', DEFAULT_LIMITS.keyed.maxAliases, 0, 500), maxRootFields: int('KEYED_MAX_ROOT_FIELDS', DEFAULT_LIMITS.keyed.maxRootFields, 1, 100), maxTokens: int('KEYED_MAX_TOKENS', DEFAULT_LIMITS.keyed.maxTokens, 50, 100000), maxCost: int('KEYED_MAX_COST', DEFAULT_LIMITS.keyed.maxCost, 10, 10_000_000), maxFanOut: int('KEYED_MAX_FAN_OUT', DEFAULT_LIMITS.keyed.maxFanOut, 1, 1000) },
    playground: { ...DEFAULT_LIMITS.playground, maxDepth: int('PLAYGROUND_MAX_DEPTH', DEFAULT_LIMITS.playground.maxDepth, 2, 50), maxAliases: int('PLAYGROUND_MAX_ALIASES', DEFAULT_LIMITS.playground.maxAliases, 0, 500), maxRootFields: int('PLAYGROUND_MAX_ROOT_FIELDS', DEFAULT_LIMITS.playground.maxRootFields, 1, 100), maxTokens: int('PLAYGROUND_MAX_TOKENS', DEFAULT_LIMITS.playground.maxTokens, 50, 100000), maxCost: int('PLAYGROUND_MAX_COST', DEFAULT_LIMITS.playground.maxCost, 10, 10_000_000), maxFanOut: int('PLAYGROUND_MAX_FAN_OUT', DEFAULT_LIMITS.playground.maxFanOut, 1, 1000) },
  };

  const config: GatewayConfig = {
    environments,
    host: env.HOST?.trim() || '127.0.0.1',
    ports: {
      production: port('PRODUCTION_PORT', 4000)!,
      certification: port('CERTIFICATION_PORT', 4001)!,
      playground: port('PLAYGROUND_PORT', 4002)!,
      admin: adminToken ? port('ADMIN_PORT', 4020) : null,
      ops: port('OPS_PORT', 9464),
    },
    upstream: { start: bool('START_REFERENCE_UPSTREAM', !explicitUpstream), port: upstreamPort, url: upstreamUrl },
    meshDir: path.resolve(cwd, env.MESH_DIR ?? '.'),
    redisUrl,
    dataDir,
    keysFile: path.resolve(cwd, env.KEYS_FILE ?? path.join(dataDir, 'keys.json')),
    trustProxy,
    enrollmentBaseUrl: url('ENROLLMENT_BASE_URL', 'https://enroll.energyplans.example/residential', ['https:']),
    utmSource: env.UTM_SOURCE?.trim() || 'energy_plan_api',
    fillPartnerRef: bool('FILL_PARTNER_REF', false),
    corsOrigins: !cors ? new Set() : cors === '*' ? '*' : new Set(cors.split(',').map((s) => s.trim())),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    limits,
    playgroundAllowance: int('PLAYGROUND_ALLOWANCE', 10, 0, 1_000_000),
    adminToken,
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    shutdownGraceMs: int('SHUTDOWN_GRACE_MS', 10_000, 0, 120_000),
    // --- response cache and replay (issue 4) ---
    cacheReplay: loadCacheReplaySettings(env, cwd, problems),
    // --- end response cache and replay ---
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** The upstream base URL of each Mesh source for one environment (see .meshrc.yaml header). */
export function feedUrlsFor(environment: EnvironmentName, sources: string[], env: NodeJS.ProcessEnv, fallback: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of sources) {
    const key = `${source.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_URL`;
    const own = env[key];
    const cert = environment === 'certification' ? env[`CERTIFICATION_${key}`] ?? env.CERTIFICATION_UPSTREAM_URL : undefined;
    out[source] = (cert ?? own ?? fallback).replace(/\/+$/, '');
  }
  return out;
}

/** feedUrlsFor with credentials and secret query parameters left out, for logs and config:check. */
export function shownFeedUrls(environment: EnvironmentName, sources: string[], env: NodeJS.ProcessEnv, fallback: string): Record<string, string> {
  return Object.fromEntries(Object.entries(feedUrlsFor(environment, sources, env, fallback)).map(([feed, url]) => [feed, redactUrl(url)]));
}
