// The gateway's helper processes under `npm start`: the playground (server/playground-process.ts:
// this same program forked again, serving the playground only) and the others the composition
// starts (support/ has one, an entry of its own). Each runs at a lower CPU priority, so its work competes with partners'
// keyed requests only through the kernel's scheduler, which favours the keyed process.
//
// The parent supervises it: a child that dies is started again (with a growing pause), a parent
// that stops takes it down, and a child whose parent vanished exits by itself.
//
// On Linux a niceness belongs to a thread, and a thread takes its creator's. The parent lowers the
// child's main thread right after the fork; threads node had started before that (V8's garbage
// collection and compiler helpers) would keep the keyed environments' priority. So the child,
// first thing, lowers every thread it has to the niceness the parent passes in its environment
// (a variable of each kind of child, e.g. PLAYGROUND_CHILD_NICE, set only by the parent).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * In a helper process: every thread at the niceness its parent asked for (`raw`, the variable its
 * parent set for its kind of child); threads started later take it from the main thread. Nothing to
 * do elsewhere (unset). A thread already lower is left alone (raising a priority needs a privilege).
 */
export function applyChildPriority(raw: string | undefined): void {
  if (raw === undefined || raw === '') return;
  const nice = Number(raw);
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

export interface ChildProcessHandle {
  pid(): number | undefined;
  /** SIGTERM, then SIGKILL after the grace period. */
  close(graceMs: number): Promise<void>;
}

const MAX_RESTART_PAUSE_MS = 30_000;
/** Up this long, a child counts as healthy again: the next restart pauses 1 s. */
const HEALTHY_AFTER_MS = 60_000;

export function superviseChildProcess(opts: {
  /** For log lines: 'playground process', 'admin process'. */
  name: string;
  /** The entry to fork (default: this program's own). */
  script?: string;
  env: NodeJS.ProcessEnv;
  /** Node and V8 flags after this process's own (a later flag wins). */
  execArgv?: string[];
  nice: number;
  logger: Logger;
  /** Called instead of a restart when the process exits with `refusedExitCode` (its settings or a taken port refused it). */
  onRefused?: () => void;
  refusedExitCode?: number;
  /** Each process started (the first and every restart): wire its IPC channel. */
  onStart?: (proc: ChildProcess) => void;
}): ChildProcessHandle {
  let child: ChildProcess | null = null;
  let stopping = false;
  let pauseMs = 1000;
  let restartTimer: NodeJS.Timeout | null = null;

  const start = () => {
    restartTimer = null;
    const startedAt = Date.now();
    const proc = fork(opts.script ?? process.argv[1]!, opts.script ? [] : process.argv.slice(2), {
      env: opts.env,
      execArgv: [...process.execArgv, ...(opts.execArgv ?? [])],
      stdio: 'inherit',
    });
    child = proc;
    if (proc.pid !== undefined && opts.nice !== 0) {
      try {
        os.setPriority(proc.pid, opts.nice);
      } catch (err) {
        opts.logger.warn({ error: (err as Error).message, nice: opts.nice }, `${opts.name}: could not lower its priority`);
      }
    }
    opts.logger.info({ pid: proc.pid, nice: opts.nice }, `${opts.name} started`);
    opts.onStart?.(proc);
    proc.on('exit', (code, signal) => {
      if (child === proc) child = null;
      if (stopping) return;
      if (opts.onRefused && code !== null && code === opts.refusedExitCode) {
        opts.logger.error({ code }, `${opts.name} refused to start (see its message above): stopping`);
        opts.onRefused();
        return;
      }
      pauseMs = Date.now() - startedAt > HEALTHY_AFTER_MS ? 1000 : Math.min(MAX_RESTART_PAUSE_MS, pauseMs * 2);
      opts.logger.error({ code, signal, restartInMs: pauseMs }, `${opts.name} exited: starting it again`);
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

/** In a helper process: exit when the parent is gone (its IPC channel closed). */
export function exitWithParent(stop: (reason: string) => void): void {
  if (typeof process.send === 'function') process.once('disconnect', () => stop('parent process gone'));
}
