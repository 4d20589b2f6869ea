// Every setting comes from the environment, is checked once at start-up, and a bad value stops the
// process with a message naming the variable (never a stack trace).
import path from 'node:path';
import { redactUrl } from '../sources/upstream/fetch.js';
import { ConfigError } from '../lib/env-reader.js';
import type { LogLevel } from '../lib/logger.js';
import { readSettings } from '../lib/settings.js';
import type { z } from 'zod';
import type { TrustProxy } from './http/client-ip.js';
import { queryLimitSettings, type QueryLimits } from './graphql/limits.js';
import type { EnvironmentName } from './http/plugin.js';
import { listenerSettings, type ConnectionLimits } from './http/listener-settings.js';
// Response cache settings are parsed in cache/cache-config.ts, replay log settings in stores/replay-settings.ts.
import { loadCacheSettings, type CacheSettings } from '../cache/cache-config.js';
import { loadReplaySettings, type ReplaySettings } from '../stores/replay-settings.js';
import type { PlaygroundProcessSettings } from './playground-process.js';
import { consoleSettings as consoleSchema, gatewaySettings, logSettings } from './gateway-settings.js';
import { loadTlsPair, type TlsFiles } from './http/tls.js';
import { tracingSettings, type TracingSettings } from './observability/tracing-config.js';
import { withoutTrailing } from '../lib/trailing.js';

export interface GatewayConfig {
  environments: EnvironmentName[];
  host: string;
  /** Where the unauthenticated ops endpoint (metrics, healthz) listens: loopback unless OPS_HOST says otherwise. */
  opsHost: string;
  /** Where the admin endpoint listens: loopback unless ADMIN_HOST says otherwise. */
  adminHost: string;
  ports: Record<EnvironmentName, number> & { admin: number | null; ops: number | null; opsVariable: 'OPS_PORT' | 'PLAYGROUND_OPS_PORT' };
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
  /** PERSISTED_QUERIES_PLAYGROUND_MAX_BYTES: the playground's own persisted-query budget. */
  persistedQueryPlaygroundMaxBytes: number;
  limits: { keyed: QueryLimits; playground: QueryLimits };
  playgroundAllowance: number;
  /** Free playground requests per client IP per window (server/plugins/playground-allowance.ts, cache/free-rate.ts); points 0 = off. */
  playgroundFreeRate: { points: number; windowSeconds: number };
  /** Fair share of uncached keyed executions among partners (lib/fair-share.ts, server/plugins/partner-quota.ts). */
  partnerShare: { total: number; share: number; queue: number; maxWaitMs: number };
  /** The quota of a partner whose record sets none. */
  partnerQuotaDefault: 'unlimited' | { requestsPerSecond: number; burst: number };
  /** Connection budgets and timeouts of each environment's listener (server/http/connections.ts). */
  connections: { keyed: ConnectionLimits; playground: ConnectionLimits };
  adminToken: string | null;
  logLevel: LogLevel;
  /** GraphQL Mesh's own logger (mesh/mesh-logger.ts reads it from the environment when Mesh loads it). */
  meshLogLevel: LogLevel;
  /** How long SIGTERM waits for in-flight requests before cutting connections. */
  shutdownGraceMs: number;
  /** `npm start`: the playground in a process of its own (server/playground-process.ts). */
  playgroundProcess: PlaygroundProcessSettings;
  /** `npm start`: the admin listener in a process of its own (support/admin-process.ts), at this niceness (0 = the keyed listeners'). */
  adminProcess: { enabled: boolean; nice: number };
  /** WORKERS: node:cluster workers sharing each listener's port (server/workers.ts); 1 = one process, no cluster. */
  workers: number;
  /** HTTPS on the partner listeners (TLS_CERT_FILE + TLS_KEY_FILE; HTTP/2 too with TLS_HTTP2), null for plain HTTP. */
  tls: TlsFiles | null;
  /** TTLs (schema, cache.config.yaml / CACHE_CONFIG), CACHE_* and REPLAY_* sizes and retention. */
  cacheReplay: { cache: CacheSettings; replay: ReplaySettings };
  // Support console and certification onboarding.
  /** Enrollment links answered by the certification environment: the certification checkout. */
  certificationEnrollmentBaseUrl: string;
  console: ConsoleSettings;
  /** OpenTelemetry traces (OTEL_*, TRACE_*: server/observability/tracing-config.ts); off without an OTLP endpoint. */
  tracing: TracingSettings;
}

export interface ConsoleSettings {
  /** Partner records and certification test IPs (PARTNERS_FILE, default beside KEYS_FILE). */
  partnersFile: string;
  /** AUDIT_RETENTION: how long audit entries are kept; never shorter than replay records. */
  auditRetentionMs: number;
  /** AUDIT_MAX_ENTRIES: the audit trail's size; beyond it the oldest noise entries go first. */
  auditMaxEntries: number;
  /** CONSOLE_SIGN_IN_FAILURES refused sign-ins per client address per CONSOLE_SIGN_IN_WINDOW, then 429. */
  signInLimit: { failures: number; windowMs: number };
  /** CONSOLE_SESSION_TTL: how long a console sign-in lasts. */
  sessionTtlMs: number;
  /** CONSOLE_PAGES_PER_SECOND: console requests started per second per process (0: unpaced). */
  pagesPerSecond: number;
  /** CHECKOUT_TOKEN: a bearer token for the certification checkout's allow-list routes only. */
  checkoutToken: string | null;
}

export { ConfigError } from '../lib/env-reader.js';

/** The gateway's own settings, read (server/gateway-settings.ts). */
type Settings = z.output<typeof gatewaySettings> & z.output<typeof consoleSchema> & z.output<typeof logSettings>;

/**
 * Every setting, read by the concerns that declare them and checked across concerns; throws a
 * ConfigError listing every problem, each naming its variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): GatewayConfig {
  const problems: string[] = [];
  // A concern's settings; its defaults when a check across its settings failed (the problems say so).
  const read = <T>(schema: z.ZodType<T>): T => readSettings(schema, env, problems) ?? schema.parse({});
  const s: Settings = { ...read(gatewaySettings), ...read(consoleSchema), ...read(logSettings) };
  const listener = read(listenerSettings);
  const dataDir = path.resolve(cwd, s.dataDir);
  const keysFile = path.resolve(cwd, s.keysFile ?? path.join(dataDir, 'keys.json'));
  const cacheReplay = { cache: loadCacheSettings(env, cwd, problems), replay: loadReplaySettings(env, problems) };
  const config: GatewayConfig = {
    environments: s.environments,
    host: s.host,
    // Operator surfaces stay on loopback even when HOST opens the partner listeners to the network.
    opsHost: s.opsHost,
    adminHost: s.adminHost,
    ports: {
      production: s.productionPort,
      certification: s.certificationPort,
      playground: s.playgroundPort,
      admin: s.adminToken ? s.adminPort : null,
      ops: s.opsPort,
      // The playground process gets its parent's PLAYGROUND_OPS_PORT as OPS_PORT: name the one to change.
      opsVariable: s.playgroundChildNice === null ? 'OPS_PORT' : 'PLAYGROUND_OPS_PORT',
    },
    upstream: {
      start: s.startReferenceUpstream,
      port: s.upstreamPort,
      url: s.upstreamUrl ?? `http://127.0.0.1:${s.upstreamPort}`,
    },
    meshDir: path.resolve(cwd, s.meshDir),
    redisUrl: s.redisUrl,
    dataDir,
    keysFile,
    trustProxy: listener.trustProxy,
    enrollmentBaseUrl: s.enrollmentBaseUrl,
    utmSource: s.utmSource,
    fillPartnerRef: s.fillPartnerRef,
    corsOrigins: listener.corsOrigins,
    bodyLimitBytes: listener.bodyLimitBytes,
    persistedQueryMaxBytes: s.persistedQueriesMaxBytes,
    persistedQueryPlaygroundMaxBytes: s.persistedQueriesPlaygroundMaxBytes,
    limits: read(queryLimitSettings),
    playgroundAllowance: s.playgroundAllowance,
    playgroundFreeRate: { points: s.playgroundFreeRequests, windowSeconds: s.playgroundFreeWindowSeconds },
    partnerQuotaDefault: s.partnerQuotaDefault,
    partnerShare: {
      total: s.partnerExecutions,
      share: s.partnerExecutionShare,
      queue: s.partnerQueue,
      maxWaitMs: s.partnerQueueWaitMs,
    },
    connections: listener.connections,
    adminToken: s.adminToken,
    logLevel: s.logLevel,
    meshLogLevel: s.meshLogLevel,
    shutdownGraceMs: s.shutdownGraceMs,
    tls: tlsOf(s, cwd, problems),
    playgroundProcess: {
      enabled: s.playgroundProcess,
      opsPort: s.playgroundOpsPort,
      nice: s.playgroundNice,
      workers: workersOf(s, 'playgroundWorkers', problems),
    },
    adminProcess: { enabled: s.adminProcess, nice: s.adminNice },
    workers: workersOf(s, 'workers', problems),
    cacheReplay,
    certificationEnrollmentBaseUrl: s.certificationEnrollmentBaseUrl,
    console: consoleSettings(s, cwd, keysFile, cacheReplay.replay.retentionMs, problems),
    tracing: read(tracingSettings),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** A value checked by a parser that throws a message naming its variable; null when unset or wrong. */
function checked<T>(problems: string[], raw: string | null | undefined, parse: (raw: string) => T): T | null {
  if (raw === null || raw === undefined) return null;
  try {
    return parse(raw);
  } catch (err) {
    problems.push((err as Error).message);
    return null;
  }
}

function tlsOf(s: Settings, cwd: string, problems: string[]): TlsFiles | null {
  const { tlsCertFile: certFile, tlsKeyFile: keyFile, tlsHttp2: http2 } = s;
  if (http2 && !(certFile && keyFile)) {
    problems.push(
      'TLS_HTTP2 needs TLS_CERT_FILE and TLS_KEY_FILE: the gateway serves HTTP/2 over TLS only (behind a TLS-terminating load balancer, let ' +
        'the load balancer speak HTTP/2)',
    );
  }
  if (!certFile || !keyFile) {
    if (certFile || keyFile)
      problems.push(
        'TLS_CERT_FILE and TLS_KEY_FILE must be set together (or neither, for plain HTTP behind a TLS-terminating load balancer)',
      );
    return null;
  }
  const tls = { certFile: path.resolve(cwd, certFile), keyFile: path.resolve(cwd, keyFile), http2 };
  return checked(problems, 'set', () => (loadTlsPair(tls), tls));
}

/**
 * WORKERS or PLAYGROUND_WORKERS. Workers share state through Redis only: the embedded stores
 * (allowance log, replay files, in-process persisted queries) belong to one process.
 */
function workersOf(s: Settings, field: 'workers' | 'playgroundWorkers', problems: string[]): number {
  const n = s[field];
  const name = field === 'workers' ? 'WORKERS' : 'PLAYGROUND_WORKERS';
  if (n > 1 && !s.redisUrl)
    problems.push(
      `${name}=${n} needs REDIS_URL: workers share the playground allowance, free-request rate, replay log and persisted queries ` +
        `through Redis (the embedded store belongs to one process); set REDIS_URL or ${name}=1`,
    );
  return n;
}

function consoleSettings(s: Settings, cwd: string, keysFile: string, replayRetentionMs: number, problems: string[]): ConsoleSettings {
  const auditRetentionMs = s.auditRetention ?? Math.max(400 * 86_400_000, replayRetentionMs);
  if (auditRetentionMs < replayRetentionMs)
    problems.push('AUDIT_RETENTION must be at least REPLAY_RETENTION: the audit trail outlives the records it points at');
  return {
    checkoutToken: s.checkoutToken,
    partnersFile: path.resolve(cwd, s.partnersFile ?? path.join(path.dirname(keysFile), 'partners.json')),
    auditRetentionMs,
    auditMaxEntries: s.auditMaxEntries,
    signInLimit: { failures: s.consoleSignInFailures, windowMs: s.consoleSignInWindow },
    sessionTtlMs: s.consoleSessionTtl,
    pagesPerSecond: s.consolePagesPerSecond,
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

/**
 * Families of settings named after something else (a Mesh source): `<SOURCE>_URL` and
 * `CERTIFICATION_<SOURCE>_URL`, read by feedUrlsFor for each source of .meshrc.yaml.
 */
export const SETTING_FAMILIES = [
  {
    pattern: /^(CERTIFICATION_)?[A-Z][A-Z0-9_]*_URL$/,
    name: '<SOURCE>_URL, CERTIFICATION_<SOURCE>_URL',
    description: "one feed's base URL (production; certification)",
  },
];

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
    out[source] = withoutTrailing(cert ?? own ?? publicFeedUrl(source, env) ?? fallback, '/');
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
