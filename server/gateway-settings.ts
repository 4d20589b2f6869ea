// The gateway's own settings: which listeners a process runs and where, its processes and workers,
// TLS, where feeds and stores are, the playground's allowances, partners' fair share and the logs,
// declared as the config they fill (lib/settings.ts); gatewayConfig adds what follows from them
// (paths resolved, the checks across settings). server/config.ts composes them with the other
// concerns' (each declared beside its code; cli/settings-registry.ts lists them all).
import path from 'node:path';
import { kinds as k, setting, settingsSchema } from '../lib/settings.js';
import { LOG_LEVELS } from '../lib/logger.js';
import { DEFAULT_PORT_BASE, MAX_PORT_BASE, shiftedDefault } from '../lib/ports.js';
import { redisUrlKind } from '../cache/redis-url.js';
import type { EnvironmentName } from './http/plugin.js';
import { loadTlsPair, type TlsFiles } from './http/tls.js';

const MiB = 1024 * 1024;

const ENVIRONMENTS: readonly EnvironmentName[] = ['production', 'certification', 'playground'];

/** ENVIRONMENTS: the listeners this process runs, at least one. */
const environments = k.parsed(
  'list of production, certification, playground',
  'a comma-separated list of production, certification, playground',
  (raw) => {
    const names = raw
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const unknown = names.filter((e) => !ENVIRONMENTS.includes(e as EnvironmentName));
    if (unknown.length)
      throw new Error(
        unknown.map((e) => `ENVIRONMENTS: unknown environment "${e.slice(0, 40)}" (use ${ENVIRONMENTS.join(', ')})`).join('; '),
      );
    if (names.length === 0) throw new Error('ENVIRONMENTS names no environment');
    return names as EnvironmentName[];
  },
  (v) => v.join(','),
);

/** A port's default moved by PORT_BASE (lib/ports.ts): each default shifts by PORT_BASE - 4000. */
const shifted = (port: number) => ({
  text: shiftedDefault(port),
  from: (v: Record<string, unknown>) => port + (Number(v.PORT_BASE) - DEFAULT_PORT_BASE),
});

export const gatewaySettings = settingsSchema({
  portBase: setting(
    'PORT_BASE',
    k.int(1024, MAX_PORT_BASE),
    DEFAULT_PORT_BASE,
    'moves every default port together by PORT_BASE − 4000 (listeners, reference upstream, admin, ops; README.md "Ports"); ' +
      "a port's own variable wins; a port in use stops the start naming its variable",
    ['gateway', 'playground process', 'npm start', 'CLI', 'reference upstream'],
  ),
  environments: setting(
    'ENVIRONMENTS',
    environments,
    [...ENVIRONMENTS],
    'which listeners this process runs (production, certification, playground)',
  ),
  host: setting(
    'HOST',
    k.text(),
    '127.0.0.1',
    'address the partner listeners bind (0.0.0.0 behind a load balancer); the ops and admin endpoints keep to OPS_HOST and ADMIN_HOST',
  ),
  ports: {
    production: setting('PRODUCTION_PORT', k.port(), shifted(4000), 'production listener port (0 = any free port)'),
    certification: setting('CERTIFICATION_PORT', k.port(), shifted(4001), 'certification listener port (0 = any free port)'),
    playground: setting('PLAYGROUND_PORT', k.port(), shifted(4002), 'playground listener port (0 = any free port)', [
      'gateway',
      'playground process',
    ]),
  },
  playgroundProcess: {
    enabled: setting(
      'PLAYGROUND_PROCESS',
      k.bool(),
      true,
      'the playground in a process of its own when this process serves it beside a keyed environment',
    ),
    opsPort: setting('PLAYGROUND_OPS_PORT', k.port(), shifted(9465), "the playground process's /metrics and /healthz port", [
      'gateway',
      'playground process',
    ]),
    nice: setting('PLAYGROUND_NICE', k.int(0, 19), 10, "the playground process's niceness (a lower CPU priority than the keyed listeners)"),
  },
  playgroundChildNice: setting(
    'PLAYGROUND_CHILD_NICE',
    k.int(0, 19),
    null,
    'the niceness the playground process applies to its threads',
    ['playground process'],
    {
      internal: true,
    },
  ),
  workers: setting(
    'WORKERS',
    k.processes(256),
    1,
    "node:cluster workers sharing each keyed listener's port (auto: the cores this process may use); more than 1 needs REDIS_URL",
  ),
  playgroundWorkers: setting(
    'PLAYGROUND_WORKERS',
    k.processes(256),
    1,
    "the playground process's own workers (passed to it as WORKERS); more than 1 needs REDIS_URL",
  ),
  gatewayWorkerSlot: setting(
    'GATEWAY_WORKER_SLOT',
    k.int(1, 256),
    null,
    "a worker's slot, set by the primary for each worker",
    ['gateway'],
    { internal: true },
  ),
  opsHost: setting('OPS_HOST', k.text(), '127.0.0.1', 'address of the ops endpoint (/metrics, /healthz, /readyz)'),
  opsPort: setting('OPS_PORT', k.port(), shifted(9464), 'ops endpoint port'),
  shutdownGraceMs: setting(
    'SHUTDOWN_GRACE_MS',
    k.int(0, 120_000),
    10_000,
    'how long SIGTERM waits for in-flight requests before cutting connections',
  ),
  tls: {
    certFile: setting(
      'TLS_CERT_FILE',
      k.path(),
      null,
      'HTTPS on the partner listeners (with TLS_KEY_FILE), HSTS, renewal without restart; unset = plain HTTP',
    ),
    keyFile: setting('TLS_KEY_FILE', k.path(), null, 'the private key of TLS_CERT_FILE'),
    http2: setting(
      'TLS_HTTP2',
      k.bool(),
      false,
      'HTTP/2 beside HTTP/1.1 on the TLS listeners (ALPN; needs TLS_CERT_FILE and TLS_KEY_FILE)',
    ),
  },
  upstream: {
    port: setting('UPSTREAM_PORT', k.port(), shifted(4010), 'port of the built-in reference upstream', ['gateway', 'npm start']),
    url: setting(
      'UPSTREAM_URL',
      k.url(['http:', 'https:']),
      null,
      'base URL of every feed (per feed: <SOURCE>_URL); unset = the reference upstream',
    ),
    certificationUrl: setting(
      'CERTIFICATION_UPSTREAM_URL',
      k.url(['http:', 'https:']),
      null,
      "certification's base URL of every feed (per feed: CERTIFICATION_<SOURCE>_URL)",
    ),
    start: setting(
      'START_REFERENCE_UPSTREAM',
      k.bool(),
      { text: 'on unless UPSTREAM_URL', from: (v) => v.UPSTREAM_URL === null },
      'start the reference upstream beside the gateway',
      ['npm start'],
    ),
  },
  eiaApiKey: setting(
    'EIA_API_KEY',
    k.secret(16),
    null,
    "EIA API v2 key, sent as api_key on every Eia call (redacted in logs); with it and no EIA_URL the Eia source goes to https://api.eia.gov, so energyInfoByState serves EIA's live figures (any <SOURCE>_API_KEY reaches its source block as {context.feedKeys.<Source>})",
    ['gateway', 'CLI'],
  ),
  meshDir: setting('MESH_DIR', k.path(), '.', 'folder holding .meshrc.yaml'),
  redisUrl: setting(
    'REDIS_URL',
    redisUrlKind,
    null,
    'shared cache, allowance counters, replay log: redis://, rediss://, redis-sentinel://h:p,h:p/mymaster, redis-cluster://h:p,h:p; unset = the embedded store',
    ['gateway', 'playground process', 'CLI'],
  ),
  dataDir: setting('DATA_DIR', k.path(), 'data', 'embedded store, replay files, keys file', ['gateway', 'playground process', 'CLI']),
  keysFile: setting('KEYS_FILE', k.path(), { text: 'DATA_DIR/keys.json', from: () => null }, 'API key hashes', ['gateway', 'CLI']),
  partnersFile: setting(
    'PARTNERS_FILE',
    k.path(),
    { text: 'partners.json beside KEYS_FILE', from: () => null },
    'partner records and certification test IPs',
    ['gateway', 'CLI'],
  ),
  enrollmentBaseUrl: setting(
    'ENROLLMENT_BASE_URL',
    k.url(['https:']),
    'https://enroll.energyplans.example/residential',
    'base of headlessEnrollmentUrl',
  ),
  certificationEnrollmentBaseUrl: setting(
    'CERTIFICATION_ENROLLMENT_BASE_URL',
    k.url(['https:']),
    'https://enroll-certification.energyplans.example/residential',
    'base of headlessEnrollmentUrl in certification (the certification checkout)',
  ),
  utmSource: setting('UTM_SOURCE', k.text(), 'energy_plan_api', 'utm_source of enrollment URLs'),
  fillPartnerRef: setting('FILL_PARTNER_REF', k.bool(), false, "put the caller's partner code into ref instead of PARTNER_CODE"),
  playgroundAllowance: setting('PLAYGROUND_ALLOWANCE', k.int(0, 1_000_000), 10, 'real calls per client IP on the playground, ever', [
    'gateway',
    'playground process',
    'CLI',
  ]),
  playgroundFreeRate: {
    points: setting(
      'PLAYGROUND_FREE_REQUESTS',
      k.int(0, 1_000_000),
      60,
      'free playground requests per client IP per window (0 = no limit)',
      ['gateway', 'playground process'],
    ),
    windowSeconds: setting('PLAYGROUND_FREE_WINDOW_SECONDS', k.int(1, 86_400), 60, 'the window of PLAYGROUND_FREE_REQUESTS', [
      'gateway',
      'playground process',
    ]),
  },
  persistedQueryMaxBytes: setting(
    'PERSISTED_QUERIES_MAX_BYTES',
    k.int(64 * 1024, 1024 * MiB),
    8 * MiB,
    'bytes of persisted-query (APQ) entries kept per environment, least recently used evicted; each entry counts what it holds ' +
      '(document x 1.05 + 2 x hash + 208 bytes, see Persisted queries)',
  ),
  persistedQueryPlaygroundMaxBytes: setting(
    'PERSISTED_QUERIES_PLAYGROUND_MAX_BYTES',
    k.int(64 * 1024, 1024 * MiB),
    {
      text: 'PERSISTED_QUERIES_MAX_BYTES / 8, at least 64 KiB',
      from: (v) => Math.max(64 * 1024, Math.floor((v.PERSISTED_QUERIES_MAX_BYTES as number) / 8)),
    },
    "the playground's own persisted-query budget, counted the same way",
    ['gateway', 'playground process'],
  ),
  partnerQuotaDefault: setting(
    'PARTNER_QUOTA_DEFAULT',
    k.quota(10_000, 100_000),
    { requestsPerSecond: 50, burst: 200 },
    "the request quota of a partner whose record sets none (per environment; `npm run partners -- quota` sets a partner's own): see docs/partners.md's Limits",
  ),
  partnerShare: {
    total: setting(
      'PARTNER_EXECUTIONS',
      k.int(1, 10_000),
      32,
      'uncached executions (feed calls, pricing) at once per gateway process on the keyed listeners, handed to waiting partners in turn',
    ),
    share: setting(
      'PARTNER_EXECUTION_SHARE',
      k.int(1, 10_000),
      8,
      "of PARTNER_EXECUTIONS, at most this many one partner's (per environment; halved, down to 1, while the event loop " +
        'is busy and another partner active); its other uncached requests wait behind its own',
    ),
    queue: setting(
      'PARTNER_QUEUE',
      k.int(0, 100_000),
      32,
      'uncached requests one partner may have waiting per process; past it HTTP 429 PARTNER_CONCURRENCY',
    ),
    maxWaitMs: setting(
      'PARTNER_QUEUE_WAIT_MS',
      k.int(1, 600_000),
      10_000,
      'longest an uncached request waits for its turn before HTTP 429 PARTNER_CONCURRENCY',
    ),
  },
});

/**
 * The gateway's own config: its settings with paths resolved against `cwd`, the URL of the reference
 * upstream when no UPSTREAM_URL, and the checks across settings (a TLS pair that reads, workers with
 * Redis). CERTIFICATION_UPSTREAM_URL and EIA_API_KEY are read per feed (server/config.ts's feedUrlsFor).
 */
export function gatewayConfig(cwd: string) {
  return gatewaySettings.transform(
    (
      {
        ports,
        opsPort,
        playgroundChildNice,
        playgroundProcess,
        workers,
        playgroundWorkers,
        gatewayWorkerSlot: _slot,
        eiaApiKey: _key,
        ...s
      },
      ctx,
    ) => {
      const problem = (message: string) => ctx.addIssue({ code: 'custom', message });
      const dataDir = path.resolve(cwd, s.dataDir);
      const keysFile = path.resolve(cwd, s.keysFile ?? path.join(dataDir, 'keys.json'));
      const tls = tlsOf(s.tls, cwd, problem);
      // Workers share state through Redis only: the embedded stores (allowance log, replay files,
      // in-process persisted queries) belong to one process.
      const needsRedis = (name: string, n: number) => {
        if (n > 1 && !s.redisUrl)
          problem(
            `${name}=${n} needs REDIS_URL: workers share the playground allowance, free-request rate, replay log and persisted queries ` +
              `through Redis (the embedded store belongs to one process); set REDIS_URL or ${name}=1`,
          );
        return n;
      };
      return {
        ...s,
        ports: {
          ...ports,
          // null in a worker: the primary serves the ops endpoint.
          ops: opsPort as number | null,
          // The playground process gets its parent's PLAYGROUND_OPS_PORT as OPS_PORT: name the one to change.
          opsVariable: playgroundChildNice === null ? ('OPS_PORT' as const) : ('PLAYGROUND_OPS_PORT' as const),
        },
        upstream: { start: s.upstream.start, port: s.upstream.port, url: s.upstream.url ?? `http://127.0.0.1:${s.upstream.port}` },
        meshDir: path.resolve(cwd, s.meshDir),
        dataDir,
        keysFile,
        partnersFile: path.resolve(cwd, s.partnersFile ?? path.join(path.dirname(keysFile), 'partners.json')),
        tls,
        playgroundProcess: { ...playgroundProcess, workers: needsRedis('PLAYGROUND_WORKERS', playgroundWorkers) },
        workers: needsRedis('WORKERS', workers),
      };
    },
  );
}

/** HTTPS on the partner listeners: both files or neither, read once here so a bad pair stops the start. */
function tlsOf(
  { certFile, keyFile, http2 }: { certFile: string | null; keyFile: string | null; http2: boolean },
  cwd: string,
  problem: (message: string) => void,
): TlsFiles | null {
  if (http2 && !(certFile && keyFile)) {
    problem(
      'TLS_HTTP2 needs TLS_CERT_FILE and TLS_KEY_FILE: the gateway serves HTTP/2 over TLS only (behind a TLS-terminating load balancer, let ' +
        'the load balancer speak HTTP/2)',
    );
  }
  if (!certFile || !keyFile) {
    if (certFile || keyFile)
      problem('TLS_CERT_FILE and TLS_KEY_FILE must be set together (or neither, for plain HTTP behind a TLS-terminating load balancer)');
    return null;
  }
  const tls = { certFile: path.resolve(cwd, certFile), keyFile: path.resolve(cwd, keyFile), http2 };
  try {
    loadTlsPair(tls);
    return tls;
  } catch (err) {
    problem((err as Error).message);
    return null;
  }
}

export const logSettings = settingsSchema({
  logLevel: setting('LOG_LEVEL', k.oneOf(LOG_LEVELS), 'info', 'pino level (silent mutes)', [
    'gateway',
    'playground process',
    'reference upstream',
  ]),
  meshLogLevel: setting('MESH_LOG_LEVEL', k.oneOf(LOG_LEVELS), 'warn', "level of GraphQL Mesh's own log lines (component: mesh)"),
  nodeEnv: setting(
    'NODE_ENV',
    k.text(),
    { text: 'production (set by npm start)', from: () => null },
    'graphql-js without its development checks',
    ['npm start'],
  ),
  mallocArenaMax: setting(
    'MALLOC_ARENA_MAX',
    k.int(1, 64),
    { text: '2 (set by npm start)', from: () => null },
    'fewer glibc malloc arenas (lower RSS)',
    ['npm start'],
  ),
  // glibc raises its mmap threshold after each large free, up to 32 MiB, so a burst's large buffers
  // land in the main heap and stay resident: fixed thresholds give them back. 32 KiB, not 64: V8's
  // optimizing compiler takes its zones in 32 KiB segments, whose holes kept the heap ~20 MB larger
  // after a load of misses (docs/benchmark.md, "Memory and start-up").
  mallocMmapThreshold: setting(
    'MALLOC_MMAP_THRESHOLD_',
    k.int(0, 33554432),
    { text: '32768 (set by npm start)', from: () => null },
    'glibc: allocations of at least this many bytes get their own mapping, returned to the system when freed (lower RSS after bursts)',
    ['npm start'],
  ),
  mallocTrimThreshold: setting(
    'MALLOC_TRIM_THRESHOLD_',
    k.int(0, 4294967295),
    { text: '1048576 (set by npm start)', from: () => null },
    "glibc: free memory at the top of malloc's main heap beyond this many bytes is returned to the system",
    ['npm start'],
  ),
}).transform(({ logLevel, meshLogLevel }) => ({ logLevel, meshLogLevel }));
