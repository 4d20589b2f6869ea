// WORKERS=N: node:cluster workers, each a whole gateway, sharing each listener's port (the primary
// accepts and hands connections out in turn). The primary serves no partner: it forks and
// supervises the workers, and serves the ops port with every worker's metrics summed
// (server/observability/cluster-metrics.ts).
//
// - A worker that dies is started again in its slot after a pause that doubles (1 s up to 30 s) and
//   goes back to 1 s once a worker has stayed up a minute. Only its in-flight requests are lost (a
//   connection the primary was handing to it is closed at once: server/cluster-handoff.ts):
//   everything shared (allowance, free-request rate, replay, persisted queries, cache epochs, key
//   changes) is in Redis, which WORKERS > 1 requires (server/config.ts refuses to start without it).
// - A worker that fails during the first start stops the whole start: that is a setting or a port,
//   not a passing fault.
// - close(): SIGTERM to every worker at once; each drains as a single process does (start/main.ts).
// - The support console keeps sessions in its process: only slot 1 serves the admin port.
import cluster, { type Worker } from 'node:cluster';
import { closeOrphanedHandoffs } from './cluster-handoff.js';

/** Set by the primary in each worker's environment: its slot, 1..N (kept across restarts). */
const WORKER_SLOT_ENV = 'GATEWAY_WORKER_SLOT';
/** A worker's message to the primary once its listeners are up. */
const READY_MESSAGE = 'gateway:worker-ready';

const FIRST_PAUSE_MS = 1000;
const MAX_RESTART_PAUSE_MS = 30_000;
/** Up this long, a worker counts as healthy again: the next restart of its slot pauses 1 s. */
const HEALTHY_AFTER_MS = 60_000;

interface Logger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

interface WorkerPool {
  /** Resolves when every worker has its listeners up; rejects when one fails during the first start. */
  ready: Promise<void>;
  /** Workers running now. */
  alive(): number;
  /** Restarts since start. */
  restarts(): number;
  pids(): number[];
  /** SIGTERM every worker; SIGKILL one still running after `killAfterMs`. */
  close(killAfterMs: number): Promise<void>;
}

/** The slot of this process when it is a worker, else null. */
export function workerSlot(env: NodeJS.ProcessEnv = process.env): number | null {
  if (!cluster.isWorker) return null;
  const slot = Number(env[WORKER_SLOT_ENV]);
  return Number.isInteger(slot) && slot > 0 ? slot : null;
}

/** In a worker: tell the primary its listeners are up. */
export function reportReady(): void {
  process.send?.({ type: READY_MESSAGE });
}

export function startWorkerPool(opts: { count: number; env: NodeJS.ProcessEnv; logger: Logger }): WorkerPool {
  const live = new Map<number, Worker>();
  const pause = new Map<number, number>();
  const timers = new Set<NodeJS.Timeout>();
  let stopping = false;
  let restarts = 0;
  let firstStart = true;
  let readyCount = 0;
  let resolveReady!: () => void;
  let rejectReady!: (err: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });

  const fork = (slot: number) => {
    const startedAt = Date.now();
    const worker = cluster.fork({ ...opts.env, [WORKER_SLOT_ENV]: String(slot) });
    live.set(slot, worker);
    closeOrphanedHandoffs(worker, (count) =>
      opts.logger.error({ worker: slot, pid: worker.process.pid, connections: count }, 'worker died holding connections: closed them'),
    );
    let wasReady = false;
    opts.logger.info({ worker: slot, pid: worker.process.pid }, 'worker started');
    worker.on('message', (m: { type?: string }) => {
      if (m?.type !== READY_MESSAGE || wasReady) return;
      wasReady = true;
      if (firstStart && ++readyCount === opts.count) {
        firstStart = false;
        resolveReady();
      }
    });
    worker.on('exit', (code, signal) => {
      if (live.get(slot) === worker) live.delete(slot);
      if (stopping) return;
      if (firstStart && !wasReady) {
        rejectReady(new Error(`worker ${slot} exited during start (code ${code ?? signal}); its log says why`));
        return;
      }
      const last = pause.get(slot) ?? FIRST_PAUSE_MS / 2;
      const next = Date.now() - startedAt > HEALTHY_AFTER_MS ? FIRST_PAUSE_MS : Math.min(MAX_RESTART_PAUSE_MS, last * 2);
      pause.set(slot, next);
      opts.logger.error({ worker: slot, pid: worker.process.pid, code, signal, restartInMs: next }, 'worker exited: starting it again');
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (stopping) return;
        restarts++;
        fork(slot);
      }, next);
      timers.add(timer);
    });
  };
  for (let slot = 1; slot <= opts.count; slot++) fork(slot);

  return {
    ready,
    alive: () => live.size,
    restarts: () => restarts,
    pids: () => [...live.values()].map((w) => w.process.pid!).filter(Boolean),
    async close(killAfterMs) {
      stopping = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all(
        [...live.values()].map(async (worker) => {
          if (worker.process.exitCode !== null || worker.process.signalCode !== null) return;
          const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
          worker.process.kill('SIGTERM');
          const kill = setTimeout(() => worker.process.kill('SIGKILL'), killAfterMs);
          await exited;
          clearTimeout(kill);
        }),
      );
    },
  };
}
