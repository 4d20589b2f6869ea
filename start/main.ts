// `npm start`: the reference upstream and all three environments on local ports, the playground
// in a process of its own (server/playground-process.ts; PLAYGROUND_PROCESS=off keeps one process),
// and the admin listener, when ADMIN_TOKEN is set, in another (support/admin-process.ts;
// ADMIN_PROCESS=off keeps it in the serving process).
// WORKERS=N (or auto): this process becomes a cluster primary that supervises N workers sharing the
// keyed listeners' ports and serves the ops port for all of them (server/workers.ts).
//
// Shutdown (SIGTERM from the orchestrator, SIGINT from a terminal): stop accepting, let in-flight
// requests finish within SHUTDOWN_GRACE_MS (then cut what is left), flush the replay log, close
// Redis and the upstream pool (GatewayHandle.close), exit 0. If closing itself hangs, a watchdog
// exits 1 a few seconds after the grace period; a second signal exits 1 at once (one Ctrl-C reaches
// us more than once: see shutdown-signals.ts). A primary forwards SIGTERM to every worker and exits
// once they all have.
// First: before any dependency reads web storage (see the module).
import '../lib/no-web-storage.js';
import { launchGateway, startConfiguredUpstream } from './launch.js';
import { startGateway } from './app.js';
import { loadConfig, type GatewayConfig } from './config.js';
import { keyedEnvironments, playgroundProcessEnv, playgroundV8Flags } from '../server/playground-process.js';
import { applyChildPriority, superviseChildProcess, type ChildProcessHandle } from '../server/child-process.js';
import { adminApart, adminProcessEnv, startAdminProcess } from '../support/admin-process.js';
import { CLOSE_MARGIN_MS, EXIT_CONFIG, exitOnStartError, handleShutdown } from '../server/process-lifecycle.js';
import type { ServingProcess } from '../support/admin-endpoint.js';
import type { GatewayHandle } from './app.js';
import { reportReady, startWorkerPool, workerSlot } from '../server/workers.js';
import { startClusterOpsServer } from '../server/observability/cluster-metrics.js';
import { createLogger, type Logger } from '../lib/logger.js';
import type { EnvironmentName } from '../server/http/plugin.js';
import { shutdownSignals } from '../server/shutdown-signals.js';

try {
  // In the playground process (server/playground-process.ts): its threads at the niceness asked for.
  applyChildPriority(process.env.PLAYGROUND_CHILD_NICE);
  const settings = loadConfig(process.env);
  const keyed = keyedEnvironments(settings.playgroundProcess, settings.environments);
  const slot = workerSlot();
  if (slot !== null) await runWorker(settings, slot);
  else if (settings.workers > 1) await runPrimary(settings, keyed);
  else await runSingle(settings, keyed);
} catch (err) {
  exitOnStartError(err);
}

/** One process serving every environment it is given (and its playground and admin processes). */
async function runSingle(settings: GatewayConfig, keyed: EnvironmentName[] | null): Promise<void> {
  const config: GatewayConfig = keyed ? { ...settings, environments: keyed } : settings;
  const logger = createLogger(config.logLevel);
  let stop: ((reason: string, code: number) => void) | null = null;
  const { gateway, admin } = await withAdminProcess(
    config,
    logger,
    () => stop,
    (c) => launchGateway({ config: c, logger }),
  );
  const playground = keyed
    ? startPlayground(settings, gateway.upstreamUrl, logger, () => stop?.('playground process could not start', 1))
    : null;
  // The playground process (supervised by its parent) leaves Ctrl-C to the parent, which stops it with SIGTERM.
  stop = handleShutdown(logger, settings.shutdownGraceMs, { interrupt: !shutdownSignals.supervised() }, async () => {
    await Promise.all([gateway.close(), playground?.close(settings.shutdownGraceMs), admin?.close(settings.shutdownGraceMs)]);
  });
}

/** A cluster worker: a whole gateway whose ops port is the primary's, and the admin listener in slot 1 only. */
async function runWorker(settings: GatewayConfig, slot: number): Promise<void> {
  const config: GatewayConfig = {
    ...settings,
    ports: { ...settings.ports, ops: null },
    admin: { ...settings.admin, port: slot === 1 ? settings.admin.port : null },
  };
  const logger = createLogger(config.logLevel, { worker: slot });
  let stop: ((reason: string, code: number) => void) | null = null;
  const { gateway, admin } = await withAdminProcess(
    config,
    logger,
    () => stop,
    (c) => startGateway({ config: c, logger }),
  );
  // Ctrl-C reaches every process of the terminal's group: the primary alone decides, with SIGTERM.
  stop = handleShutdown(logger, config.shutdownGraceMs, { interrupt: false }, async () => {
    await Promise.all([gateway.close(), admin?.close(config.shutdownGraceMs)]);
  });
  reportReady();
}

/**
 * Starts the gateway, and beside it the admin process when the admin listener is this process's
 * and ADMIN_PROCESS is on (the gateway then binds no admin port). Resolves once both are up.
 */
async function withAdminProcess(
  config: GatewayConfig,
  logger: Logger,
  stop: () => ((reason: string, code: number) => void) | null,
  start: (config: GatewayConfig) => Promise<GatewayHandle>,
): Promise<{ gateway: GatewayHandle; admin: ChildProcessHandle | null }> {
  if (!adminApart(config)) return { gateway: await start(config), admin: null };
  let serve: (s: ServingProcess) => void = () => {};
  const admin = startAdminProcess({
    env: adminProcessEnv(process.env, config.admin.process),
    nice: config.admin.process.nice,
    logger,
    serving: new Promise<ServingProcess>((resolve) => (serve = resolve)),
    onRefused: () => stop()?.('admin process could not start', EXIT_CONFIG),
    refusedExitCode: EXIT_CONFIG,
  });
  let gateway: GatewayHandle | null = null;
  try {
    gateway = await start({ ...config, admin: { ...config.admin, port: null } });
    serve(gateway.serving);
    await admin.ready;
    return { gateway, admin: admin.process };
  } catch (err) {
    await Promise.all([admin.process.close(config.shutdownGraceMs), gateway?.close()]);
    throw err;
  }
}

/** WORKERS > 1: forks and supervises the workers, serves the ops port, runs the playground process. */
async function runPrimary(settings: GatewayConfig, keyed: EnvironmentName[] | null): Promise<void> {
  const logger = createLogger(settings.logLevel);
  const upstream = await startConfiguredUpstream(settings);
  if (upstream) logger.info({ url: upstream.url }, 'reference upstream started');
  const upstreamUrl = upstream?.url ?? settings.upstream.url;
  const pool = startWorkerPool({
    count: settings.workers,
    env: { ENVIRONMENTS: (keyed ?? settings.environments).join(','), UPSTREAM_URL: upstreamUrl, START_REFERENCE_UPSTREAM: 'false' },
    logger,
  });
  const closeAll = async () => {
    await Promise.all([pool.close(settings.shutdownGraceMs + CLOSE_MARGIN_MS), playground?.close(settings.shutdownGraceMs)]);
    await ops?.close();
    await upstream?.close();
  };
  let playground: ChildProcessHandle | null = null;
  let ops: Awaited<ReturnType<typeof startClusterOpsServer>> | null = null;
  try {
    if (settings.ports.ops !== null) {
      ops = await startClusterOpsServer({ host: settings.opsHost, port: settings.ports.ops, workers: settings.workers, pool });
      logger.info({ url: `${ops.url}/metrics` }, 'ops endpoint listening (metrics of every worker, healthz)');
    }
    let stop: ((reason: string, code: number) => void) | null = null;
    playground = keyed ? startPlayground(settings, upstreamUrl, logger, () => stop?.('playground process could not start', 1)) : null;
    stop = handleShutdown(logger, settings.shutdownGraceMs + CLOSE_MARGIN_MS, { interrupt: true }, closeAll);
    await pool.ready;
  } catch (err) {
    await closeAll();
    throw err;
  }
  logger.info({ workers: settings.workers, pids: pool.pids() }, 'workers ready');
}

function startPlayground(settings: GatewayConfig, upstreamUrl: string, logger: Logger, onRefused: () => void): ChildProcessHandle {
  return superviseChildProcess({
    name: 'playground process',
    // No admin endpoint there: it stays with this process.
    env: { ...playgroundProcessEnv(process.env, upstreamUrl, settings.playgroundProcess), ADMIN_TOKEN: '' },
    execArgv: playgroundV8Flags({
      documentCacheBytes: settings.limits.playground.documentCacheBytes,
      persistedQueryBytes: settings.persistedQueryPlaygroundMaxBytes,
      cacheLruBytes: settings.cacheReplay.cache.lruBytes,
      replayQueueBytes: settings.cacheReplay.replay.queueMaxBytes,
      maxConnections: settings.connections.playground.maxConnections,
      bodyLimitBytes: settings.bodyLimitBytes,
    }),
    nice: settings.playgroundProcess.nice,
    logger,
    // Its settings or a port refused its start (its message is on stderr): retrying cannot help.
    onRefused,
    refusedExitCode: EXIT_CONFIG,
  });
}
