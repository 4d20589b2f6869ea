// A gateway under test: started as `npm start` runs it (the bundle, or tsx), timed to its first 200
// from /healthz, with its heap figures read from /metrics.
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/harness/redis-server.js';
import { scrape } from '../../scripts/harness/metrics-text.js';
import { startRuntime } from '../start-runtime.js';
import { type Child, startChild, waitFor200 } from './children.js';
import { opts } from './flags.js';

export interface Gateway {
  child: Child;
  urls: { production: string; playground: string; healthz: string; metrics: string };
  startMs: number;
}

/** BENCH_START_WAIT_MS: a longer wait for a start on a machine busy with other work. */
export const startWaitMs = (ms: number) => Number(process.env.BENCH_START_WAIT_MS) || ms;

export async function startGatewayChild(
  name: string,
  base: NodeJS.ProcessEnv,
  extra: NodeJS.ProcessEnv = {},
  wrap: string[] = [],
  root = opts.gatewayRoot,
): Promise<Gateway> {
  const [production, certification, playground, ops] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const runtime = opts.runner === 'dist' ? startRuntime(root) : { env: {}, args: [] };
  const env = {
    ...runtime.env,
    ...base,
    PRODUCTION_PORT: String(production),
    CERTIFICATION_PORT: String(certification),
    PLAYGROUND_PORT: String(playground),
    OPS_PORT: String(ops),
    ...extra,
  };
  const args = opts.runner === 'dist' ? [...runtime.args, 'dist/gateway.mjs'] : ['--import', 'tsx', 'start/main.ts'];
  if (opts.profile) args.unshift('--cpu-prof', `--cpu-prof-dir=${opts.profile}`);
  const t0 = performance.now();
  // In the run's temporary directory (DATA_DIR's parent), removed at the end with it.
  const logFile = path.join(path.dirname(String(base.DATA_DIR ?? os.tmpdir())), `${name.replace(/\W+/g, '-')}.log`);
  const [cmd, ...cmdArgs] = [...wrap, process.execPath, ...args] as [string, ...string[]];
  const { child } = startChild(name, cmd, cmdArgs, env, undefined, root, logFile);
  const healthz = `http://127.0.0.1:${production}/healthz`;
  await waitFor200(healthz, wrap.length ? 300_000 : startWaitMs(30_000), child);
  const startMs = performance.now() - t0;
  return {
    child,
    startMs,
    urls: {
      production: `http://127.0.0.1:${production}/graphql`,
      playground: `http://127.0.0.1:${playground}/graphql`,
      healthz,
      metrics: `http://127.0.0.1:${ops}/metrics`,
    },
  };
}

/** V8 heap figures from the gateway's own /metrics (prom-client default metrics), MB. */
export async function heapOf(metricsUrl: string): Promise<{ heapUsedMb?: number; heapTotalMb?: number; externalMb?: number }> {
  try {
    const m = await scrape(metricsUrl);
    const mb = (v: number) => Math.round(v / 104857.6) / 10;
    return {
      heapUsedMb: mb(m('nodejs_heap_size_used_bytes')),
      heapTotalMb: mb(m('nodejs_heap_size_total_bytes')),
      externalMb: mb(m('nodejs_external_memory_bytes')),
    };
  } catch {
    return {};
  }
}

// Load
