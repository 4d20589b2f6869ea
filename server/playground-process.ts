// Under `npm start` the keyless playground runs in a process of its own, at a lower CPU priority
// (PLAYGROUND_PROCESS, on by default; PLAYGROUND_NICE). A flood of playground requests then
// competes with partners' requests only through the kernel's scheduler, which favours the keyed
// process, instead of queueing on the keyed environments' event loop, heap and garbage collector.
// The parent supervises it: a playground that dies is started again (with a growing pause), a
// parent that stops takes it down, and a playground whose parent vanished exits by itself.
//
// On Linux a niceness belongs to a thread, and a thread takes its creator's. The parent lowers the
// child's main thread right after the fork; threads node had started before that (V8's garbage
// collection and compiler helpers, which do much of a flood's work) would keep the keyed
// environments' priority. So the child, first thing, lowers every thread it has to the niceness the
// parent passes in PLAYGROUND_CHILD_NICE (set only by the parent).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import type { EnvironmentName } from './http/plugin.js';

export interface PlaygroundProcessSettings {
  enabled: boolean;
  /** /metrics and /healthz of the playground process (OPS_PORT stays the keyed process's). */
  opsPort: number;
  /** Niceness of the playground process (0 = same priority as the keyed environments). */
  nice: number;
  /** Cluster workers of the playground process (PLAYGROUND_WORKERS; its WORKERS). */
  workers: number;
}

interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The environments this process keeps when the playground moves out; null when it stays. */
export function keyedEnvironments(settings: PlaygroundProcessSettings, environments: readonly EnvironmentName[]): EnvironmentName[] | null {
  const keyed = environments.filter((e) => e !== 'playground');
  return settings.enabled && keyed.length > 0 && keyed.length < environments.length ? keyed : null;
}

/**
 * The playground process's environment: the parent's, serving the playground only, on the feeds
 * the parent uses, with its own ops port and no admin endpoint (that stays with the parent).
 */
export function playgroundProcessEnv(env: NodeJS.ProcessEnv, upstreamUrl: string, settings: PlaygroundProcessSettings): NodeJS.ProcessEnv {
  return {
    ...env,
    ENVIRONMENTS: 'playground',
    PLAYGROUND_PROCESS: 'off',
    UPSTREAM_URL: upstreamUrl,
    START_REFERENCE_UPSTREAM: 'false',
    OPS_PORT: String(settings.opsPort),
    ADMIN_TOKEN: '',
    PLAYGROUND_CHILD_NICE: String(settings.nice),
    WORKERS: String(settings.workers),
  };
}

/**
 * In the playground process: every thread at the niceness its parent asked for (PLAYGROUND_CHILD_NICE);
 * threads started later take it from the main thread. Nothing to do elsewhere. A thread already
 * lower is left alone (raising a priority needs a privilege).
 */
export function applyPlaygroundChildPriority(env: NodeJS.ProcessEnv): void {
  const nice = Number(env.PLAYGROUND_CHILD_NICE);
  if (!Number.isInteger(nice) || nice <= 0 || nice > 19) return;
  let threads: number[];
  try {
    threads = fs.readdirSync('/proc/self/task').map(Number);
  } catch {
    // Not Linux: the niceness the parent set is the whole process's.
    return;
  }
  for (const tid of threads) {
    try {
      if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
    } catch {
      // The thread has ended.
    }
  }
}

export interface PlaygroundProcess {
  pid(): number | undefined;
  /** SIGTERM, then SIGKILL after the grace period. */
  close(graceMs: number): Promise<void>;
}

const MAX_RESTART_PAUSE_MS = 30_000;
/** Up this long, a playground process counts as healthy again: the next restart pauses 1 s. */
const HEALTHY_AFTER_MS = 60_000;

export function startPlaygroundProcess(opts: {
  env: NodeJS.ProcessEnv;
  nice: number;
  logger: Logger;
  /** Called instead of a restart when the process exits with `refusedExitCode` (its settings or a taken port refused it). */
  onRefused?: () => void;
  refusedExitCode?: number;
}): PlaygroundProcess {
  let child: ChildProcess | null = null;
  let stopping = false;
  let pauseMs = 1000;
  let restartTimer: NodeJS.Timeout | null = null;

  const start = () => {
    restartTimer = null;
    const startedAt = Date.now();
    const proc = fork(process.argv[1]!, process.argv.slice(2), { env: opts.env, execArgv: process.execArgv, stdio: 'inherit' });
    child = proc;
    if (proc.pid !== undefined && opts.nice !== 0) {
      try {
        os.setPriority(proc.pid, opts.nice);
      } catch (err) {
        opts.logger.warn({ error: (err as Error).message, nice: opts.nice }, 'playground process: could not lower its priority');
      }
    }
    opts.logger.info({ pid: proc.pid, nice: opts.nice }, 'playground process started');
    proc.on('exit', (code, signal) => {
      if (child === proc) child = null;
      if (stopping) return;
      if (opts.onRefused && code !== null && code === opts.refusedExitCode) {
        opts.logger.error({ code }, 'playground process refused to start (see its message above): stopping');
        opts.onRefused();
        return;
      }
      pauseMs = Date.now() - startedAt > HEALTHY_AFTER_MS ? 1000 : Math.min(MAX_RESTART_PAUSE_MS, pauseMs * 2);
      opts.logger.error({ code, signal, restartInMs: pauseMs }, 'playground process exited: starting it again');
      restartTimer = setTimeout(start, pauseMs);
    });
  };
  start();

  return {
    pid: () => child?.pid,
    async close(graceMs) {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** In the playground process: exit when the parent is gone (its IPC channel closed). */
export function exitWithParent(stop: (reason: string) => void): void {
  if (typeof process.send === 'function') process.once('disconnect', () => stop('parent process gone'));
}
