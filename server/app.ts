// Assembles a running gateway: Mesh, shared stores, and one listener per environment. The reference
// upstream is not its concern: server/launch.ts starts it beside the gateway for `npm start`.
import type { Server } from 'node:http';
import { loadConfig, feedUrlsFor, shownFeedUrls, type GatewayConfig } from './config.js';
import { loadGatewayMesh, type GatewayMesh } from './mesh.js';
import { createUpstreamFetch } from '../feeds/upstream/fetch.js';
import type { Transport } from '../feeds/upstream/transport.js';
import { createListener } from './http/server.js';
import { listen } from './http/listen.js';
import type { EnvironmentName } from './http/plugin.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { connectRedis, isRedisUp, safeTarget, watchRedis, type RedisClient } from './stores/redis-connection.js';
import type { Capability, CapabilitySetup } from './wiring/types.js';
import { capabilities } from './wiring/index.js';

export interface GatewayHandle {
  config: GatewayConfig;
  urls: Partial<Record<EnvironmentName, string>>;
  upstreamUrl: string;
  mesh: GatewayMesh;
  logger: Logger;
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
}

export async function startGateway(opts: StartOptions = {}): Promise<GatewayHandle> {
  const env = opts.env ?? process.env;
  const config = opts.config ?? loadConfig(env);
  const logger = opts.logger ?? createLogger(config.logLevel);
  const closers: (() => Promise<void> | void)[] = [];
  try {
    return await assemble(config, env, logger, opts, closers);
  } catch (err) {
    // Release what was started (ports, store locks) so a retry in the same process works.
    for (const c of closers.reverse()) await Promise.resolve(c()).catch(() => {});
    throw err;
  }
}

async function assemble(config: GatewayConfig, env: NodeJS.ProcessEnv, logger: Logger, opts: StartOptions, closers: (() => Promise<void> | void)[]): Promise<GatewayHandle> {

  const upstreamUrl = opts.upstreamUrl ?? config.upstream.url;

  const fetchFn = createUpstreamFetch({ env, logger, transport: opts.upstreamTransport });
  closers.push(() => fetchFn.close());
  const mesh = await loadGatewayMesh({ dir: config.meshDir, fetchFn, logger });
  closers.push(() => mesh.close());
  const sources = mesh.feeds.all.map((f) => f.source);
  const supplierFeeds = mesh.feeds.byKind('offers').length;

  let redis: RedisClient | null = null;
  if (config.redisUrl) {
    redis = await connectRedis(config.redisUrl);
    const unwatch = watchRedis(redis);
    closers.push(() => {
      unwatch();
      return redis!.quit().then(() => undefined, () => redis!.disconnect());
    });
    logger.info({ redis: safeTarget(config.redisUrl) }, 'store: Redis');
  } else {
    logger.info({ dataDir: config.dataDir }, 'store: embedded (no REDIS_URL): in-process cache, allowance counters in the data directory');
  }
  const setups: CapabilitySetup[] = opts.capabilities ?? capabilities;
  const caps: Capability[] = [];
  for (const setup of setups) {
    const cap = await setup({ config, logger, redis, mesh });
    caps.push(cap);
    closers.push(() => cap.close?.());
  }
  const health = () => {
    const details: Record<string, unknown> = { redis: redis ? (isRedisUp(redis) ? 'up' : 'down') : 'not configured' };
    let ok = !redis || isRedisUp(redis);
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
  for (const environment of config.environments) {
    const keyed = environment !== 'playground';
    const server = createListener({
      environment,
      schema: keyed ? mesh.schemas.keyed : mesh.schemas.playground,
      limits: keyed ? config.limits.keyed : config.limits.playground,
      supplierFeeds,
      meshContext: mesh.meshContext,
      feeds: mesh.feeds,
      feedUrls: feedUrlsFor(environment, sources, env, upstreamUrl),
      settings: { enrollmentBaseUrl: config.enrollmentBaseUrl, utmSource: config.utmSource, fillPartnerRef: config.fillPartnerRef },
      plugins: caps.flatMap((c) => c.plugins(environment)),
      trustProxy: config.trustProxy,
      cors: keyed ? config.corsOrigins : '*',
      bodyLimitBytes: config.bodyLimitBytes,
      health,
      onInternalError: (err, state) => logger.error({ err, requestId: state.requestId, environment }, 'internal error'),
      now: opts.now,
    });
    servers.push(server);
    urls[environment] = `${(await listen(server, config.ports[environment], config.host)).url}/graphql`;
    logger.info({ environment, url: urls[environment], feeds: shownFeedUrls(environment, sources, env, upstreamUrl) }, 'listening');
  }

  return {
    config,
    urls,
    upstreamUrl,
    mesh,
    logger,
    async close() {
      for (const c of closers.reverse()) await Promise.resolve(c()).catch((err) => logger.warn({ err }, 'error while closing'));
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
