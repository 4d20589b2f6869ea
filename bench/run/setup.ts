// What every scenario runs on: Redis, the reference upstream, a partner key and gateway A (the
// last of the start-up runs), with the run's state.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { issueKey } from '../../stores/key-store.js';
import { startChild, withTimeout } from './children.js';
import { ROOT, type ScenarioName, only, opts } from './flags.js';
import { type Gateway, startGatewayChild } from './gateway.js';
import { type Row } from './load.js';
import { type MemoryReading } from './proc-stats.js';

/** The run's redis-server (stopped with the children when the bench is). */
export let benchRedis: TestRedis | null = null;

export interface BenchState {
  tmp: string;
  rows: Row[];
  startup: { ms: number[]; runner: string };
  memory: Record<string, MemoryReading>;
  /** Instructions per request by target (the `instructions` scenario). */
  instructions: Record<string, number>;
}

/** Redis, the reference upstream, a partner key and gateway A (the last of the start-up runs). */
export async function setUp(state: BenchState) {
  const { tmp, rows, startup } = state;
  if (opts.runner === 'dist') {
    const b = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  const redis = (benchRedis = await startTestRedis());
  const upstreamPort = await freePort();
  const up = startChild(
    'reference upstream',
    process.execPath,
    ['--import', 'tsx', 'sources/reference-upstream/main.ts'],
    { ...process.env, UPSTREAM_PORT: String(upstreamPort) },
    /listening on (\S+)/,
    opts.upstreamRoot,
  );
  const upstreamUrl = (await withTimeout(up.line, 20_000, 'reference upstream'))![1]!;

  const keysFile = path.join(tmp, 'keys.json');
  const key = (await issueKey(keysFile, { environment: 'production', partnerCode: 'BENCH' })).key;
  const gatewayEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    UPSTREAM_URL: upstreamUrl,
    START_REFERENCE_UPSTREAM: 'false',
    REDIS_URL: redis.url,
    DATA_DIR: path.join(tmp, 'data'),
    KEYS_FILE: keysFile,
    // As in production: one request line per request (to a file, see startChild).
    LOG_LEVEL: 'info',
    // One process, so the CPU and RSS read off its pid are the whole gateway's (the isolation
    // scenario runs the playground in its own process, as `npm start` does).
    PLAYGROUND_PROCESS: 'off',
    PLAYGROUND_ALLOWANCE: '1000000',
    TRUST_PROXY: '1',
    // The load generator is one address standing for many clients behind a proxy (as TRUST_PROXY
    // says): no per-address socket cap, as operations.md advises behind a load balancer.
    PLAYGROUND_MAX_CONNECTIONS_PER_IP: '0',
    // The load generator is one partner at 50 connections: the gateway's own speed is measured, not
    // the partner quota and fair-share queue that would refuse most of it (the isolation scenario
    // puts them back: its partner rows measure them).
    PARTNER_QUOTA_DEFAULT: 'unlimited',
    PARTNER_QUEUE: '100000',
    ...opts.env,
  };
  const keyedHeaders = { 'content-type': 'application/json', 'x-api-key': key };
  const table = (r: Row) => rows.push(r);
  const run = async (name: ScenarioName, fn: () => Promise<void>) => {
    if (!only.has(name)) return;
    process.stdout.write(`  ${name}…\n`);
    await fn();
  };

  // Start-up: spawn -> first 200 from /healthz, N times; the last start stays up as gateway A.
  let gw: Gateway | null = null;
  const needsA = only.has('cached') || only.has('playground') || only.has('profile');
  for (let i = 0; i < opts.starts; i++) {
    const g = await startGatewayChild(`gateway start ${i + 1}`, gatewayEnv);
    startup.ms.push(Math.round(g.startMs));
    if (i === opts.starts - 1 && needsA) gw = g;
    else await g.child.stop();
  }
  console.log(`  start-up to /healthz 200: ${startup.ms.join(', ')} ms`);
  return { ...state, redis, upstreamPort, up, upstreamUrl, keysFile, key, gatewayEnv, keyedHeaders, table, run, gw, needsA };
}

export type Ctx = Awaited<ReturnType<typeof setUp>>;
