// `npm start`: the reference upstream and all three environments on local ports, the playground
// in a process of its own (server/playground-process.ts; PLAYGROUND_PROCESS=off keeps one process).
//
// Shutdown (SIGTERM from the orchestrator, SIGINT from a terminal): stop accepting, let in-flight
// requests finish within SHUTDOWN_GRACE_MS (then cut what is left), flush the replay log, close
// Redis and the upstream pool (GatewayHandle.close), exit 0. If closing itself hangs, a watchdog
// exits 1 a few seconds after the grace period; a second signal exits 1 at once (one Ctrl-C reaches
// us more than once: see shutdown-signals.ts).
import { launchGateway as startGateway } from './launch.js';
import { ConfigError, loadConfig } from './config.js';
import {
  applyPlaygroundChildPriority,
  exitWithParent,
  keyedEnvironments,
  playgroundProcessEnv,
  startPlaygroundProcess,
  type PlaygroundProcess,
} from './playground-process.js';
import { MeshStartupError } from './mesh.js';
import { shutdownRequests, shutdownSignals } from './shutdown-signals.js';
import { PortInUseError } from '../lib/ports.js';

/** Exit status of a start refused by its settings (EX_CONFIG): the playground's parent does not retry it. */
const EXIT_CONFIG = 78;

/** Time on top of the grace period for flushing replay and closing Redis before giving up. */
const CLOSE_MARGIN_MS = 5_000;

try {
  applyPlaygroundChildPriority(process.env);
  const settings = loadConfig(process.env);
  const keyed = keyedEnvironments(settings.playgroundProcess, settings.environments);
  const gateway = await startGateway(keyed ? { env: { ...process.env, ENVIRONMENTS: keyed.join(',') } } : {});
  const { logger } = gateway;
  let playground: PlaygroundProcess | null = null;
  if (keyed) {
    playground = startPlaygroundProcess({
      env: playgroundProcessEnv(process.env, gateway.upstreamUrl, settings.playgroundProcess),
      nice: settings.playgroundProcess.nice,
      logger,
      // Its settings or a port refused its start (its message is on stderr): retrying cannot help.
      onRefused: () => void stop('playground process could not start', 1),
      refusedExitCode: EXIT_CONFIG,
    });
  }
  const decide = shutdownRequests();
  const stop = async (reason: string, code: number) => {
    const decision = decide(reason);
    if (decision === 'ignore') {
      logger.debug({ reason }, 'shutdown request relayed again (already shutting down)');
      return;
    }
    if (decision === 'exit-now') {
      logger.warn({ reason }, 'second shutdown request: exiting now');
      process.exit(1);
    }
    logger.info({ reason, graceMs: gateway.config.shutdownGraceMs }, 'shutting down: no new connections, finishing in-flight requests');
    const watchdog = setTimeout(() => {
      logger.error({ reason }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, gateway.config.shutdownGraceMs + CLOSE_MARGIN_MS);
    watchdog.unref();
    try {
      await Promise.all([gateway.close(), playground?.close(gateway.config.shutdownGraceMs)]);
      logger.info({ reason }, 'shut down cleanly');
    } catch (err) {
      logger.error({ err }, 'error while shutting down');
      code = 1;
    }
    // The last lines (shut down cleanly) written in order before the exit.
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    process.exit(code);
  };
  exitWithParent((reason) => void stop(reason, 0));
  for (const [signal, action] of Object.entries(shutdownSignals(typeof process.send === 'function'))) {
    process.on(signal, () => (action === 'stop' ? void stop(signal, 0) : logger.debug({ signal }, 'left to the parent process')));
  }
  // A forgotten promise somewhere must not take every partner's traffic down with it: log it and
  // keep serving. An exception thrown out of an event handler leaves unknown state: drain and exit
  // non-zero so the orchestrator restarts us.
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection (kept serving)');
  });
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception: shutting down');
    void stop('uncaughtException', 1);
  });
} catch (err) {
  if (err instanceof ConfigError || err instanceof MeshStartupError || err instanceof PortInUseError) {
    console.error(`gateway: ${err.message}`);
    process.exit(EXIT_CONFIG);
  } else {
    console.error(`gateway: could not start: ${(err as Error)?.message ?? err}`);
  }
  process.exit(1);
}
