// Every setting comes from the environment, is checked once at start-up, and a bad value stops the
// process with a message naming the variable (never a stack trace).
import path from 'node:path';
import { redactUrl } from '../sources/upstream/fetch.js';
import { envReader, ConfigError } from '../lib/env-reader.js';
import { LOG_LEVELS, type LogLevel } from '../lib/logger.js';
import { parseTrustProxy, type TrustProxy } from './http/client-ip.js';
import { DEFAULT_LIMITS, type QueryLimits } from './graphql/limits.js';
import type { EnvironmentName } from './http/plugin.js';
import { connectionLimits, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './http/connections.js';
// Response cache and replay settings are parsed in cache/cache-config.ts.
import { loadCacheReplaySettings, parseDuration, type CacheReplaySettings } from '../cache/cache-config.js';
import { parseRedisUrl } from '../cache/redis-url.js';
import type { PlaygroundProcessSettings } from './playground-process.js';
import { loadTlsPair, type TlsFiles } from './http/tls.js';

export interface GatewayConfig {
  environments: EnvironmentName[];
  host: string;
  /** Where the unauthenticated ops endpoint (metrics, healthz) listens: loopback unless OPS_HOST says otherwise. */
  opsHost: string;
  /** Where the admin endpoint listens: loopback unless ADMIN_HOST says otherwise. */
  adminHost: string;
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
  /** Bytes of persisted-query (APQ) documents kept per environment. */
  persistedQueryMaxBytes: number;
  limits: { keyed: QueryLimits; playground: QueryLimits };
  playgroundAllowance: number;
  /** Free playground requests per client IP per window (server/plugins/playground-allowance.ts, cache/free-rate.ts); points 0 = off. */
  playgroundFreeRate: { points: number; windowSeconds: number };
  /** Connection budgets and timeouts of each environment's listener (server/http/connections.ts). */
  connections: { keyed: ConnectionLimits; playground: ConnectionLimits };
  adminToken: string | null;
  logLevel: LogLevel;
  /** GraphQL Mesh's own logger (server/mesh-logger.ts reads it from the environment when Mesh loads it). */
  meshLogLevel: LogLevel;
  /** How long SIGTERM waits for in-flight requests before cutting connections. */
  shutdownGraceMs: number;
  /** `npm start`: the playground in a process of its own (server/playground-process.ts). */
  playgroundProcess: PlaygroundProcessSettings;
  /** HTTPS on the partner listeners (TLS_CERT_FILE + TLS_KEY_FILE; HTTP/2 too with TLS_HTTP2), null for plain HTTP. */
  tls: TlsFiles | null;
  /** TTLs (schema, cache.config.yaml / CACHE_CONFIG), CACHE_* and REPLAY_* sizes and retention. */
  cacheReplay: CacheReplaySettings;
  // Support console and certification onboarding.
  /** Enrollment links answered by the certification environment: the certification checkout. */
  certificationEnrollmentBaseUrl: string;
  console: ConsoleSettings;
}

export interface ConsoleSettings {
  /** Partner records and certification test IPs (PARTNERS_FILE, default beside KEYS_FILE). */
  partnersFile: string;
  /** AUDIT_RETENTION: how long audit entries are kept; never shorter than replay records. */
  auditRetentionMs: number;
  /** CONSOLE_SESSION_TTL: how long a console sign-in lasts. */
  sessionTtlMs: number;
  /** CHECKOUT_TOKEN: a bearer token for the certification checkout's allow-list routes only. */
  checkoutToken: string | null;
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
  const { int, bool, oneOf } = envReader(env, problems);
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
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean) as EnvironmentName[];
  for (const e of environments)
    if (!ENVIRONMENTS.includes(e)) problems.push(`ENVIRONMENTS: unknown environment "${e}" (use ${ENVIRONMENTS.join(', ')})`);
  if (environments.length === 0) problems.push('ENVIRONMENTS names no environment');

  const upstreamPort = port('UPSTREAM_PORT', 4010)!;
  const explicitUpstream = env.UPSTREAM_URL;
  const upstreamUrl = explicitUpstream ? url('UPSTREAM_URL', explicitUpstream, ['http:', 'https:']) : `http://127.0.0.1:${upstreamPort}`;
  const dataDir = path.resolve(cwd, env.DATA_DIR ?? 'data');
  const redisUrl = env.REDIS_URL?.trim() || null;
  if (redisUrl) {
    try {
      parseRedisUrl(redisUrl);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }

  let trustProxy: TrustProxy = null;
  try {
    trustProxy = parseTrustProxy(env.TRUST_PROXY);
  } catch (err) {
    problems.push((err as Error).message);
  }
  let tls: TlsFiles | null = null;
  const certFile = env.TLS_CERT_FILE?.trim();
  const keyFile = env.TLS_KEY_FILE?.trim();
  const http2 = bool('TLS_HTTP2', false);
  if (http2 && !(certFile && keyFile)) {
    problems.push(
      'TLS_HTTP2 needs TLS_CERT_FILE and TLS_KEY_FILE: the gateway serves HTTP/2 over TLS only (behind a TLS-terminating load balancer, let the load balancer speak HTTP/2)',
    );
  }
  if (certFile && keyFile) {
    tls = { certFile: path.resolve(cwd, certFile), keyFile: path.resolve(cwd, keyFile), http2 };
    try {
      loadTlsPair(tls);
    } catch (err) {
      problems.push((err as Error).message);
    }
  } else if (certFile || keyFile) {
    problems.push(
      'TLS_CERT_FILE and TLS_KEY_FILE must be set together (or neither, for plain HTTP behind a TLS-terminating load balancer)',
    );
  }
  const cors = env.CORS_ORIGINS?.trim();
  const adminToken = env.ADMIN_TOKEN?.trim() || null;
  if (adminToken && adminToken.length < 24) problems.push('ADMIN_TOKEN must be at least 24 characters');

  const limits = {
    keyed: {
      ...DEFAULT_LIMITS.keyed,
      maxDepth: int('KEYED_MAX_DEPTH', DEFAULT_LIMITS.keyed.maxDepth, 2, 50),
      maxAliases: int('KEYED_MAX_ALIASES', DEFAULT_LIMITS.keyed.maxAliases, 0, 500),
      maxRootFields: int('KEYED_MAX_ROOT_FIELDS', DEFAULT_LIMITS.keyed.maxRootFields, 1, 100),
      maxTokens: int('KEYED_MAX_TOKENS', DEFAULT_LIMITS.keyed.maxTokens, 50, 100000),
      maxQueryBytes: int('KEYED_MAX_QUERY_BYTES', DEFAULT_LIMITS.keyed.maxQueryBytes, 256, 10 * 1024 * 1024),
      documentCacheBytes: int('KEYED_DOCUMENT_CACHE_BYTES', DEFAULT_LIMITS.keyed.documentCacheBytes, 0, 1024 * 1024 * 1024),
      maxCost: int('KEYED_MAX_COST', DEFAULT_LIMITS.keyed.maxCost, 10, 10_000_000),
      maxFanOut: int('KEYED_MAX_FAN_OUT', DEFAULT_LIMITS.keyed.maxFanOut, 1, 1000),
    },
    playground: {
      ...DEFAULT_LIMITS.playground,
      maxDepth: int('PLAYGROUND_MAX_DEPTH', DEFAULT_LIMITS.playground.maxDepth, 2, 50),
      maxAliases: int('PLAYGROUND_MAX_ALIASES', DEFAULT_LIMITS.playground.maxAliases, 0, 500),
      maxRootFields: int('PLAYGROUND_MAX_ROOT_FIELDS', DEFAULT_LIMITS.playground.maxRootFields, 1, 100),
      maxTokens: int('PLAYGROUND_MAX_TOKENS', DEFAULT_LIMITS.playground.maxTokens, 50, 100000),
      maxQueryBytes: int('PLAYGROUND_MAX_QUERY_BYTES', DEFAULT_LIMITS.playground.maxQueryBytes, 256, 10 * 1024 * 1024),
      documentCacheBytes: int('PLAYGROUND_DOCUMENT_CACHE_BYTES', DEFAULT_LIMITS.playground.documentCacheBytes, 0, 1024 * 1024 * 1024),
      maxCost: int('PLAYGROUND_MAX_COST', DEFAULT_LIMITS.playground.maxCost, 10, 10_000_000),
      maxFanOut: int('PLAYGROUND_MAX_FAN_OUT', DEFAULT_LIMITS.playground.maxFanOut, 1, 1000),
    },
  };

  const keysFile = path.resolve(cwd, env.KEYS_FILE ?? path.join(dataDir, 'keys.json'));
  const cacheReplay = loadCacheReplaySettings(env, cwd, problems);
  const config: GatewayConfig = {
    environments,
    host: env.HOST?.trim() || '127.0.0.1',
    // Operator surfaces stay on loopback even when HOST opens the partner listeners to the network.
    opsHost: env.OPS_HOST?.trim() || '127.0.0.1',
    adminHost: env.ADMIN_HOST?.trim() || '127.0.0.1',
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
    keysFile,
    trustProxy,
    enrollmentBaseUrl: url('ENROLLMENT_BASE_URL', 'https://enroll.energyplans.example/residential', ['https:']),
    utmSource: env.UTM_SOURCE?.trim() || 'energy_plan_api',
    fillPartnerRef: bool('FILL_PARTNER_REF', false),
    corsOrigins: !cors ? new Set() : cors === '*' ? '*' : new Set(cors.split(',').map((s) => s.trim())),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    persistedQueryMaxBytes: int('PERSISTED_QUERIES_MAX_BYTES', 8 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    limits,
    playgroundAllowance: int('PLAYGROUND_ALLOWANCE', 10, 0, 1_000_000),
    playgroundFreeRate: {
      points: int('PLAYGROUND_FREE_REQUESTS', 60, 0, 1_000_000),
      windowSeconds: int('PLAYGROUND_FREE_WINDOW_SECONDS', 60, 1, 86_400),
    },
    connections: {
      keyed: connectionLimits('KEYED', DEFAULT_CONNECTION_LIMITS.keyed, int),
      playground: connectionLimits('PLAYGROUND', DEFAULT_CONNECTION_LIMITS.playground, int),
    },
    adminToken,
    logLevel: oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    meshLogLevel: oneOf('MESH_LOG_LEVEL', 'warn', LOG_LEVELS),
    shutdownGraceMs: int('SHUTDOWN_GRACE_MS', 10_000, 0, 120_000),
    tls,
    playgroundProcess: {
      enabled: bool('PLAYGROUND_PROCESS', true),
      opsPort: port('PLAYGROUND_OPS_PORT', 9465)!,
      nice: int('PLAYGROUND_NICE', 10, 0, 19),
    },
    cacheReplay,
    certificationEnrollmentBaseUrl: url(
      'CERTIFICATION_ENROLLMENT_BASE_URL',
      'https://enroll-certification.energyplans.example/residential',
      ['https:'],
    ),
    console: loadConsoleSettings(env, cwd, keysFile, cacheReplay.replay.retentionMs, problems),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

function loadConsoleSettings(
  env: NodeJS.ProcessEnv,
  cwd: string,
  keysFile: string,
  replayRetentionMs: number,
  problems: string[],
): ConsoleSettings {
  const duration = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const ms = parseDuration(raw);
    if (ms === null || ms < min || ms > max) {
      problems.push(`${name} must be a duration like 30m, 12h or 400d between ${min / 1000}s and ${max / 86_400_000}d, got "${raw}"`);
      return fallback;
    }
    return ms;
  };
  const day = 86_400_000;
  const auditRetentionMs = duration('AUDIT_RETENTION', Math.max(400 * day, replayRetentionMs), 60_000, 3650 * day);
  if (auditRetentionMs < replayRetentionMs)
    problems.push('AUDIT_RETENTION must be at least REPLAY_RETENTION: the audit trail outlives the records it points at');
  const checkoutToken = env.CHECKOUT_TOKEN?.trim() || null;
  if (checkoutToken && checkoutToken.length < 24) problems.push('CHECKOUT_TOKEN must be at least 24 characters');
  return {
    checkoutToken,
    partnersFile: path.resolve(cwd, env.PARTNERS_FILE ?? path.join(path.dirname(keysFile), 'partners.json')),
    auditRetentionMs,
    sessionTtlMs: duration('CONSOLE_SESSION_TTL', 8 * 3_600_000, 60_000, 7 * day),
  };
}

/**
 * Feeds with a public service of their own: with its API key set and no `<SOURCE>_URL`, the source
 * goes there instead of the reference upstream (EIA's API v2; the key is sent as `api_key` by the
 * source block in .meshrc.yaml).
 */
const PUBLIC_FEED_URLS: Record<string, (env: NodeJS.ProcessEnv) => string | undefined> = {
  Eia: (env) => (env.EIA_API_KEY?.trim() ? 'https://api.eia.gov' : undefined),
};

const publicFeedUrl = (source: string, env: NodeJS.ProcessEnv): string | undefined =>
  Object.hasOwn(PUBLIC_FEED_URLS, source) ? PUBLIC_FEED_URLS[source]!(env) : undefined;

/** The upstream base URL of each Mesh source for one environment (see .meshrc.yaml header). */
export function feedUrlsFor(
  environment: EnvironmentName,
  sources: string[],
  env: NodeJS.ProcessEnv,
  fallback: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of sources) {
    const key = `${source.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_URL`;
    const own = env[key];
    const cert = environment === 'certification' ? (env[`CERTIFICATION_${key}`] ?? env.CERTIFICATION_UPSTREAM_URL) : undefined;
    out[source] = (cert ?? own ?? publicFeedUrl(source, env) ?? fallback).replace(/\/+$/, '');
  }
  return out;
}

/**
 * `<SOURCE>_API_KEY` of each source that has one set (e.g. EIA_API_KEY for Eia), for
 * `{context.feedKeys.<Source>}` in .meshrc.yaml; the fetch layer redacts it from logged URLs.
 */
export function feedKeysFor(sources: string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of sources) {
    const value = env[`${source.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_API_KEY`]?.trim();
    if (value) out[source] = value;
  }
  return out;
}

/** feedUrlsFor with credentials and secret query parameters left out, for logs and config:check. */
export function shownFeedUrls(
  environment: EnvironmentName,
  sources: string[],
  env: NodeJS.ProcessEnv,
  fallback: string,
): Record<string, string> {
  return Object.fromEntries(Object.entries(feedUrlsFor(environment, sources, env, fallback)).map(([feed, url]) => [feed, redactUrl(url)]));
}
