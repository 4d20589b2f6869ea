// Assembles a running gateway: Mesh, shared stores, and one listener per environment. The reference
// upstream is not its concern: start/launch.ts starts it beside the gateway for `npm start`.
import type { Server } from 'node:http';
import { loadConfig, type GatewayConfig } from './config.js';
import { feedKeysFor, feedUrlsFor, shownFeedUrls } from '../server/config.js';
import { loadGatewayMesh, type GatewayMesh } from '../mesh/gateway-mesh.js';
import { publicApi } from '../resolvers/public-api.js';
import { createUpstreamFetch } from '../sources/upstream/fetch.js';
import type { Transport } from '../sources/upstream/transport.js';
import { createListener, type ListenerOptions } from '../server/http/server.js';
import { listen } from '../server/http/listen.js';
import { watchTlsFiles } from '../server/http/tls.js';
import type { EnvironmentName, HttpPlugin } from '../server/http/plugin.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { redisHealth } from '../cache/redis-connection.js';
import { openSharedRedis } from '../server/wiring/shared-redis.js';
import { closeAll, type Closer } from '../lib/closers.js';
import type { Capability, CapabilitySetup } from '../server/wiring/types.js';
import { capabilities } from '../server/wiring/index.js';
import { servingInProcess, startAdminEndpoint, type ServingProcess } from '../support/admin-endpoint.js';
import { refuseUnitMistakes } from '../server/feed-unit-start.js';

export interface GatewayHandle {
  config: GatewayConfig;
  urls: Partial<Record<EnvironmentName, string>>;
  upstreamUrl: string;
  mesh: GatewayMesh;
  logger: Logger;
  /** An unbound server of one environment with the given plugins (in-process reruns); never listen() on it. */
  createPrivateListener(environment: EnvironmentName, plugins: HttpPlugin[]): Server;
  /** Reruns and cache purges for an admin listener in a process of its own (support/admin-process.ts). */
  serving: ServingProcess;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  config?: GatewayConfig;
  logger?: Logger;
  now?: () => Date;
  /** HTTP client for the feeds (tests run it over global fetch, which nock intercepts). */
  upstreamTransport?: Transport;
  /** Replace the default capabilities (tests). */
  capabilities?: CapabilitySetup[];
  /** Base URL of feeds without a URL of their own, instead of the configured UPSTREAM_URL. */
  upstreamUrl?: string;
  /** false: assemble everything but bind no environment listener (the CLI's in-process rerun). */
  serve?: boolean;
}

export async function startGateway(opts: StartOptions = {}): Promise<GatewayHandle> {
  const env = opts.env ?? process.env;
  const config = opts.config ?? loadConfig(env);
  const logger = opts.logger ?? createLogger(config.logLevel);
  const closers: Closer[] = [];
  try {
    return await assemble(config, env, logger, opts, closers);
  } catch (err) {
    // Release what was started (ports, store locks) so a retry in the same process works.
    await closeAll(closers);
    throw err;
  }
}

async function assemble(
  config: GatewayConfig,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  opts: StartOptions,
  closers: Closer[],
): Promise<GatewayHandle> {
  const upstreamUrl = opts.upstreamUrl ?? config.upstream.url;

  const fetchFn = createUpstreamFetch({ env, logger, transport: opts.upstreamTransport });
  closers.push(() => fetchFn.close());
  const mesh = await loadGatewayMesh({ dir: config.meshDir, fetchFn, logger, api: publicApi });
  closers.push(() => mesh.close());
  const sources = mesh.feeds.all.map((f) => f.source);
  if (env.NODE_ENV === 'production' && config.environments.includes('production'))
    await refuseUnitMistakes({
      mesh,
      meshDir: config.meshDir,
      feedUrls: feedUrlsFor('production', sources, env, upstreamUrl),
      feedKeys: feedKeysFor(sources, env),
      logger,
    });
  // Root fields the keyed schema has and the playground's lacks: the playground names them as needing a key.
  const playgroundRoot = mesh.schemas.playground.getQueryType()?.getFields() ?? {};
  const keyedOnlyFields = new Set(Object.keys(mesh.schemas.keyed.getQueryType()?.getFields() ?? {}).filter((f) => !(f in playgroundRoot)));
  const supplierFeeds = mesh.feeds.byKind('offers').length;

  const { redis, bus } = await openSharedRedis(config.redisUrl, logger, closers);
  if (!redis) {
    logger.info({ dataDir: config.dataDir }, 'store: embedded (no REDIS_URL): in-process cache, allowance counters in the data directory');
  }
  const setups: CapabilitySetup[] = opts.capabilities ?? capabilities;
  const caps: Capability[] = [];
  let privateListener: ((environment: EnvironmentName, plugins: HttpPlugin[]) => Server) | null = null;
  const createPrivateListener = (environment: EnvironmentName, plugins: HttpPlugin[]): Server => {
    if (!privateListener) throw new Error('the gateway is still starting');
    return privateListener(environment, plugins);
  };
  for (const setup of setups) {
    const cap = await setup({ config, logger, redis, bus, mesh });
    caps.push(cap);
    closers.push(() => cap.close?.());
  }
  const serving = servingInProcess(createPrivateListener, caps.find((c) => c.purgeCache)?.purgeCache ?? null);
  // The admin listener (ADMIN_TOKEN): here unless `npm start` runs it in a process of its own
  // (support/admin-process.ts; admin.port is then null). Closed before the stores it reads.
  if (config.admin.token && config.admin.port !== null) {
    const replay = caps.find((c) => c.replay)?.replay ?? null;
    const admin = await startAdminEndpoint({ config, logger, redis, bus, replay, serving });
    closers.push(() => admin.close());
  }
  const health = () => {
    const r = redis ? redisHealth(redis) : null;
    // 'up', 'down', or 'partial: 1 of 3 masters not answering' (a cluster); capabilities say what that costs.
    const details: Record<string, unknown> = { redis: r ? (r.state === 'partial' ? `partial: ${r.detail}` : r.state) : 'not configured' };
    let ok = !r || r.state === 'up';
    for (const c of caps) {
      const h = c.health?.();
      if (h) {
        ok &&= h.ok;
        Object.assign(details, h.details);
      }
    }
    return { ok, details };
  };
  const urls: Partial<Record<EnvironmentName, string>> = {};
  const servers: Server[] = [];
  // All listeners stop accepting at once and share one grace period.
  closers.push(() => Promise.all(servers.map((s) => drain(s, config.shutdownGraceMs))).then(() => undefined));
  // One listener's options; also used for reruns (an unbound server with other plugins).
  const listenerOptions = (environment: EnvironmentName, plugins: HttpPlugin[]): ListenerOptions => {
    const keyed = environment !== 'playground';
    return {
      environment,
      schema: keyed ? mesh.schemas.keyed : mesh.schemas.playground,
      limits: keyed ? config.limits.keyed : config.limits.playground,
      supplierFeeds,
      keyedOnlyFields: keyed ? undefined : keyedOnlyFields,
      meshContext: mesh.meshContext,
      feeds: mesh.feeds,
      feedUrls: feedUrlsFor(environment, sources, env, upstreamUrl),
      feedKeys: feedKeysFor(sources, env),
      // Certification answers links into the certification checkout, never the live one.
      settings: {
        enrollmentBaseUrl: environment === 'certification' ? config.certificationEnrollmentBaseUrl : config.enrollmentBaseUrl,
        utmSource: config.utmSource,
        fillPartnerRef: config.fillPartnerRef,
      },
      plugins,
      trustProxy: config.trustProxy,
      cors: keyed ? config.corsOrigins : '*',
      bodyLimitBytes: config.bodyLimitBytes,
      connections: keyed ? config.connections.keyed : config.connections.playground,
      health,
      onInternalError: (err, state) => logger.error({ err, requestId: state.requestId, environment }, 'internal error'),
      logger,
      now: opts.now,
    };
  };
  privateListener = (environment, plugins) => createListener(listenerOptions(environment, plugins));
  for (const environment of opts.serve === false ? [] : config.environments) {
    const server = createListener({
      ...listenerOptions(
        environment,
        caps.flatMap((c) => c.plugins(environment)),
      ),
      tls: config.tls,
    });
    servers.push(server);
    if (config.tls) {
      closers.push(
        watchTlsFiles(server, config.tls, (err) => {
          if (err) logger.error({ environment, error: err.message }, 'TLS certificate change refused (serving the previous one)');
          else logger.info({ environment }, 'TLS certificate reloaded');
        }),
      );
    }
    urls[environment] =
      `${(await listen(server, config.ports[environment], config.host, `${environment.toUpperCase()}_PORT`)).url}/graphql`;
    logger.info({ environment, url: urls[environment], feeds: shownFeedUrls(environment, sources, env, upstreamUrl) }, 'listening');
  }

  return {
    config,
    urls,
    upstreamUrl,
    mesh,
    logger,
    createPrivateListener,
    serving,
    async close() {
      await closeAll(closers, (err) => logger.warn({ err }, 'error while closing'));
    },
  };
}

/** Stop accepting, let in-flight requests finish within the grace period, then cut what is left. */
function drain(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    // Keep-alive sockets become idle once their request is answered: close them as they do.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
