// How a gateway process (the serving process, a worker, the admin process) ends: signals, a
// vanished parent and errors nobody caught drain through its close, then exit; a start refused by
// its settings or a taken port exits 78 (EX_CONFIG), which a supervising parent does not retry.
import type { Logger } from '../lib/logger.js';
import { exitWithParent } from './child-process.js';
import { shutdownRequests } from './shutdown-signals.js';

/** Exit status of a start refused by its settings or a taken port (EX_CONFIG): a parent does not retry it. */
export const EXIT_CONFIG = 78;

/** Time on top of the grace period for flushing replay and closing Redis before giving up. */
export const CLOSE_MARGIN_MS = 5_000;

/** Errors that mean the settings (or a taken port) refused the start; told by name, so this module loads none of their modules. */
const CONFIG_ERRORS = new Set(['ConfigError', 'MeshStartupError', 'PortInUseError', 'FeedUnitError']);

/** A start that threw: its message on stderr, then exit 78 for the settings' errors, else 1. `exitCode` on the error wins (a helper process's own). */
export function exitOnStartError(err: unknown): never {
  const e = err as { name?: string; message?: string; exitCode?: number | null } | null;
  if (e && typeof e.exitCode === 'number') {
    console.error(`gateway: ${e.message}`);
    process.exit(e.exitCode === EXIT_CONFIG ? EXIT_CONFIG : 1);
  }
  if (e && CONFIG_ERRORS.has(e.name ?? '')) {
    console.error(`gateway: ${e.message}`);
    process.exit(EXIT_CONFIG);
  }
  console.error(`gateway: could not start: ${e?.message ?? err}`);
  process.exit(1);
}

/** Signals, a vanished parent, and errors nobody caught: drain through `close`, then exit. Returns the stop it calls. */
export function handleShutdown(
  logger: Logger,
  graceMs: number,
  opts: { interrupt: boolean },
  close: () => Promise<void>,
): (reason: string, code: number) => void {
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
    logger.info({ reason, graceMs }, 'shutting down: no new connections, finishing in-flight requests');
    const watchdog = setTimeout(() => {
      logger.error({ reason }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, graceMs + CLOSE_MARGIN_MS);
    watchdog.unref();
    try {
      await close();
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
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  process.on('SIGINT', () => (opts.interrupt ? void stop('SIGINT', 0) : logger.debug({ signal: 'SIGINT' }, 'left to the parent process')));
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
  return (reason, code) => void stop(reason, code);
}
