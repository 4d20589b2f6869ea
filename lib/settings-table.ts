// Every environment setting, declared once: name, kind (type and bounds), default, which process
// reads it and what it means. Config loading (server/config.ts, cache/cache-config.ts,
// sources/upstream/upstream-config.ts), `npm run config:check`, the table in docs/operations.md
// (`npm run docs:settings`) and the test that every setting read is declared all derive from it.
import {
  kinds as k,
  readSettings,
  setting as declare,
  settingsSchema,
  type AnySetting,
  type Computed,
  type Kind,
  type Reader,
  type Setting,
} from './settings.js';
import type { z } from 'zod';
import { DEFAULT_PORT_BASE, MAX_PORT_BASE } from './ports.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const H = 3_600_000;
const DAY = 24 * H;
const MiB = 1024 * 1024;

/** A setting of this table: its name is its key (see `named`). */
const setting = <T, D extends T | null>(
  kind: Kind<T>,
  dflt: D | Computed<D>,
  description: string,
  readBy?: Reader[],
  extra?: { internal?: boolean },
): Setting<T, D> => declare('', kind, dflt, description, readBy, extra);

/** A port's default moved by PORT_BASE (lib/ports.ts): each default shifts by PORT_BASE - 4000. */
const shifted = (port: number) => ({
  text: `${port} (+ PORT_BASE − ${DEFAULT_PORT_BASE})`,
  from: (v: Record<string, unknown>) => port + (Number(v.PORT_BASE) - DEFAULT_PORT_BASE),
});

const LISTENERS = {
  PORT_BASE: setting(
    k.int(1024, MAX_PORT_BASE),
    DEFAULT_PORT_BASE,
    'moves every default port together by PORT_BASE − 4000 (listeners, reference upstream, admin, ops; README.md "Ports"); ' +
      "a port's own variable wins; a port in use stops the start naming its variable",
    ['gateway', 'playground process', 'npm start', 'CLI', 'reference upstream'],
  ),
  ENVIRONMENTS: setting(
    k.list(),
    ['production', 'certification', 'playground'],
    'which listeners this process runs (production, certification, playground)',
  ),
  HOST: setting(
    k.text(),
    '127.0.0.1',
    'address the partner listeners bind (0.0.0.0 behind a load balancer); the ops and admin endpoints keep to OPS_HOST and ADMIN_HOST',
  ),
  PRODUCTION_PORT: setting(k.port(), shifted(4000), 'production listener port (0 = any free port)'),
  CERTIFICATION_PORT: setting(k.port(), shifted(4001), 'certification listener port (0 = any free port)'),
  PLAYGROUND_PORT: setting(k.port(), shifted(4002), 'playground listener port (0 = any free port)', ['gateway', 'playground process']),
  PLAYGROUND_PROCESS: setting(
    k.bool(),
    true,
    'the playground in a process of its own when this process serves it beside a keyed environment',
  ),
  PLAYGROUND_OPS_PORT: setting(k.port(), shifted(9465), "the playground process's /metrics and /healthz port", [
    'gateway',
    'playground process',
  ]),
  PLAYGROUND_NICE: setting(k.int(0, 19), 10, "the playground process's niceness (a lower CPU priority than the keyed listeners)"),
  PLAYGROUND_CHILD_NICE: setting(k.int(0, 19), null, 'the niceness the playground process applies to its threads', ['playground process'], {
    internal: true,
  }),
  WORKERS: setting(
    k.processes(256),
    1,
    "node:cluster workers sharing each keyed listener's port (auto: the cores this process may use); more than 1 needs REDIS_URL",
  ),
  PLAYGROUND_WORKERS: setting(
    k.processes(256),
    1,
    "the playground process's own workers (passed to it as WORKERS); more than 1 needs REDIS_URL",
  ),
  GATEWAY_WORKER_SLOT: setting(k.int(1, 256), null, "a worker's slot, set by the primary for each worker", ['gateway'], { internal: true }),
  OPS_HOST: setting(k.text(), '127.0.0.1', 'address of the ops endpoint (/metrics, /healthz, /readyz)'),
  OPS_PORT: setting(k.port(), shifted(9464), 'ops endpoint port'),
  ADMIN_TOKEN: setting(k.secret(24), null, 'admin HTTP endpoint for support tools and the support console; unset = off'),
  ADMIN_HOST: setting(k.text(), '127.0.0.1', 'address of the admin endpoint'),
  ADMIN_PORT: setting(k.port(), shifted(4020), 'admin endpoint port (only with ADMIN_TOKEN)'),
  ADMIN_PROCESS: setting(
    k.bool(),
    true,
    'the admin listener (admin API and support console) in a process of its own, at a lower CPU priority than the keyed listeners',
  ),
  ADMIN_NICE: setting(k.int(0, 19), 19, "the admin process's niceness (the lowest CPU priority by default: its pages are for people)"),
  ADMIN_CHILD_NICE: setting(
    k.int(0, 19),
    null,
    'the niceness the admin process applies to its threads; marks the admin process',
    ['admin process'],
    {
      internal: true,
    },
  ),
  SHUTDOWN_GRACE_MS: setting(k.int(0, 120_000), 10_000, 'how long SIGTERM waits for in-flight requests before cutting connections'),
  TLS_CERT_FILE: setting(
    k.path(),
    null,
    'HTTPS on the partner listeners (with TLS_KEY_FILE), HSTS, renewal without restart; unset = plain HTTP',
  ),
  TLS_KEY_FILE: setting(k.path(), null, 'the private key of TLS_CERT_FILE'),
  TLS_HTTP2: setting(k.bool(), false, 'HTTP/2 beside HTTP/1.1 on the TLS listeners (ALPN; needs TLS_CERT_FILE and TLS_KEY_FILE)'),
};

const DATA = {
  UPSTREAM_PORT: setting(k.port(), shifted(4010), 'port of the built-in reference upstream', ['gateway', 'npm start']),
  UPSTREAM_URL: setting(
    k.url(['http:', 'https:']),
    null,
    'base URL of every feed (per feed: <SOURCE>_URL); unset = the reference upstream',
  ),
  CERTIFICATION_UPSTREAM_URL: setting(
    k.url(['http:', 'https:']),
    null,
    "certification's base URL of every feed (per feed: CERTIFICATION_<SOURCE>_URL)",
  ),
  START_REFERENCE_UPSTREAM: setting(
    k.bool(),
    { text: 'on unless UPSTREAM_URL', from: (v) => v.UPSTREAM_URL === null },
    'start the reference upstream beside the gateway',
    ['npm start'],
  ),
  EIA_API_KEY: setting(
    k.secret(16),
    null,
    "EIA API v2 key, sent as api_key on every Eia call (redacted in logs); with it and no EIA_URL the Eia source goes to https://api.eia.gov, so energyInfoByState serves EIA's live figures (any <SOURCE>_API_KEY reaches its source block as {context.feedKeys.<Source>})",
    ['gateway', 'CLI'],
  ),
  MESH_DIR: setting(k.path(), '.', 'folder holding .meshrc.yaml'),
  REDIS_URL: setting(
    k.text(),
    null,
    'shared cache, allowance counters, replay log: redis://, rediss://, redis-sentinel://h:p,h:p/mymaster, redis-cluster://h:p,h:p; unset = the embedded store',
    ['gateway', 'playground process', 'CLI'],
  ),
  DATA_DIR: setting(k.path(), 'data', 'embedded store, replay files, keys file', ['gateway', 'playground process', 'CLI']),
  KEYS_FILE: setting(k.path(), { text: 'DATA_DIR/keys.json', from: () => null }, 'API key hashes', ['gateway', 'CLI']),
  PARTNERS_FILE: setting(
    k.path(),
    { text: 'partners.json beside KEYS_FILE', from: () => null },
    'partner records and certification test IPs',
    ['gateway', 'CLI'],
  ),
  ENROLLMENT_BASE_URL: setting(k.url(['https:']), 'https://enroll.energyplans.example/residential', 'base of headlessEnrollmentUrl'),
  CERTIFICATION_ENROLLMENT_BASE_URL: setting(
    k.url(['https:']),
    'https://enroll-certification.energyplans.example/residential',
    'base of headlessEnrollmentUrl in certification (the certification checkout)',
  ),
  UTM_SOURCE: setting(k.text(), 'energy_plan_api', 'utm_source of enrollment URLs'),
  FILL_PARTNER_REF: setting(k.bool(), false, "put the caller's partner code into ref instead of PARTNER_CODE"),
};

const PLAYGROUND = {
  PLAYGROUND_ALLOWANCE: setting(k.int(0, 1_000_000), 10, 'real calls per client IP on the playground, ever', [
    'gateway',
    'playground process',
    'CLI',
  ]),
  PLAYGROUND_FREE_REQUESTS: setting(k.int(0, 1_000_000), 60, 'free playground requests per client IP per window (0 = no limit)', [
    'gateway',
    'playground process',
  ]),
  PLAYGROUND_FREE_WINDOW_SECONDS: setting(k.int(1, 86_400), 60, 'the window of PLAYGROUND_FREE_REQUESTS', [
    'gateway',
    'playground process',
  ]),
  PERSISTED_QUERIES_MAX_BYTES: setting(
    k.int(64 * 1024, 1024 * MiB),
    8 * MiB,
    'bytes of persisted-query (APQ) entries kept per environment, least recently used evicted; each entry counts what it holds ' +
      '(document x 1.05 + 2 x hash + 208 bytes, see Persisted queries)',
  ),
  PERSISTED_QUERIES_PLAYGROUND_MAX_BYTES: setting(
    k.int(64 * 1024, 1024 * MiB),
    {
      text: 'PERSISTED_QUERIES_MAX_BYTES / 8, at least 64 KiB',
      from: (v) => Math.max(64 * 1024, Math.floor((v.PERSISTED_QUERIES_MAX_BYTES as number) / 8)),
    },
    "the playground's own persisted-query budget, counted the same way",
    ['gateway', 'playground process'],
  ),
};

const CONSOLE = {
  REPLAY_API_KEY: setting(k.secret(24), null, 'the admin token `npm run replay -- --url` sends to a running gateway (or --key)', ['CLI']),
  AUDIT_RETENTION: setting(
    k.duration(60_000),
    { text: '400d (at least REPLAY_RETENTION)', from: () => null },
    "how long the console's audit log is kept (at least REPLAY_RETENTION)",
    ['gateway', 'CLI'],
  ),
  AUDIT_MAX_ENTRIES: setting(
    k.int(1000, 100_000_000),
    200_000,
    "the audit trail's size: beyond it the oldest noise entries (refused or limited sign-ins, searches, audit views) go first, then the oldest others",
    ['gateway', 'CLI'],
  ),
  CONSOLE_SIGN_IN_FAILURES: setting(
    k.int(1, 100_000),
    10,
    'refused console sign-ins allowed per client address per CONSOLE_SIGN_IN_WINDOW; then 429 with Retry-After until the window ends',
  ),
  CONSOLE_SIGN_IN_WINDOW: setting(k.duration(1000, DAY), 5 * 60_000, 'the window of CONSOLE_SIGN_IN_FAILURES'),
  CONSOLE_SESSION_TTL: setting(k.duration(60_000, 7 * DAY), 8 * H, 'console session lifetime'),
  CONSOLE_PAGES_PER_SECOND: setting(
    k.int(0, 10_000),
    50,
    'console requests started per second per process, evenly spaced (the rest wait their turn, 503 past 10 s); 0 = unpaced',
  ),
  CHECKOUT_TOKEN: setting(k.secret(24), null, "bearer token for the certification checkout's allow-list routes only"),
};

const LOGS = {
  LOG_LEVEL: setting(k.oneOf(LOG_LEVELS), 'info', 'pino level (silent mutes)', ['gateway', 'playground process', 'reference upstream']),
  MESH_LOG_LEVEL: setting(k.oneOf(LOG_LEVELS), 'warn', "level of GraphQL Mesh's own log lines (component: mesh)"),
  NODE_ENV: setting(k.text(), { text: 'production (set by npm start)', from: () => null }, 'graphql-js without its development checks', [
    'npm start',
  ]),
  MALLOC_ARENA_MAX: setting(k.int(1, 64), { text: '2 (set by npm start)', from: () => null }, 'fewer glibc malloc arenas (lower RSS)', [
    'npm start',
  ]),
};

/** Fair share of uncached executions among partners on the keyed listeners (server/plugins/partner-quota.ts). */
const PARTNER_SHARE = {
  PARTNER_QUOTA_DEFAULT: setting(
    k.quota(10_000, 100_000),
    { requestsPerSecond: 50, burst: 200 },
    "the request quota of a partner whose record sets none (per environment; `npm run partners -- quota` sets a partner's own): see docs/partners.md's Limits",
  ),
  PARTNER_EXECUTIONS: setting(
    k.int(1, 10_000),
    32,
    'uncached executions (feed calls, pricing) at once per gateway process on the keyed listeners, handed to waiting partners in turn',
  ),
  PARTNER_EXECUTION_SHARE: setting(
    k.int(1, 10_000),
    8,
    "of PARTNER_EXECUTIONS, at most this many one partner's (per environment); its other uncached requests wait behind its own",
  ),
  PARTNER_QUEUE: setting(
    k.int(0, 100_000),
    32,
    'uncached requests one partner may have waiting per process; past it HTTP 429 PARTNER_CONCURRENCY',
  ),
  PARTNER_QUEUE_WAIT_MS: setting(
    k.int(1, 600_000),
    10_000,
    'longest an uncached request waits for its turn before HTTP 429 PARTNER_CONCURRENCY',
  ),
};

/** The table's settings named after their keys, in the table's order. */
const named = <S extends Record<string, AnySetting>>(table: S): S =>
  Object.fromEntries(Object.entries(table).map(([name, s], order) => [name, { ...s, name, order }])) as S;

export const SETTINGS = named({
  ...LISTENERS,
  ...DATA,
  ...PLAYGROUND,
  ...PARTNER_SHARE,
  ...CONSOLE,
  ...LOGS,
});

/**
 * Families of settings named after something else (a Mesh source): `<SOURCE>_URL` and
 * `CERTIFICATION_<SOURCE>_URL`, read by server/config.ts feedUrlsFor for each source of .meshrc.yaml.
 */
export const SETTING_FAMILIES = [
  {
    pattern: /^(CERTIFICATION_)?[A-Z][A-Z0-9_]*_URL$/,
    name: '<SOURCE>_URL, CERTIFICATION_<SOURCE>_URL',
    description: "one feed's base URL (production; certification)",
  },
];

const SETTINGS_SCHEMA = settingsSchema(SETTINGS);
export type SettingValues = z.output<typeof SETTINGS_SCHEMA>;

/** Every setting's default: the values of an empty environment. */
export const SETTING_DEFAULTS: SettingValues = SETTINGS_SCHEMA.parse({});

/** Reads the table from an environment: typed values (the default of a wrong one), problems collected. */
export const readAllSettings = (env: NodeJS.ProcessEnv, problems: string[]): SettingValues =>
  readSettings(SETTINGS_SCHEMA, env, problems) ?? SETTING_DEFAULTS;
