// Under `npm start` the admin listener (the admin API and the support console) runs in a process of
// its own, at a lower CPU priority (ADMIN_PROCESS, on by default; ADMIN_NICE): support people's
// searches, audit pages and their HTML, sessions and the scan thread then compete with partners'
// keyed requests only through the kernel's scheduler, which favours the keyed process, instead of
// queueing on its event loop and garbage collector. Started and supervised as the playground is
// (server/child-process.ts), from an entry of its own (start/admin-main.ts).
//
// The admin process loads no Mesh. It opens the stores itself (Redis, or the embedded files, which
// are read per call and written by appends), and asks the serving process, over the IPC channel,
// for the two things only that process can do: a rerun (an unbound server of its schema, no
// socket: support/rerun.ts) and a purge of its response cache. Nothing else reaches the
// serving process from there.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { SupportConfig } from './admin-settings.js';
import type { Logger } from '../lib/logger.js';
import { createReplayStore } from '../stores/replay-store.js';
import { openSharedRedis } from '../server/wiring/shared-redis.js';
import { storeErrorLog } from '../server/wiring/store-errors.js';
import { startAdminEndpoint, type ServingProcess } from './admin-endpoint.js';
import { superviseChildProcess, type ChildProcessHandle } from '../server/child-process.js';
import { closeAll, type Closer } from '../lib/closers.js';
import type { PurgeTarget } from '../cache/response-cache.js';

/** A reply waits no longer than a rerun may take (60 s) and a margin. */
const CALL_TIMEOUT_MS = 75_000;

type Call = { type: 'admin:call'; id: string; op: 'rerun' | 'purge'; arg: unknown };
type Reply = { type: 'admin:reply'; id: string; ok: true; value: unknown } | { type: 'admin:reply'; id: string; ok: false; error: string };
const READY = 'admin:ready';

/** Does this process run the admin listener apart, beside the keyed listeners it would otherwise hold? */
export function adminApart(config: SupportConfig): boolean {
  return config.admin.process.enabled && !!config.admin.token && config.admin.port !== null;
}

/** The admin process's environment: the parent's, one process (no workers, no playground of its own). */
export function adminProcessEnv(env: NodeJS.ProcessEnv, settings: SupportConfig['admin']['process']): NodeJS.ProcessEnv {
  return { ...env, ADMIN_CHILD_NICE: String(settings.nice), WORKERS: '1', START_REFERENCE_UPSTREAM: 'false' };
}

/** The first admin process did not start (its settings, a taken ADMIN_PORT, a store; its own message says which). */
class AdminProcessRefused extends Error {
  /** The admin process's exit status (78: its settings or a port). */
  constructor(readonly exitCode: number | null) {
    super('the admin process did not start (its message is above)');
    this.name = 'AdminProcessRefused';
  }
}

/**
 * In the serving process: starts and supervises the admin process and answers its calls with
 * `serving` (awaited: the admin process starts beside the gateway, before it is up). `ready`
 * resolves once the first admin process listens, or rejects with AdminProcessRefused; a later
 * refusal (a restart) calls `onRefused`.
 */
export function startAdminProcess(opts: {
  env: NodeJS.ProcessEnv;
  nice: number;
  logger: Logger;
  serving: Promise<ServingProcess>;
  onRefused: () => void;
  refusedExitCode: number;
}): { process: ChildProcessHandle; ready: Promise<void> } {
  let started = false;
  let markReady: () => void = () => {};
  let refuse: (err: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = () => {
      started = true;
      resolve();
    };
    refuse = reject;
  });
  // Awaited by the caller at its own pace: no unhandled rejection meanwhile.
  ready.catch(() => {});
  const answer = async (proc: ChildProcess, call: Call) => {
    let reply: Reply;
    try {
      const serving = await opts.serving;
      const value = call.op === 'rerun' ? await serving.rerun(call.arg as never) : await purge(serving, call.arg as never);
      reply = { type: 'admin:reply', id: call.id, ok: true, value };
    } catch (err) {
      reply = { type: 'admin:reply', id: call.id, ok: false, error: (err as Error)?.message ?? String(err) };
    }
    if (proc.connected) proc.send(reply);
  };
  const handle = superviseChildProcess({
    name: 'admin process',
    script: adminScript(),
    env: opts.env,
    nice: opts.nice,
    logger: opts.logger,
    onRefused: () => started && opts.onRefused(),
    refusedExitCode: opts.refusedExitCode,
    onStart(proc) {
      // The first start fails as a whole (as an admin listener in the serving process would).
      proc.once('exit', (code) => started || refuse(new AdminProcessRefused(code)));
      proc.on('message', (m: unknown) => {
        const msg = m as { type?: string; id?: unknown; op?: unknown };
        if (msg?.type === READY) markReady();
        else if (msg?.type === 'admin:call' && typeof msg.id === 'string' && (msg.op === 'rerun' || msg.op === 'purge')) {
          void answer(proc, msg as Call);
        }
      });
    },
  });
  return { process: handle, ready };
}

/**
 * The admin process's entry: admin.mjs beside the bundle that runs this module (dist/,
 * scripts/build.mjs), start/admin-main.ts from the sources (through tsx, which is in execArgv).
 */
function adminScript(): string {
  return fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../start/admin-main.ts' : './admin.mjs', import.meta.url));
}

function purge(serving: ServingProcess, target: PurgeTarget) {
  if (!serving.cache) throw new Error('the response cache is off');
  return serving.cache.purge(target);
}

/** In the admin process: calls to the serving process over the IPC channel. */
function servingOverIpc(cacheEnabled: boolean): ServingProcess & { close(): void } {
  const pending = new Map<string, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  const onMessage = (m: unknown) => {
    const reply = m as Reply;
    if (reply?.type !== 'admin:reply') return;
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    clearTimeout(p.timer);
    if (reply.ok) p.resolve(reply.value);
    else p.reject(new Error(reply.error));
  };
  process.on('message', onMessage);
  const call = <T>(op: Call['op'], arg: unknown): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!process.send || !process.connected) return reject(new Error('the serving process is gone'));
      const id = randomUUID();
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the serving process did not answer within ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      process.send({ type: 'admin:call', id, op, arg } satisfies Call);
    });
  return {
    rerun: (record) => call('rerun', record),
    cache: cacheEnabled ? { purge: (target) => call('purge', target) } : null,
    close() {
      process.off('message', onMessage);
      for (const [id, p] of pending) {
        clearTimeout(p.timer);
        p.reject(new Error('the admin process is stopping'));
        pending.delete(id);
      }
    },
  };
}

/** The admin process itself: its stores, the admin listener, and ready reported to the parent. */
export async function runAdminProcess(config: SupportConfig, logger: Logger): Promise<{ close(): Promise<void> }> {
  const closers: Closer[] = [];
  const close = () => closeAll(closers, (err) => logger.warn({ err }, 'error while closing'));
  try {
    const { redis, bus } = await openSharedRedis(config.redisUrl, logger, closers);
    const replaySettings = config.cacheReplay.replay;
    const replay = replaySettings.enabled
      ? createReplayStore({
          redis,
          dataDir: config.dataDir,
          settings: replaySettings,
          onError: storeErrorLog(logger, 'the console reads what it can'),
        })
      : null;
    if (replay) closers.push(() => replay.close());
    const serving = servingOverIpc(config.cacheReplay.cache.enabled);
    closers.push(() => serving.close());
    const admin = await startAdminEndpoint({ config, logger, redis, bus, replay, serving });
    closers.push(() => admin.close());
  } catch (err) {
    await close();
    throw err;
  }
  process.send?.({ type: READY });
  return { close };
}
