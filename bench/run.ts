// `npm run bench`: the gateway against the physical limit of this machine.
//
// Starts its own redis-server, reference upstream (child process), a bare node:http baseline
// (child), a direct-upstream client (child) and the gateway (child: the bundle run with the node
// flags and environment of `npm start`, read from package.json, without the npm launcher so its
// pid is the gateway's; request log at info into a file), and loads them with autocannon from
// this process (the isolation scenario from child processes of its own: see there).
//
// Scenarios (every req/s is also given as a ratio to the baseline of the same run):
//   baseline     bare node:http, fixed 2 KB JSON body
//   floor        bare node:http that reads and parses the same POST and answers with the same
//                headers and body size as a cached gateway answer: the cost of the request's shape
//   floor/uws    the floor's work on uWebSockets.js (bench/floor-uws-server.ts): a listener's ceiling
//   cached       keyed residentialPlans for one ZIP, response cache hits
//   uncached     the same, CACHE_ENABLED=false (a second gateway process): every request runs the
//                resolvers and goes to the feeds (identical concurrent feed calls are still shared by
//                the fetch layer's in-flight dedup; the table says how many upstream requests each
//                gateway request cost)
//   direct       the same feed calls without the gateway (bench/direct-proxy.ts)
//   playground   playground residentialPlans (cache hits) from many client IPs (TRUST_PROXY=1 and
//                one X-Forwarded-For per request): allowance peek + consume in Redis per request
//   uncached@1 / direct@1   the same two at 1 connection: the gateway's own cost per request at p50
//   miss-storm   identical keyed residentialPlans on an entry that expires every second (TTL 1s):
//                concurrent misses coalesce into one execution; also run with CACHE_COALESCE=false
//                (`miss-storm/off`) to show what coalescing buys
//   records      the floor and the cached scenario on three gateways (as `cached`, LOG_LEVEL=warn:
//                `cached/no-log`, REPLAY_ENABLED=false: `cached/no-replay`), all up at once and loaded
//                in turn for --rounds rounds (3), each row the median of its rounds: cached / floor
//                without the drift of one load after another, and the CPU per request that the request log
//                line and the replay record add to a hit
//   isolation    the gateway as `npm start` runs it (the playground in its own, lower-priority
//                process). A keyed probe (bench/keyed-probe.ts, a child process): cache hits at a fixed
//                rate (--probe-rate, 500 req/s over 4 keep-alive connections), each timed with
//                process.hrtime.bigint(); p50/p99/max in ms with two decimals. Run quiet, then during
//                a playground flood of free requests from one client (bench/playground-flood.ts, a
//                child process at the playground's niceness, --flood-nice: 16 connections of distinct
//                ~1,000-token documents); target: keyed p99 within 2x of quiet. Each probe row notes
//                the whole machine's busy share and load average (other work on the machine shows
//                there), the flood row the playground's and Redis' CPU. Then attacks 1-5 of the issue
//                from many client IPs (the per-IP rate limit does not help there: memory bounds must)
//                and the gateway's RSS during (VmHWM) and after them, per process (target <= 250 MB);
//                attack 6: the keyed probe while one address (127.0.0.3, bench/socket-flood.ts at the
//                flood's niceness) holds 4,200 silent sockets on the keyed listener, capped at 512 per address
//                as a gateway exposed directly is (target: 0 errors, keyed p99 within 2x of quiet)
//                console audit / console search: the keyed probe while 8 support sessions load audit
//                pages over 100,000 refused sign-ins, and while 6 run 7-day searches over a playground
//                replay partition filled to 90% of its budget (both written through the stores,
//                bench/console-fill.ts; sessions from bench/console-load.ts at the flood's niceness);
//                target: keyed p99 within 2x of quiet
//   tracing      cached and uncached keyed residentialPlans with OpenTelemetry tracing off, sampled at 1%
//                and at 100% (--tracing off,1%,100%), spans sent to an OTLP/HTTP receiver in this process; loaded in
//                interleaved rounds as in `records` (--rounds)
//   profile      the keyed plan list priced over a 12-month usage profile (annualCost, ranked by the
//                year) against the same list asked plainly: `profile/uncached` beside `profile/plain`
//                on a CACHE_ENABLED=false gateway (target: within 1.5x), `profile/cached` beside
//                `cached` on gateway A (target: the same speed)
//   mesh         the stock GraphQL Mesh v0 server (`mesh build` + `mesh start`, one process) over the
//                same reference upstream, asked for the same three feed calls as raw source fields
//                (bench/mesh-start/: config derived from .meshrc.yaml, query, checks); the gateway
//                aims at uncached >= 2x its req/s
// plus start-up time (spawn -> first 200 from /healthz) over N starts, and the gateway's RSS
// (VmRSS of /proc/<pid>/status) after its scenarios.
//
// Flags: --duration 8 (s per scenario), --connections 50, --warmup 2 (s, discarded), --starts 3,
//        --zip 75001, --only cached,baseline (subset), --runner dist|tsx (dist, the default: bundle with
//        scripts/build.mjs and run dist/gateway.mjs, as `npm start` does), --no-json,
//        --rate N (fixed req/s: compare CPU per request without saturating), --probe-rate N and
//        --flood-nice N (isolation: the keyed probe's req/s, the flood generator's niceness),
//        --profile DIR (V8 CPU profiles of the gateway processes), --env K=V,K=V (extra gateway
//        environment, for experiments), --settle 10 (s of idle before the RSS is read again; 0: not),
//        --rounds 3 (records: interleaved rounds), --gateway-root DIR and --compare DIR (another
//        checkout's gateway instead, or beside it in the records rounds), --upstream-root DIR (that
//        checkout's reference upstream: an older gateway with the feeds of its day), --instructions-requests
//        1000 and --instructions-warmup 1000 (instructions), --tracing off,1%,100% (tracing: the levels),
//        --rows playground,attacks,connections,console (isolation: the rows after the quiet one).
//        An unknown flag or a bad value exits 2.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

type Options = Parameters<typeof autocannon>[0];
type Result = Awaited<ReturnType<typeof autocannon>>;
import { freePort, startTestRedis, type TestRedis } from '../scripts/harness/redis-server.js';
import { startOtlpReceiver } from '../scripts/harness/otlp-receiver.js';
import { scrape } from '../scripts/harness/metrics-text.js';
import { issueKey } from '../server/keys/key-store.js';
import { connectRedis } from '../cache/redis-connection.js';
import { writeStockMeshConfig } from './mesh-start/config.js';
import { checkMeshAnswer, checkMeshHitsUpstream, MESH_QUERY, meshBody } from './mesh-start/query.js';
import { spreadDocument } from './spread-document.js';
import { startRuntime } from './start-runtime.js';
import { AUDIT_PATHS, fillAuditTrail, fillPlaygroundReplay, SEARCH_PATHS } from './console-fill.js';
import { parseWorkerList, runWorkerScaling, type ScalingScenario } from './workers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// ------------------------------------------------------------------------------------------------
// Flags

function flags(argv: string[]) {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) continue;
    const [k, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
    if (inline !== undefined) out[k] = inline;
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) out[k] = argv[++i]!;
    else out[k] = 'true';
  }
  return out;
}
/** A bad flag: what is wrong, without a stack trace, and exit 2 (as the project's CLIs do). */
function usage(message: string): never {
  console.error(`bench: ${message}\nFlags are listed at the top of bench/run.ts and in docs/benchmark.md.`);
  process.exit(2);
}
const FLAGS = [
  'duration',
  'connections',
  'warmup',
  'starts',
  'zip',
  'only',
  'runner',
  'no-json',
  'rate',
  'probe-rate',
  'flood-nice',
  'profile',
  'gateway-root',
  'upstream-root',
  'compare',
  'env',
  'settle',
  'rounds',
  'instructions-requests',
  'instructions-warmup',
  'workers',
  'tracing',
  'rows',
];
const f = flags(process.argv.slice(2));
for (const k of Object.keys(f)) if (!FLAGS.includes(k)) usage(`unknown flag --${k} (known: ${FLAGS.map((x) => `--${x}`).join(', ')})`);
const num = (name: string, fallback: number) => {
  const v = f[name] === undefined ? fallback : Number(f[name]);
  if (!Number.isFinite(v) || v <= 0) usage(`--${name} must be a positive number, got "${f[name]}"`);
  return v;
};
const opts = {
  duration: num('duration', 8),
  connections: Math.round(num('connections', 50)),
  warmup: f.warmup === '0' ? 0 : num('warmup', 2),
  // With --workers, the scaling series alone (start-up is timed only when --starts says so).
  starts: Math.round(num('starts', f.workers ? 1 : 3)),
  zip: f.zip ?? '75001',
  runner: (f.runner ?? 'dist') as 'tsx' | 'dist',
  json: f['no-json'] === undefined,
  /** --profile DIR: the gateway children write V8 CPU profiles (.cpuprofile) there on exit. */
  profile: f.profile ? path.resolve(f.profile) : null,
  /** --gateway-root DIR: run the gateway from another checkout (A/B comparisons of a change). */
  gatewayRoot: f['gateway-root'] ? path.resolve(f['gateway-root']) : ROOT,
  /** --upstream-root DIR: the reference upstream of another checkout (an older gateway reads only the feeds of its day). */
  upstreamRoot: f['upstream-root'] ? path.resolve(f['upstream-root']) : ROOT,
  /** --compare DIR: `records` also loads a cached gateway built in that checkout, in the same rounds. */
  compareRoot: f.compare ? path.resolve(f.compare) : null,
  /** --rate N: fixed overall request rate instead of as fast as possible (CPU per request at a steady load). */
  rate: f.rate ? num('rate', 1000) : null,
  /** --instructions-requests N / --instructions-warmup N: requests counted, and sent before counting, under callgrind. */
  instructionsRequests: Math.round(num('instructions-requests', 1000)),
  instructionsWarmup: Math.round(num('instructions-warmup', 1000)),
  /** --rounds N: the records scenario's interleaved rounds (each target loaded once a round). */
  rounds: Math.round(num('rounds', 3)),
  /** --probe-rate N: the isolation scenario's keyed probe, req/s over its 4 connections. */
  probeRate: num('probe-rate', 500),
  /** --settle S: seconds of idle after a gateway's scenarios before its RSS is read again (0: not). */
  settle: f.settle === '0' ? 0 : num('settle', 10),
  /** --env K=V,K=V: extra gateway environment for experiments (e.g. REPLAY_ENABLED=false). */
  env: Object.fromEntries((f.env ? f.env.split(',') : []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
  /** --tracing off,1%,100%: the tracing scenario's sampling levels (each a cached and an uncached row). */
  tracing: (f.tracing ?? 'off,1%,100%').split(',').map((s) => s.trim()),
};
/** --rows playground,attacks,connections,console: the isolation rows run after the quiet one (all by default). */
const ISOLATION_ROWS = ['playground', 'attacks', 'connections', 'console'];
const isolationRows = new Set((f.rows ?? ISOLATION_ROWS.join(',')).split(',').map((s) => s.trim()));
for (const r of isolationRows) if (!ISOLATION_ROWS.includes(r)) usage(`--rows takes ${ISOLATION_ROWS.join(', ')}, got "${r}"`);
const TRACING_LEVELS: Record<string, string | null> = { off: null, '1%': '0.01', '100%': '1' };
for (const level of opts.tracing)
  if (!(level in TRACING_LEVELS)) usage(`--tracing takes off, 1% and 100% separated by commas, got "${level}"`);
/** --flood-nice N: niceness of the isolation flood's load generator (default: the playground process's). */
const floodNice = Math.max(0, Math.min(19, Math.round(Number(f['flood-nice'] ?? opts.env.PLAYGROUND_NICE ?? 10)) || 0));
const ALL = [
  'baseline',
  'floor',
  'floor-uws',
  'cached',
  'records',
  'uncached',
  'miss-storm',
  'direct',
  'playground',
  'overhead',
  'isolation',
  'shared',
  'profile',
  'mesh',
  'instructions',
  'tracing',
] as const;
type ScenarioName = (typeof ALL)[number];
// `instructions` runs under valgrind for minutes: only when asked for.
const only = new Set<ScenarioName>((f.only ? f.only.split(',') : ALL.filter((s) => s !== 'instructions')) as ScenarioName[]);
for (const s of only) if (!ALL.includes(s)) usage(`--only: unknown scenario "${s}" (${ALL.join(', ')})`);
/** --workers 1,2,4: the gateway as a cluster of each size (bench/workers.ts), instead of the scenarios. */
const parsedWorkers = f.workers ? parseWorkerList(f.workers) : null;
if (typeof parsedWorkers === 'string') usage(parsedWorkers);
const workerList: number[] | null = parsedWorkers;
const SCALING: ScalingScenario[] = ['cached', 'uncached', 'playground'];
const scalingScenarios = workerList ? SCALING.filter((s) => !f.only || only.has(s)) : [];
if (workerList && !scalingScenarios.length) usage(`--workers runs ${SCALING.join(', ')}; --only names none of them`);
if (workerList) only.clear();
if (opts.runner !== 'tsx' && opts.runner !== 'dist') usage(`--runner must be tsx or dist, got "${opts.runner}"`);
for (const dir of [opts.gatewayRoot, opts.upstreamRoot, opts.compareRoot])
  if (dir && !fs.existsSync(path.join(dir, 'package.json'))) usage(`${dir} is not a checkout of the gateway (no package.json)`);
if (!/^\d{5}$/.test(opts.zip)) usage(`--zip must be a 5-digit ZIP code, got "${opts.zip}"`);
for (const kv of f.env ? f.env.split(',') : [])
  if (!/^[A-Z_][A-Z0-9_]*=/.test(kv)) usage(`--env takes NAME=value pairs separated by commas, got "${kv}"`);

// The keyed request: a realistic plan list (about 3.3 KB for 75001), by variables.
const QUERY = 'query Plans($zipCode: String!) { residentialPlans(zipCode: $zipCode) { title price term rateType supplier { name } } }';
const BODY = JSON.stringify({ query: QUERY, variables: { zipCode: opts.zip }, operationName: 'Plans' });
// The same list priced over a household's year (profile scenario).
const PROFILE_QUERY =
  'query Year($zipCode: String!, $profile: [Int!]) { residentialPlans(zipCode: $zipCode, usageProfile: $profile) ' +
  '{ title price term rateType supplier { name } annualCost { totalUsd averageRateUsdPerKwh } } }';
const PROFILE_BODY = JSON.stringify({
  query: PROFILE_QUERY,
  variables: { zipCode: opts.zip, profile: [800, 800, 750, 800, 1100, 1600, 2000, 2100, 1700, 1100, 800, 800] },
  operationName: 'Year',
});

// ------------------------------------------------------------------------------------------------
// Child processes

interface Child {
  name: string;
  proc: ChildProcess;
  /** Last lines of output, for error messages. */
  tail(): string;
  stop(): Promise<void>;
}

const children = new Set<Child>();
/** The run's redis-server (stopped with the children when the bench is). */
let benchRedis: TestRedis | null = null;

/**
 * `stdoutFile`: the child's stdout goes to that file instead of a pipe to this process (the gateway's
 * request log: read here, 10k+ lines a second would take CPU from the load generator; in production
 * it goes to a file or a collector, not to a process on the same cores).
 */
function startChild(
  name: string,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready?: RegExp,
  cwd = ROOT,
  stdoutFile?: string,
): { child: Child; line: Promise<RegExpMatchArray | null> } {
  const out = stdoutFile ? fs.openSync(stdoutFile, 'a') : 'pipe';
  const proc = spawn(cmd, args, { cwd, env, stdio: ['ignore', out, 'pipe'] });
  if (typeof out === 'number') fs.closeSync(out);
  const lines: string[] = [];
  let resolveLine: (m: RegExpMatchArray | null) => void = () => {};
  const line = new Promise<RegExpMatchArray | null>((resolve, reject) => {
    resolveLine = resolve;
    proc.once('exit', (code, signal) => reject(new Error(`${name} exited early (${code ?? signal}):\n${lines.join('\n')}`)));
    if (!ready) resolve(null);
  });
  line.catch(() => {});
  const onData = (d: Buffer) => {
    for (const l of d.toString().split('\n')) {
      if (!l) continue;
      lines.push(l);
      if (lines.length > 40) lines.shift();
      const m = ready?.exec(l);
      if (m) resolveLine(m);
    }
  };
  proc.stdout?.on('data', onData);
  proc.stderr!.on('data', onData);
  const fileTail = () => (stdoutFile ? fs.readFileSync(stdoutFile, 'utf8').split('\n').filter(Boolean).slice(-20) : []);
  const child: Child = {
    name,
    proc,
    tail: () => [...fileTail(), ...lines].join('\n'),
    stop: () =>
      new Promise<void>((resolve) => {
        children.delete(child);
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
        proc.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  };
  children.add(child);
  return { child, line };
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a command to its end (time-boxed: killed after `timeoutMs`); throws with its output unless it exits 0. */
async function runToExit(
  name: string,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs: number,
): Promise<number> {
  const t0 = performance.now();
  const { child } = startChild(name, cmd, args, env, undefined, cwd);
  const code = await new Promise<number | string | null>((resolve) => {
    const timer = setTimeout(() => {
      child.proc.kill('SIGKILL');
      resolve(`killed after ${timeoutMs} ms`);
    }, timeoutMs);
    child.proc.once('exit', (c, sig) => {
      clearTimeout(timer);
      resolve(c ?? sig);
    });
  });
  children.delete(child);
  if (code !== 0) throw new Error(`${name} failed (${code}):\n${child.tail()}`);
  return performance.now() - t0;
}

async function waitFor200(url: string, timeoutMs: number, child: Child): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`${child.name} exited:\n${child.tail()}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} not 200 within ${timeoutMs} ms:\n${child.tail()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A gateway's memory right after its load (RSS, peak, V8 heap), and its RSS again after --settle
 * seconds of idle: V8 returns memory once its memory reducer runs on an idle process.
 */
async function memoryAfterRun(g: Gateway): Promise<MemoryReading> {
  const reading: MemoryReading = { ...memoryWithChildren(g.child.proc.pid), ...(await heapOf(g.urls.metrics)) };
  if (opts.settle > 0) {
    await new Promise((r) => setTimeout(r, opts.settle * 1000));
    reading.settledRssMb = memoryWithChildren(g.child.proc.pid).rssMb;
    reading.settleSeconds = opts.settle;
  }
  return reading;
}

interface MemoryReading {
  rssMb: number | null;
  peakRssMb: number | null;
  heapUsedMb?: number;
  heapTotalMb?: number;
  externalMb?: number;
  settledRssMb?: number | null;
  settleSeconds?: number;
}

/** Which of the gateway's processes a pid is: its parent sets a variable naming each helper process. */
function processRole(pid: number | undefined): 'serving' | 'playground' | 'admin' {
  try {
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
    if (/(^|\0)PLAYGROUND_CHILD_NICE=/.test(environ)) return 'playground';
    if (/(^|\0)ADMIN_CHILD_NICE=/.test(environ)) return 'admin';
  } catch {
    // not on Linux, or gone
  }
  return 'serving';
}

/** The gateway's memory plus its child processes' (the playground and admin processes under `npm start`), MB from /proc (Linux). */
function memoryWithChildren(pid: number | undefined): {
  rssMb: number | null;
  peakRssMb: number | null;
  /** By role: serving (the keyed process), playground, admin. */
  rssByProcessMb: Record<string, number | null>;
  pids: Record<string, number | undefined>;
} {
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // not on Linux, or gone
  }
  const procs = [pid, ...children].map((p) => ({ pid: p, role: processRole(p), ...memoryOf(p) }));
  const sum = (k: 'rssMb' | 'peakRssMb') =>
    procs.every((m) => m[k] !== null) ? Math.round(procs.reduce((a, m) => a + m[k]!, 0) * 10) / 10 : null;
  return {
    rssMb: sum('rssMb'),
    peakRssMb: sum('peakRssMb'),
    rssByProcessMb: Object.fromEntries(procs.map((m) => [m.role, m.rssMb])),
    pids: Object.fromEntries(procs.map((m) => [m.role, m.pid])),
  };
}

function memoryOf(pid: number | undefined): { rssMb: number | null; peakRssMb: number | null } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Math.round(Number(m[1]) / 102.4) / 10 : null;
    };
    return { rssMb: kb('VmRSS'), peakRssMb: kb('VmHWM') };
  } catch {
    return { rssMb: null, peakRssMb: null };
  }
}

// ------------------------------------------------------------------------------------------------
// Gateway

interface Gateway {
  child: Child;
  urls: { production: string; playground: string; healthz: string; metrics: string };
  startMs: number;
}

async function startGatewayChild(
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
  const args = opts.runner === 'dist' ? [...runtime.args, 'dist/gateway.mjs'] : ['--import', 'tsx', 'server/main.ts'];
  if (opts.profile) args.unshift('--cpu-prof', `--cpu-prof-dir=${opts.profile}`);
  const t0 = performance.now();
  // In the run's temporary directory (DATA_DIR's parent), removed at the end with it.
  const logFile = path.join(path.dirname(String(base.DATA_DIR ?? os.tmpdir())), `${name.replace(/\W+/g, '-')}.log`);
  const [cmd, ...cmdArgs] = [...wrap, process.execPath, ...args] as [string, ...string[]];
  const { child } = startChild(name, cmd, cmdArgs, env, undefined, root, logFile);
  const healthz = `http://127.0.0.1:${production}/healthz`;
  await waitFor200(healthz, wrap.length ? 300_000 : 30_000, child);
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
async function heapOf(metricsUrl: string): Promise<{ heapUsedMb?: number; heapTotalMb?: number; externalMb?: number }> {
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

// ------------------------------------------------------------------------------------------------
// Load

interface Row {
  scenario: string;
  description: string;
  connections: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  timeouts: number;
  totalRequests: number;
  bytesPerResponse: number;
  /** CPU time of the server process per answered request (µs); null when not measured. */
  cpuUsPerRequest: number | null;
  /** The same split by thread kind (threadCpuMsOf), µs per request. */
  threadCpuUs?: Record<string, number> | null;
  ratio?: number;
  notes?: Record<string, unknown>;
  /** The scenario could not run (e.g. mesh build failed); the figures are zeros. */
  error?: string;
}

/** CPU time (user + system) a process has used so far, ms (Linux /proc/<pid>/stat). */
function cpuMsOf(pid: number | undefined): number | null {
  try {
    const t = statTimes(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return t.userMs + t.sysMs;
  } catch {
    return null;
  }
}

/** User and system time (ms) and minor page faults of a /proc stat line (a process's or a thread's). */
function statTimes(stat: string): { userMs: number; sysMs: number; minorFaults: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // minflt, utime and stime are fields 10, 14 and 15 of the whole line; times in clock ticks (100 Hz on Linux).
  return { userMs: (Number(fields[11]) * 1000) / 100, sysMs: (Number(fields[12]) * 1000) / 100, minorFaults: Number(fields[7]) };
}

/**
 * CPU time so far, ms: the main thread's user and system time, and every other thread's (libuv's
 * pool: deflate, file writes; V8's: compiles, parallel and concurrent GC). Node names them all
 * "node", so they are not told apart.
 */
function threadCpuMsOf(pid: number | undefined): Record<'mainUser' | 'mainSys' | 'otherThreads' | 'minorFaults', number> | null {
  const out = { mainUser: 0, mainSys: 0, otherThreads: 0, minorFaults: 0 };
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // the thread ended
      }
      const t = statTimes(stat);
      // Page faults are counted as if they were µs, so the split reports faults per request.
      out.minorFaults += t.minorFaults / 1000;
      if (tid === String(pid)) {
        out.mainUser += t.userMs;
        out.mainSys += t.sysMs;
      } else out.otherThreads += t.userMs + t.sysMs;
    }
  } catch {
    return null;
  }
  return out;
}

/**
 * Warm-up (discarded), then `before()` (counters), then the measured run. With `pid`, also the CPU
 * time that process spent per answered request: robust to other load on the machine.
 */
async function load(
  o: Options,
  pid?: number,
  before?: () => Promise<void>,
  /** CPU ms so far of what is measured, instead of `pid`'s (a process tree: bench/workers.ts). */
  cpuOf: () => number | null = () => (pid ? cpuMsOf(pid) : null),
): Promise<{ result: Result; cpuUsPerRequest: number | null; threadCpuUs: Record<string, number> | null }> {
  if (opts.rate) o = { ...o, overallRate: opts.rate };
  if (opts.warmup > 0) await autocannon({ ...o, duration: opts.warmup });
  await before?.();
  const cpu0 = cpuOf();
  const threads0 = pid ? threadCpuMsOf(pid) : null;
  const result = await autocannon({ timeout: 10, ...o });
  const cpu1 = cpuOf();
  const threads1 = pid ? threadCpuMsOf(pid) : null;
  const n = result.requests.total;
  const cpuUsPerRequest = cpu0 !== null && cpu1 !== null && n ? Math.round(((cpu1 - cpu0) * 1000) / n) : null;
  const threadCpuUs =
    threads0 && threads1 && n
      ? Object.fromEntries(
          Object.entries(threads1).map(([k, v]) => [k, Math.round(((v - threads0[k as keyof typeof threads0]) * 10000) / n) / 10]),
        )
      : null;
  return { result, cpuUsPerRequest, threadCpuUs };
}

/** A keyed residentialPlans load on gateway `g` as a row, with the change of its metrics over the measured run. */
async function keyedLoadRow(
  g: Gateway,
  scenario: string,
  description: string,
  headers: Record<string, string>,
): Promise<{ r: Row; delta: (metric: string, labels?: Record<string, string>) => number }> {
  let before = await scrape(g.urls.metrics);
  const measured = await load(
    { url: g.urls.production, connections: opts.connections, duration: opts.duration, method: 'POST', headers, body: BODY },
    g.child.proc.pid,
    async () => {
      before = await scrape(g.urls.metrics);
    },
  );
  const r = row(scenario, description, opts.connections, measured);
  const after = await scrape(g.urls.metrics);
  return { r, delta: (metric, labels) => after(metric, labels) - before(metric, labels) };
}

function row(
  scenario: string,
  description: string,
  connections: number,
  measured: { result: Result; cpuUsPerRequest: number | null; threadCpuUs?: Record<string, number> | null },
): Row {
  const r = measured.result;
  const total = r.requests.total;
  return {
    cpuUsPerRequest: measured.cpuUsPerRequest,
    ...(measured.threadCpuUs ? { threadCpuUs: measured.threadCpuUs } : {}),
    scenario,
    description,
    connections,
    reqPerSec: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.non2xx + r.errors,
    non2xx: r.non2xx,
    timeouts: r.timeouts,
    totalRequests: total,
    bytesPerResponse: total ? Math.round(r.throughput.total / total) : 0,
  };
}

function median(xs: number[]): number {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
}

/** One row of several loads of the same target: the median of each figure, errors and requests summed. */
function medianRow(scenario: string, description: string, runs: Row[]): Row {
  const cpus = runs.map((r) => r.cpuUsPerRequest).filter((c): c is number => c !== null);
  const sum = (k: 'errors' | 'non2xx' | 'timeouts' | 'totalRequests') => runs.reduce((n, r) => n + r[k], 0);
  return {
    scenario,
    description,
    connections: runs[0]!.connections,
    reqPerSec: Math.round(median(runs.map((r) => r.reqPerSec))),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    errors: sum('errors'),
    non2xx: sum('non2xx'),
    timeouts: sum('timeouts'),
    totalRequests: sum('totalRequests'),
    bytesPerResponse: runs[0]!.bytesPerResponse,
    cpuUsPerRequest: cpus.length ? Math.round(median(cpus)) : null,
    notes: { reqPerSec: runs.map((r) => r.reqPerSec).join('/'), cpuUsPerRequest: cpus.join('/'), ...threadSplit(runs) },
  };
}

/** The median of each thread kind's CPU µs per request over runs that measured it. */
function threadSplit(runs: Row[]): { cpuUsByThread?: Record<string, number> } {
  const measured = runs.map((r) => r.threadCpuUs).filter((t): t is Record<string, number> => !!t);
  if (!measured.length) return {};
  return {
    cpuUsByThread: Object.fromEntries(Object.keys(measured[0]!).map((k) => [k, Math.round(median(measured.map((t) => t[k]!)) * 10) / 10])),
  };
}

function errorRow(scenario: string, description: string, err: unknown): Row {
  const message = (err as Error).message ?? String(err);
  return {
    scenario,
    description,
    connections: opts.connections,
    reqPerSec: 0,
    p50Ms: 0,
    p99Ms: 0,
    errors: 0,
    non2xx: 0,
    timeouts: 0,
    totalRequests: 0,
    bytesPerResponse: 0,
    cpuUsPerRequest: null,
    error: message,
  };
}

function ipFor(n: number): string {
  // 10.0.0.0/8 spread over 65536 addresses, so each IP gets a handful of calls.
  const i = n % 65536;
  return `10.${(i >> 8) & 255}.${i & 255}.${1 + (Math.floor(n / 65536) % 250)}`;
}

/** A new client address on each call (ipFor), and how many were given. */
function ipCounter(): { next: () => string; readonly count: number } {
  let n = 0;
  return {
    next: () => ipFor(n++),
    get count() {
      return n;
    },
  };
}

/** The playground's residentialPlans posted with a client address from `nextIp` each, so the per-IP allowance stays out of the way. */
function playgroundFromManyIps(url: string, connections: number, nextIp: () => string): Options {
  const headers = { 'content-type': 'application/json' };
  return {
    url,
    connections,
    duration: opts.duration,
    requests: [
      {
        method: 'POST',
        path: '/graphql',
        headers,
        body: BODY,
        setupRequest: (req: { headers?: Record<string, string> }) => ({ ...req, headers: { ...headers, 'x-forwarded-for': nextIp() } }),
      },
    ],
  };
}

/** Sends n keyed requests one after the other on one keep-alive connection; returns how many were not 200. */
async function sequential(url: string, headers: Record<string, string>, n: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const u = new URL(url);
  let bad = 0;
  try {
    for (let i = 0; i < n; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = http.request(
          {
            host: u.hostname,
            port: u.port,
            path: u.pathname,
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', ...headers },
          },
          (res) => {
            if (res.statusCode !== 200) bad++;
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(BODY);
      });
    }
  } finally {
    agent.destroy();
  }
  return bad;
}

async function checkOnce(
  url: string,
  headers: Record<string, string>,
  body = BODY,
): Promise<{ status: number; cache: string | null; bytes: number }> {
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, cache: res.headers.get('x-cache'), bytes: Buffer.byteLength(text) };
}

// ------------------------------------------------------------------------------------------------
// Stock GraphQL Mesh (`mesh` scenario)

/**
 * `mesh build`, then `mesh start` (the production server on the built artifacts, as a deployment of
 * stock Mesh runs it; `mesh dev` would rebuild the schema at start-up and watch files, not what one
 * would benchmark). Both from this checkout's node_modules/.bin/mesh, run with this Node directly so
 * the pid measured is the server's. The config is generated into a temp dir from .meshrc.yaml
 * (bench/mesh-start/config.ts: same sources, handlers and contract files; none of our logger,
 * resolvers, type defs or transforms; endpoints = the bench's reference upstream). The temp dir gets
 * a node_modules symlink so the built .mesh/index.ts resolves the Mesh packages. Throws on any
 * failure (the caller turns it into an error row); the server is stopped in every case.
 */
async function meshStartScenario(description: string, upstreamUrl: string, upstream: Child, tmp: string): Promise<Row> {
  const meshBin = fs.realpathSync(path.join(ROOT, 'node_modules', '.bin', 'mesh'));
  const meshVersion = (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', '@graphql-mesh', 'cli', 'package.json'), 'utf8')) as { version: string }
  ).version;
  const dir = path.join(tmp, 'mesh-start');
  const port = await freePort();
  writeStockMeshConfig({ projectRoot: opts.gatewayRoot, dir, upstreamUrl, port });
  const modules = path.join(dir, 'node_modules');
  fs.symlinkSync(path.join(ROOT, 'node_modules'), modules, 'dir');
  // Nothing of the bench's environment: FORK or NODE_ENV there would change what `mesh start` does.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  let server: Child | null = null;
  try {
    const buildMs = await runToExit('mesh build', process.execPath, [meshBin, 'build'], env, dir, 120_000);
    const t0 = performance.now();
    server = startChild('mesh start', process.execPath, [meshBin, 'start'], env, undefined, dir).child;
    const base = `http://127.0.0.1:${port}`;
    await waitFor200(`${base}/healthcheck`, 60_000, server);
    const url = `${base}/graphql`;
    // The first answer (the schema is loaded lazily on the first request) bounds the start-up too.
    const check = await withTimeout(checkMeshAnswer(url, opts.zip), 60_000, 'mesh start: first answer');
    const startMs = performance.now() - t0;
    const upstreamUrls = await withTimeout(checkMeshHitsUpstream(url, upstreamUrl, opts.zip), 60_000, 'mesh start: upstream check');
    const s = server;
    let upCpu0: number | null = null;
    const r = row(
      'mesh',
      description,
      opts.connections,
      await load(
        {
          url,
          connections: opts.connections,
          duration: opts.duration,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: meshBody(opts.zip),
        },
        s.proc.pid,
        async () => {
          upCpu0 = cpuMsOf(upstream.proc.pid);
        },
      ),
    );
    const upCpu1 = cpuMsOf(upstream.proc.pid);
    if (s.proc.exitCode !== null) throw new Error(`mesh start exited during the load:\n${s.tail()}`);
    await checkMeshAnswer(url, opts.zip); // still complete answers after the load
    r.notes = {
      meshCli: meshVersion,
      buildMs: Math.round(buildMs),
      startToFirstAnswerMs: Math.round(startMs),
      answerBytes: check.bytes,
      items: `${check.utilities} utilities, ${check.voltifyOffers} Voltify, ${check.brightgridPlans} Brightgrid`,
      upstreamVerified: Object.keys(upstreamUrls).join('+'),
      upstreamCpuUsPerRequest:
        upCpu0 !== null && upCpu1 !== null && r.totalRequests ? Math.round(((upCpu1 - upCpu0) * 1000) / r.totalRequests) : null,
      rssMb: memoryOf(s.proc.pid).rssMb,
    };
    return r;
  } finally {
    await server?.stop();
    fs.unlinkSync(modules); // the link only, never the project's node_modules (before tmp is removed)
  }
}

/** Redis' own CPU time so far (INFO cpu: used_cpu_user + used_cpu_sys), in ms. */
async function redisCpuMs(url: string): Promise<number | null> {
  const client = await connectRedis(url);
  try {
    const info = await client.info('cpu');
    const user = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]);
    const sys = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
    return Number.isFinite(user + sys) ? (user + sys) * 1000 : null;
  } finally {
    client.disconnect();
  }
}

/**
 * Issue 15: two gateway instances sharing one Redis, both loaded at once with counted playground
 * calls from many IPs (allowance, cache and replay all in Redis). Reports, per instance, CPU µs
 * per request, and Redis' CPU µs per request over both: the cost of sharing state.
 */
async function sharedRedisScenario(gatewayEnv: NodeJS.ProcessEnv, redisUrl: string): Promise<Row[]> {
  const a = await startGatewayChild('shared gateway A', gatewayEnv);
  const b = await startGatewayChild('shared gateway B', gatewayEnv);
  try {
    // One counter for both instances: they share the allowance in Redis.
    const ips = ipCounter();
    const half = Math.max(1, Math.floor(opts.connections / 2));
    const options = (g: Gateway): Options => playgroundFromManyIps(g.urls.playground, half, ips.next);
    let redis0: number | null = null;
    let started = 0;
    const before = async () => {
      // Both warm-ups are over once both have called this.
      if (++started === 2) redis0 = await redisCpuMs(redisUrl);
    };
    const [ra, rb] = await Promise.all([load(options(a), a.child.proc.pid, before), load(options(b), b.child.proc.pid, before)]);
    const redis1 = await redisCpuMs(redisUrl);
    const total = ra.result.requests.total + rb.result.requests.total;
    const redisUs = redis0 !== null && redis1 !== null && total ? Math.round(((redis1 - redis0) * 1000) / total) : null;
    const rowA = row('shared-a', 'instance A of 2 sharing one Redis: playground from many IPs', half, ra);
    const rowB = row('shared-b', 'instance B of 2 sharing one Redis: the same, at the same time', half, rb);
    rowA.notes = { redisCpuUsPerRequest: redisUs, requestsBothInstances: total };
    return [rowA, rowB];
  } finally {
    await a.child.stop();
    await b.child.stop();
  }
}

// ------------------------------------------------------------------------------------------------
// Isolation: keyed latency under a keyless flood, memory under attacks 1-5

// The keyed probe (bench/keyed-probe.ts) and the flood's load generator (bench/playground-flood.ts)
// run in processes of their own, not in this one: the flood's generator saturates the event loop it
// runs on, and a probe sharing it would report its own queueing as the gateway's latency. The probe
// sends at a fixed rate (--probe-rate, 500 req/s over 4 keep-alive connections) and times each
// request with process.hrtime.bigint() (µs), so quiet and flood runs offer the same load and p99 is
// not rounded to whole milliseconds.
//
// Priorities: nothing is pinned to a core (pinning would split this 2-core machine into halves and
// measure something else). The probe runs at this process's priority, like the gateway's keyed
// process; the flood's generator runs at the playground process's niceness (--flood-nice, the
// gateway's PLAYGROUND_NICE, 10 by default), because in production the flood comes from the
// attacker's machine: at nice 0 the generator would take a core from the keyed process, which says
// nothing about the playground's isolation. Started through nice(1), so every thread of it has that
// niceness from its first instruction. This process itself keeps its priority (the other scenarios
// load the gateway from here) and waits while the isolation runs are measured.

interface ProbeResult {
  count: number;
  errors: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  missedSlots: number;
  lagP99Ms: number;
  machineBusyPct?: number | null;
  loadAvg1m?: number;
}

/** All CPUs' busy and total time so far (Linux /proc/stat, clock ticks); null elsewhere. */
function machineCpu(): { busy: number; total: number } | null {
  try {
    const t = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
    const total = t.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - t[3]! - t[4]!, total };
  } catch {
    return null;
  }
}

/** A keyed probe run of `seconds` (after --warmup): latency, and the keyed process's CPU per request. */
async function keyedProbe(
  g: Gateway,
  headers: Record<string, string>,
  seconds: number,
): Promise<{ probe: ProbeResult; cpuUsPerRequest: number | null }> {
  const pid = g.child.proc.pid;
  const env = {
    PATH: process.env.PATH,
    URL: g.urls.production,
    BODY,
    HEADERS: JSON.stringify(headers),
    RATE: String(opts.probeRate),
    CONNECTIONS: '4',
    DURATION: String(seconds),
    WARMUP: String(opts.warmup),
  };
  const { child, line } = startChild(
    'keyed probe',
    process.execPath,
    ['--import', 'tsx', 'bench/keyed-probe.ts'],
    env,
    /^RESULT (\{.*\})$/,
  );
  // Read when the probe's warm-up is over.
  const start: { read: boolean; cpuMs: number | null; machine: { busy: number; total: number } | null } = {
    read: false,
    cpuMs: null,
    machine: null,
  };
  child.proc.stdout!.on('data', (d: Buffer) => {
    if (start.read || !d.toString().includes('MEASURING')) return;
    Object.assign(start, { read: true, cpuMs: cpuMsOf(pid), machine: machineCpu() });
  });
  try {
    const m = await withTimeout(line, (opts.warmup + seconds + 60) * 1000, 'keyed probe');
    const cpu1 = cpuMsOf(pid);
    const machine1 = machineCpu();
    const probe = JSON.parse(m![1]!) as ProbeResult;
    const { cpuMs: cpu0, machine: machine0 } = start;
    // How busy the whole machine was meanwhile (other work on a shared machine shows here).
    probe.machineBusyPct =
      machine0 && machine1 ? Math.round((100 * (machine1.busy - machine0.busy)) / Math.max(1, machine1.total - machine0.total)) : null;
    probe.loadAvg1m = Math.round(os.loadavg()[0]! * 100) / 100;
    return {
      probe,
      cpuUsPerRequest: cpu0 !== null && cpu1 !== null && probe.count ? Math.round(((cpu1 - cpu0) * 1000) / probe.count) : null,
    };
  } finally {
    await child.stop();
  }
}

function probeRow(scenario: string, description: string, measured: { probe: ProbeResult; cpuUsPerRequest: number | null }): Row {
  const p = measured.probe;
  return {
    scenario,
    description,
    connections: 4,
    reqPerSec: p.reqPerSec,
    p50Ms: p.p50Ms,
    p99Ms: p.p99Ms,
    errors: p.errors,
    non2xx: p.errors,
    timeouts: 0,
    totalRequests: p.count,
    bytesPerResponse: 0,
    cpuUsPerRequest: measured.cpuUsPerRequest,
    notes: {
      maxMs: p.maxMs,
      missedSlots: p.missedSlots,
      probeLagP99Ms: p.lagP99Ms,
      machineBusyPct: p.machineBusyPct,
      loadAvg1m: p.loadAvg1m,
    },
  };
}

/** The playground flood (one client, 16 connections) for `seconds`, at the flood's niceness. */
function startFlood(g: Gateway, seconds: number): Promise<Result> {
  const env = { PATH: process.env.PATH, URL: g.urls.playground, CONNECTIONS: '16', DURATION: String(seconds), CLIENT_IP: '203.0.113.7' };
  const { child, line } = startChild(
    'playground flood',
    'nice',
    ['-n', String(floodNice), process.execPath, '--import', 'tsx', 'bench/playground-flood.ts'],
    env,
    /^RESULT (\{.*\})$/,
  );
  return withTimeout(line, (seconds + 60) * 1000, 'playground flood')
    .then((m) => JSON.parse(m![1]!) as Result)
    .finally(() => child.stop());
}

/**
 * Attack 6: one address (127.0.0.3) holds 4,200 silent sockets on the keyed listener, reconnecting;
 * the keyed probe meanwhile. `attack 6/many`: 8,000 from 50 addresses (127.0.0.3 to .52), each under
 * the per-address cap, together over the listener's.
 */
async function connectionFloodRow(g: Gateway, keyedHeaders: Record<string, string>, quiet: Row, many = false): Promise<Row> {
  const [count, addresses] = many ? [8000, 50] : [4200, 1];
  const env = {
    PATH: process.env.PATH,
    URL: g.urls.production,
    COUNT: String(count),
    LOCAL_ADDRESS: '127.0.0.3',
    ADDRESSES: String(addresses),
  };
  const flood = startChild(
    'connection flood',
    'nice',
    ['-n', String(floodNice), process.execPath, '--import', 'tsx', 'bench/socket-flood.ts'],
    env,
    /^READY$/,
  );
  try {
    await withTimeout(flood.line, 60_000, 'connection flood');
    const r = probeRow(
      many ? 'attack 6/many' : 'attack 6',
      many
        ? 'keyed cache hits while 50 addresses hold 8,000 silent sockets on the keyed listener'
        : 'keyed cache hits while one address holds 4,200 silent sockets on the keyed listener',
      await keyedProbe(g, keyedHeaders, Math.min(opts.duration, 5)),
    );
    r.notes = { ...r.notes, p99VsQuiet: quiet.p99Ms ? Math.round((r.p99Ms / quiet.p99Ms) * 100) / 100 : null, target: '<= 2, 0 errors' };
    return r;
  } finally {
    await flood.child.stop();
  }
}

/** The support console the isolation gateway serves: its admin listener's origin and a support token. */
interface ConsoleAccess {
  base: string;
  token: string;
  dataDir: string;
}

/**
 * Console load (bench/console-load.ts at the flood's niceness): `clients` signed-in sessions load
 * `paths` in a loop while the keyed probe runs; the probe's row, with the console pages' figures.
 */
async function consoleLoadRow(
  g: Gateway,
  keyedHeaders: Record<string, string>,
  quiet: Row,
  access: ConsoleAccess,
  load: { scenario: string; description: string; clients: number; paths: string[]; filled: Record<string, unknown> },
): Promise<Row> {
  const seconds = Math.min(opts.duration, 5);
  const env = {
    PATH: process.env.PATH,
    BASE: access.base,
    TOKEN: access.token,
    CLIENTS: String(load.clients),
    PATHS: JSON.stringify(load.paths),
    // Outlasts the probe's start-up, warm-up and run.
    DURATION: String(opts.warmup + seconds + 6),
  };
  const { child, line } = startChild(
    `console load (${load.scenario})`,
    'nice',
    ['-n', String(floodNice), process.execPath, '--import', 'tsx', 'bench/console-load.ts'],
    env,
    /^READY$/,
  );
  let out = '';
  const result = new Promise<Record<string, unknown>>((resolve) =>
    child.proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^RESULT (\{.*\})$/m.exec(out);
      if (m) resolve(JSON.parse(m[1]!) as Record<string, unknown>);
    }),
  );
  try {
    await withTimeout(line, 60_000, 'console load sign-in');
    const r = probeRow(load.scenario, load.description, await keyedProbe(g, keyedHeaders, seconds));
    const pages = await withTimeout(result, (opts.warmup + seconds + 60) * 1000, 'console load');
    r.notes = {
      ...r.notes,
      p99VsQuiet: quiet.p99Ms ? Math.round((r.p99Ms / quiet.p99Ms) * 100) / 100 : null,
      target: '<= 2',
      consolePages: pages,
      filled: load.filled,
    };
    return r;
  } finally {
    await child.stop();
  }
}

/** Audit pages over 100,000 refused sign-ins, then 7-day searches over a near-full playground replay budget. */
async function consoleRows(
  g: Gateway,
  keyedHeaders: Record<string, string>,
  quiet: Row,
  redisUrl: string,
  access: ConsoleAccess,
): Promise<Row[]> {
  const audit = await fillAuditTrail(redisUrl, access.dataDir, 100_000);
  const auditRow = await consoleLoadRow(g, keyedHeaders, quiet, access, {
    scenario: 'console audit',
    description: 'keyed cache hits while 8 support sessions load audit pages over 100,000 refused sign-ins',
    clients: 8,
    paths: AUDIT_PATHS,
    filled: { refusedSignIns: 100_000, fillMs: audit.ms },
  });
  const replay = await fillPlaygroundReplay(redisUrl, access.dataDir);
  const searchRow = await consoleLoadRow(g, keyedHeaders, quiet, access, {
    scenario: 'console search',
    description: 'keyed cache hits while 6 support sessions run 7-day searches over a near-full playground replay budget',
    clients: 6,
    paths: SEARCH_PATHS,
    filled: { playgroundRecords: replay.records, playgroundBytes: replay.bytes, budgetBytes: replay.budget, fillMs: replay.ms },
  });
  return [auditRow, searchRow];
}

async function isolationScenario(
  g: Gateway,
  keyedHeaders: Record<string, string>,
  redisUrl: string,
  access: ConsoleAccess,
): Promise<{ rows: Row[]; memory: MemoryReading }> {
  const rows: Row[] = [];
  await checkOnce(g.urls.production, keyedHeaders);
  const probeNote = `keyed cache hits, ${opts.probeRate} req/s over 4 connections`;
  const quiet = probeRow('keyed quiet', `${probeNote}, nothing else`, await keyedProbe(g, keyedHeaders, opts.duration));
  // Each process's RSS before any attack: what the attack rows' readings grow from.
  quiet.notes = { ...quiet.notes, rssByProcessMb: memoryWithChildren(g.child.proc.pid).rssByProcessMb };
  rows.push(quiet);
  if (isolationRows.has('playground')) rows.push(...(await playgroundFloodRows(g, keyedHeaders, quiet, redisUrl)));
  if (isolationRows.has('attacks')) rows.push(...(await attackRows(g, keyedHeaders)));
  if (isolationRows.has('connections')) rows.push(await connectionFloodRow(g, keyedHeaders, quiet));
  if (isolationRows.has('connections')) rows.push(await connectionFloodRow(g, keyedHeaders, quiet, true));
  if (isolationRows.has('console')) rows.push(...(await consoleRows(g, keyedHeaders, quiet, redisUrl, access)));
  return { rows, memory: await memoryAfterRun(g) };
}

/** The keyed probe during a playground flood of free requests from one client, and the flood's own row. */
async function playgroundFloodRows(g: Gateway, keyedHeaders: Record<string, string>, quiet: Row, redisUrl: string): Promise<Row[]> {
  const pid = g.child.proc.pid;
  // One client (one X-Forwarded-For) flooding the playground with free requests; the probe starts
  // once the flood runs, and the flood outlasts it.
  const playPid = memoryWithChildren(pid).pids.playground;
  // Long enough for the probe's start-up, warm-up and run.
  const flooding = startFlood(g, opts.warmup + opts.duration + 5);
  await new Promise((r) => setTimeout(r, 1000));
  const t0 = performance.now();
  const redisCpu0 = await redisCpuMs(redisUrl);
  const playCpu0 = cpuMsOf(playPid);
  const during = probeRow(
    'keyed+flood',
    `the same during the flood (its generator at nice ${floodNice})`,
    await keyedProbe(g, keyedHeaders, opts.duration),
  );
  const redisCpu1 = await redisCpuMs(redisUrl);
  const playCpu1 = cpuMsOf(playPid);
  const seconds = (performance.now() - t0) / 1000;
  const floodResult = await flooding;
  const flood = row('flood', 'playground: distinct 1,000-token free documents, one client (429s are the rate limit)', 16, {
    result: floodResult,
    cpuUsPerRequest: null,
  });
  during.notes = { ...during.notes, p99VsQuiet: quiet.p99Ms ? Math.round((during.p99Ms / quiet.p99Ms) * 100) / 100 : null, target: '<= 2' };
  // What the flood costs outside the keyed process while the probe runs: CPU ms per second.
  flood.notes = {
    playgroundCpuMsPerS: playCpu0 !== null && playCpu1 !== null ? Math.round((playCpu1 - playCpu0) / seconds) : null,
    redisCpuMsPerS: redisCpu0 !== null && redisCpu1 !== null ? Math.round((redisCpu1 - redisCpu0) / seconds) : null,
    statusCodes: Object.fromEntries(Object.entries(floodResult.statusCodeStats ?? {}).map(([k, v]) => [k, v.count])),
  };
  return [during, flood];
}

/** Attacks 1-5 from many client IPs, one after the other, with each process's RSS after each. */
async function attackRows(g: Gateway, keyedHeaders: Record<string, string>): Promise<Row[]> {
  const pid = g.child.proc.pid;
  const rows: Row[] = [];
  let n = 0;
  const playHeaders = { 'content-type': 'application/json' };
  const attack = async (name: string, description: string, o: Options) => {
    const r = row(name, description, Number(o.connections ?? 1), {
      result: await autocannon({ timeout: 10, ...o }),
      cpuUsPerRequest: null,
    });
    const m = memoryWithChildren(pid);
    r.notes = { rssMb: m.rssMb, rssByProcessMb: m.rssByProcessMb };
    rows.push(r);
  };
  const manyIps = (body: () => string, headers: Record<string, string> = playHeaders) => [
    {
      method: 'POST' as const,
      path: '/graphql',
      headers,
      setupRequest: (req: object) => ({ ...req, headers: { ...headers, 'x-forwarded-for': ipFor(n++) }, body: body() }),
    },
  ];
  await attack('attack 1', 'distinct 1,000-token documents from many IPs', {
    url: g.urls.playground,
    connections: 16,
    duration: opts.duration,
    requests: manyIps(() => spreadDocument(n)),
  });
  await attack('attack 2', 'invalid 1,000-token queries, random comment, many IPs', {
    url: g.urls.playground,
    connections: 16,
    duration: opts.duration,
    requests: manyIps(() => JSON.stringify({ query: `{ ${'nope '.repeat(990)} } #${Math.random()}` })),
  });
  const comment = 'x'.repeat(61 * 1024);
  await attack('attack 3', '300 x { __typename } + 61 KB comment', {
    url: g.urls.playground,
    connections: 8,
    amount: 300,
    requests: manyIps(() => JSON.stringify({ query: `{ __typename }\n#${comment}${n}` })),
  });
  const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
  const accounts = 'query A($address: String!, $zip: String!) { utilityAccounts(address: $address, zipCode: $zip) { utilityId } }';
  await attack('attack 4', 'keyed utilityAccounts, a variable 20,000 levels deep', {
    url: g.urls.production,
    connections: 8,
    amount: 300,
    method: 'POST',
    headers: keyedHeaders,
    body: `{"query":${JSON.stringify(accounts)},"variables":{"address":"1500 MARILLA ST","zip":"75201","x":${deep}}}`,
  });
  // Attack 5: 1,300 idle sockets to the playground, while production is asked.
  const { port } = new URL(g.urls.playground);
  const sockets = await Promise.all(
    Array.from(
      { length: 1300 },
      () =>
        new Promise<net.Socket>((resolve) => {
          const s = net.connect(Number(port), '127.0.0.1');
          s.on('error', () => {});
          s.resume();
          s.once('connect', () => resolve(s));
          s.once('close', () => resolve(s));
        }),
    ),
  );
  await new Promise((r) => setTimeout(r, 500));
  const open = sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;
  const served = await checkOnce(g.urls.production, keyedHeaders);
  const r5 = probeRow(
    'attack 5',
    'keyed cache hits while 1,300 idle sockets are opened to the playground',
    await keyedProbe(g, keyedHeaders, Math.min(opts.duration, 5)),
  );
  const m5 = memoryWithChildren(pid);
  r5.notes = {
    ...r5.notes,
    socketsStillOpenAfter500ms: open,
    productionStatus: served.status,
    rssMb: m5.rssMb,
    rssByProcessMb: m5.rssByProcessMb,
  };
  rows.push(r5);
  for (const s of sockets) s.destroy();
  return rows;
}

interface BenchState {
  tmp: string;
  rows: Row[];
  startup: { ms: number[]; runner: string };
  memory: Record<string, MemoryReading>;
  /** Instructions per request by target (the `instructions` scenario). */
  instructions: Record<string, number>;
}

async function main() {
  const started = new Date();
  console.log(
    `bench: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; ${opts.connections} connections, ${opts.duration} ` +
      `s per scenario (+${opts.warmup} s warm-up)`,
  );
  const state: BenchState = {
    tmp: fs.mkdtempSync(path.join(os.tmpdir(), 'epg-bench-')),
    rows: [],
    startup: { ms: [], runner: opts.runner },
    memory: {},
    instructions: {},
  };
  try {
    await runScenarios(state);
  } finally {
    for (const c of [...children]) await c.stop();
    await benchRedis?.stop();
    fs.rmSync(state.tmp, { recursive: true, force: true });
  }
  const derived = deriveFigures(state.rows);
  printReport(state, derived);
  if (opts.json) writeResults(started, state, derived);
}

/** Every scenario asked for (--only), in order, on the servers setUp started. */
async function runScenarios(state: BenchState): Promise<void> {
  const c = await setUp(state);
  await c.run('baseline', () => baselineScenario(c));
  await c.run('floor', () => floorScenario(c));
  await c.run('floor-uws', () => floorUwsScenario(c));
  await gatewayAScenarios(c);
  await c.run('records', () => recordsScenario(c));
  await c.run('instructions', () => instructionsScenario(c));
  await c.run('miss-storm', () => missStormScenario(c));
  await c.run('tracing', () => tracingScenario(c));
  await uncachedScenarios(c);
  await profileScenario(c);
  await directScenarios(c);
  await c.run('isolation', () => isolationRun(c));
  await c.run('shared', () => sharedScenario(c));
  await c.run('mesh', () => meshScenario(c));
  await workersScenario(c);
  await c.up.child.stop();
}

/** Redis, the reference upstream, a partner key and gateway A (the last of the start-up runs). */
async function setUp(state: BenchState) {
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

type Ctx = Awaited<ReturnType<typeof setUp>>;

/** The `baseline` scenario. */
async function baselineScenario(c: Ctx): Promise<void> {
  const { table } = c;
  const port = await freePort();
  const b = startChild(
    'baseline',
    process.execPath,
    ['--import', 'tsx', 'bench/baseline-server.ts'],
    { PATH: process.env.PATH, PORT: String(port) },
    /READY/,
  );
  await withTimeout(b.line, 20_000, 'baseline server');
  table(
    row(
      'baseline',
      'bare node:http, fixed 2 KB JSON',
      opts.connections,
      await load({ url: `http://127.0.0.1:${port}/`, connections: opts.connections, duration: opts.duration }, b.child.proc.pid),
    ),
  );
  await b.child.stop();
}

/**
 * A bare server doing the floor's work (the same request and answer shape as `cached`; the body
 * size measured on the gateway when it runs), loaded as one row.
 */
async function floorRow(c: Ctx, scenario: string, script: string, env: Record<string, string>, description: string): Promise<void> {
  const { keyedHeaders, table, gw } = c;
  const size = gw ? (await checkOnce(gw.urls.production, keyedHeaders)).bytes : 3324;
  const port = await freePort();
  const b = startChild(
    scenario,
    process.execPath,
    ['--import', 'tsx', script],
    { PATH: process.env.PATH, PORT: String(port), BODY_BYTES: String(size), ...env },
    /READY/,
  );
  await withTimeout(b.line, 20_000, `${scenario} server`);
  const target = { url: `http://127.0.0.1:${port}/graphql`, connections: opts.connections, duration: opts.duration };
  const measured = await load({ ...target, method: 'POST', headers: keyedHeaders, body: BODY }, b.child.proc.pid);
  table(row(scenario, `${description}, ${size} B body`, opts.connections, measured));
  await b.child.stop();
}

/** The `floor` scenario. */
const floorScenario = (c: Ctx) =>
  floorRow(c, 'floor', 'bench/baseline-server.ts', { MODE: 'floor' }, 'bare node:http: parse the same POST, same headers');

/** The `floor-uws` scenario. */
const floorUwsScenario = (c: Ctx) => floorRow(c, 'floor/uws', 'bench/floor-uws-server.ts', {}, "the floor's work on uWebSockets.js");

async function gatewayAScenarios(c: Ctx): Promise<void> {
  const { memory, keyedHeaders, table, run, gw } = c;
  if (gw) {
    const g = gw;
    await run('cached', async () => {
      const first = await checkOnce(g.urls.production, keyedHeaders);
      const second = await checkOnce(g.urls.production, keyedHeaders);
      if (first.status !== 200 || second.cache !== 'HIT')
        throw new Error(`cached scenario: expected 200 and x-cache HIT, got ${first.status}/${second.cache}`);
      const { r, delta } = await keyedLoadRow(g, 'cached', `keyed residentialPlans ${opts.zip}, cache hits`, keyedHeaders);
      const hits = delta('gateway_cache_hits_total', { environment: 'production' });
      r.notes = { hitShare: r.totalRequests ? Math.round((hits / r.totalRequests) * 1000) / 1000 : null };
      table(r);
    });
    await run('profile', async () => {
      // Cached: the plain list and the profile list, back to back on the same gateway.
      for (const [name, body, what] of [
        ['profile/cached-plain', BODY, 'cache hits, plain list'],
        ['profile/cached', PROFILE_BODY, 'cache hits, 12-month usageProfile'],
      ] as const) {
        await checkOnce(g.urls.production, keyedHeaders, body);
        const hit = await checkOnce(g.urls.production, keyedHeaders, body);
        if (hit.status !== 200 || hit.cache !== 'HIT')
          throw new Error(`${name}: expected 200 and x-cache HIT, got ${hit.status}/${hit.cache}`);
        const load1 = { url: g.urls.production, connections: opts.connections, duration: opts.duration, method: 'POST' as const };
        table(
          row(
            name,
            `keyed residentialPlans ${opts.zip}, ${what}`,
            opts.connections,
            await load({ ...load1, headers: keyedHeaders, body }, g.child.proc.pid),
          ),
        );
      }
    });
    await run('playground', async () => {
      const ips = ipCounter();
      const counted = async () => (await scrape(g.urls.metrics))('gateway_playground_calls_total', { result: 'counted' });
      let c0 = 0;
      const r = row(
        'playground',
        'playground residentialPlans from many IPs (allowance in Redis)',
        opts.connections,
        await load(playgroundFromManyIps(g.urls.playground, opts.connections, ips.next), g.child.proc.pid, async () => {
          c0 = await counted();
        }),
      );
      r.notes = { clientIps: Math.min(ips.count, 65536 * 250), countedCalls: (await counted()) - c0 };
      table(r);
    });
    memory.gateway = await memoryAfterRun(g);
    await g.child.stop();
  }
}

/** The `records` scenario. */
async function recordsScenario(c: Ctx): Promise<void> {
  const { gatewayEnv, keyedHeaders, table } = c;
  // What a hit's request log line and replay record cost, and cached against the floor, read
  // off processes loaded in turn: the floor server and three gateways (as `cached`, without the
  // request log, without replay) stay up, and each round loads each of them once, starting one
  // further along every round. Every row is the median of its rounds. One load after another
  // on the same machine moves by ±20%; side by side in rounds the comparison holds.
  const targets: { name: string; url: string; pid: number | undefined; stop(): Promise<void> }[] = [];
  try {
    const gateways: [string, NodeJS.ProcessEnv, string][] = [
      ['cached', {}, opts.gatewayRoot],
      ['cached/no-log', { LOG_LEVEL: 'warn' }, opts.gatewayRoot],
      ['cached/no-replay', { REPLAY_ENABLED: 'false' }, opts.gatewayRoot],
    ];
    if (opts.compareRoot) gateways.push([`cached (${path.basename(opts.compareRoot)})`, {}, opts.compareRoot]);
    for (const [name, extra, root] of gateways) {
      const g = await startGatewayChild(`gateway (records: ${name})`, gatewayEnv, extra, [], root);
      targets.push({ name, url: g.urls.production, pid: g.child.proc.pid, stop: () => g.child.stop() });
      await checkOnce(g.urls.production, keyedHeaders);
      const check = await checkOnce(g.urls.production, keyedHeaders);
      if (check.status !== 200 || check.cache !== 'HIT')
        throw new Error(`records scenario (${name}): expected 200 and x-cache HIT, got ${check.status}/${check.cache}`);
    }
    const size = (await checkOnce(targets[0]!.url, keyedHeaders)).bytes;
    const floorPort = await freePort();
    const floor = startChild(
      'records: floor',
      process.execPath,
      ['--import', 'tsx', 'bench/baseline-server.ts'],
      { PATH: process.env.PATH, PORT: String(floorPort), MODE: 'floor', BODY_BYTES: String(size) },
      /READY/,
    );
    targets.unshift({
      name: 'floor',
      url: `http://127.0.0.1:${floorPort}/graphql`,
      pid: floor.child.proc.pid,
      stop: () => floor.child.stop(),
    });
    await withTimeout(floor.line, 20_000, 'floor server');
    const samples = new Map<string, Row[]>(targets.map((t) => [t.name, []]));
    const redisUrl = String(gatewayEnv.REDIS_URL);
    // Round 0 is not counted: a process's first loads run slower (code not yet optimized, heap
    // still growing) than a few seconds of warm-up show.
    for (let round = 0; round <= opts.rounds; round++) {
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(round + i) % targets.length]!;
        // Redis shares the machine's cores: its CPU for a target's replay writes is noted too.
        let redis0: number | null = null;
        const r = row(
          t.name,
          '',
          opts.connections,
          await load(
            { url: t.url, connections: opts.connections, duration: opts.duration, method: 'POST', headers: keyedHeaders, body: BODY },
            t.pid,
            async () => {
              redis0 = await redisCpuMs(redisUrl);
            },
          ),
        );
        const redis1 = await redisCpuMs(redisUrl);
        if (redis0 !== null && redis1 !== null && r.totalRequests && r.threadCpuUs)
          r.threadCpuUs.redis = Math.round(((redis1 - redis0) * 10000) / r.totalRequests) / 10;
        if (round > 0) samples.get(t.name)!.push(r);
      }
    }
    for (const t of targets)
      table(medianRow(`records: ${t.name}`, `${t.name}, median of ${opts.rounds} interleaved rounds`, samples.get(t.name)!));
  } finally {
    for (const t of targets) await t.stop();
  }
}

/** The `instructions` scenario. */
async function instructionsScenario(c: Ctx): Promise<void> {
  const { tmp, instructions, gatewayEnv, keyedHeaders } = c;
  // Instructions per request, counted by valgrind's callgrind: the same figure for the same code
  // whatever else the machine is doing (time and CPU figures move by ±20% on a shared machine).
  // The floor server and the gateways as in `records`, one connection, requests one after the
  // other: --instructions-warmup of them (not counted: JIT, caches), then --instructions-requests
  // counted. User-space instructions only: the kernel's share (socket writes) is not in it.
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is not installed (apt-get install valgrind)');
  const dir = path.join(tmp, 'callgrind');
  fs.mkdirSync(dir, { recursive: true });
  const wrap = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${dir}/cg.%p`, '--smc-check=all-non-file', '--separate-threads=yes'];
  // Per thread: the main thread and libuv's pool (deflate, file writes) are the request's work;
  // V8's platform threads (optimizing compiles, concurrent GC) are reported apart: under valgrind
  // they run late (threads are serialized), so optimized code arrives later than it would, and
  // the counts are higher than a natively warmed-up process would execute, for every target alike.
  const threadTotals = (pid: number) => {
    const own = { main: 0, pool: 0, v8: 0 };
    for (const f of fs.readdirSync(dir).filter((n) => n.startsWith(`cg.${pid}.`))) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      const total = Number(/^(?:totals|summary):\s+(\d+)/m.exec(text)?.[1] ?? 0);
      const thread = Number(/^thread:\s+(\d+)/m.exec(text)?.[1] ?? 1);
      if (thread === 1) own.main += total;
      else if (/PlatformWorkerThread/.test(text)) own.v8 += total;
      else own.pool += total;
    }
    return own;
  };
  const count = async (name: string, url: string, pid: number, headers: Record<string, string>) => {
    await sequential(url, headers, opts.instructionsWarmup);
    if (spawnSync('callgrind_control', ['-z', String(pid)]).status !== 0) throw new Error(`callgrind_control -z ${pid} failed`);
    for (const f of fs.readdirSync(dir).filter((n) => n.startsWith(`cg.${pid}.`))) fs.rmSync(path.join(dir, f));
    const bad = await sequential(url, headers, opts.instructionsRequests);
    if (spawnSync('callgrind_control', ['-d', String(pid)]).status !== 0) throw new Error(`callgrind_control -d ${pid} failed`);
    if (bad) throw new Error(`instructions (${name}): ${bad} of ${opts.instructionsRequests} answers were not 200`);
    const t = threadTotals(pid);
    if (!t.main) throw new Error(`no callgrind dump for ${name}`);
    const per = (n: number) => Math.round(n / opts.instructionsRequests);
    instructions[name] = per(t.main + t.pool);
    instructions[`${name} (V8 background threads)`] = per(t.v8);
  };
  let answerBytes = 0;
  for (const [name, extra] of [
    ['cached', {}],
    ['cached/no-log', { LOG_LEVEL: 'warn' }],
    ['cached/no-replay', { REPLAY_ENABLED: 'false' }],
  ] as const) {
    // A request takes ~10 ms under valgrind: batches are written once they hold 500 records, as
    // under load, rather than every 50 ms of valgrind's time.
    const g = await startGatewayChild(`gateway (instructions: ${name})`, gatewayEnv, { ...extra, REPLAY_FLUSH_MS: '60000' }, wrap);
    try {
      answerBytes = (await checkOnce(g.urls.production, keyedHeaders)).bytes;
      await count(name, g.urls.production, g.child.proc.pid!, keyedHeaders);
    } finally {
      await g.child.stop();
    }
  }
  // The floor answers as many bytes as the gateways did.
  const floorPort = await freePort();
  const floor = startChild(
    'instructions: floor',
    'valgrind',
    [...wrap.slice(1), process.execPath, '--import', 'tsx', 'bench/baseline-server.ts'],
    { PATH: process.env.PATH, PORT: String(floorPort), MODE: 'floor', BODY_BYTES: String(answerBytes) },
    /READY/,
  );
  try {
    await withTimeout(floor.line, 300_000, 'floor server under valgrind');
    await count('floor', `http://127.0.0.1:${floorPort}/graphql`, floor.child.proc.pid!, {});
  } finally {
    await floor.child.stop();
  }
}

/** The `miss-storm` scenario. */
async function missStormScenario(c: Ctx): Promise<void> {
  const { tmp, gatewayEnv, keyedHeaders, table } = c;
  // The plans entry lives one second: every second the 50 connections miss together.
  const cacheConfig = path.join(tmp, 'cache-1s.yaml');
  fs.writeFileSync(cacheConfig, 'generation: miss-storm\nttl:\n  residentialPlans: 1s\n');
  for (const [name, coalesce] of [
    ['miss-storm', 'true'],
    ['miss-storm/off', 'false'],
  ] as const) {
    const g = await startGatewayChild(`gateway (${name})`, gatewayEnv, { CACHE_CONFIG: cacheConfig, CACHE_COALESCE: coalesce });
    await checkOnce(g.urls.production, keyedHeaders);
    const { r, delta } = await keyedLoadRow(
      g,
      name,
      `keyed residentialPlans ${opts.zip}, entry expiring every second, CACHE_COALESCE=${coalesce}`,
      keyedHeaders,
    );
    const per = (n: number) => (r.totalRequests ? Math.round((n / r.totalRequests) * 10000) / 10000 : null);
    r.notes = {
      feedCallsPerRequest: per(delta('gateway_upstream_calls_total')),
      executionsPerRequest: per(delta('gateway_cache_misses_total', { environment: 'production' })),
      coalescedShare: per(delta('gateway_cache_coalesced_total', { environment: 'production' })),
    };
    table(r);
    await g.child.stop();
  }
}

/** The `tracing` scenario. */
async function tracingScenario(c: Ctx): Promise<void> {
  const { gatewayEnv, keyedHeaders, table } = c;
  // The keyed request cached and uncached with tracing off, at 1% (parent-based ratio sampler)
  // and at 100%, spans posted to an OTLP/HTTP receiver in this process (counted, not parsed).
  // As in `records`: the gateways of one kind stay up and are loaded in turn for --rounds
  // rounds after an uncounted one, each row the median of its rounds (one load after another
  // moves by ±20% on a shared machine; side by side in rounds the comparison holds).
  const receiver = await startOtlpReceiver({ keep: false });
  try {
    for (const kind of ['cached', 'uncached'] as const) {
      const targets: { name: string; ratio: string | null; url: string; pid: number | undefined; stop(): Promise<void> }[] = [];
      try {
        for (const level of opts.tracing) {
          const ratio = TRACING_LEVELS[level]!;
          const g = await startGatewayChild(`gateway (tracing ${level}, ${kind})`, gatewayEnv, {
            ...(ratio
              ? {
                  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
                  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
                  OTEL_TRACES_SAMPLER_ARG: ratio,
                }
              : {}),
            ...(kind === 'cached' ? {} : { CACHE_ENABLED: 'false' }),
          });
          targets.push({
            name: `${kind}/trace-${level}`,
            ratio,
            url: g.urls.production,
            pid: g.child.proc.pid,
            stop: () => g.child.stop(),
          });
          await checkOnce(g.urls.production, keyedHeaders);
        }
        const samples = new Map<string, Row[]>(targets.map((t) => [t.name, []]));
        for (let round = 0; round <= opts.rounds; round++) {
          for (let i = 0; i < targets.length; i++) {
            const t = targets[(round + i) % targets.length]!;
            const r = row(
              t.name,
              '',
              opts.connections,
              await load(
                {
                  url: t.url,
                  connections: opts.connections,
                  duration: opts.duration,
                  method: 'POST',
                  headers: keyedHeaders,
                  body: BODY,
                },
                t.pid,
              ),
            );
            if (round > 0) samples.get(t.name)!.push(r);
          }
        }
        for (const t of targets) {
          const tracing = t.ratio ? `sampled at ${t.ratio}` : 'off';
          table(medianRow(t.name, `${kind}, tracing ${tracing}, median of ${opts.rounds} interleaved rounds`, samples.get(t.name)!));
        }
      } finally {
        for (const t of targets) await t.stop();
      }
    }
    console.log(`  tracing: ${receiver.exports} OTLP exports received, ${Math.round(receiver.bytes / 1024)} KB`);
  } finally {
    await receiver.close();
  }
}

async function uncachedScenarios(c: Ctx): Promise<void> {
  const { memory, up, gatewayEnv, keyedHeaders, table, run } = c;
  if (only.has('uncached') || only.has('overhead')) {
    const b = await startGatewayChild('gateway (cache off)', gatewayEnv, { CACHE_ENABLED: 'false' });
    const check = await checkOnce(b.urls.production, keyedHeaders);
    if (check.status !== 200 || check.cache !== 'BYPASS')
      throw new Error(`uncached scenario: expected 200 BYPASS, got ${check.status}/${check.cache}`);
    const measure = async (name: string, description: string, connections: number) => {
      let before = await scrape(b.urls.metrics);
      let upCpu0: number | null = null;
      const r = row(
        name,
        description,
        connections,
        await load(
          { url: b.urls.production, connections, duration: opts.duration, method: 'POST', headers: keyedHeaders, body: BODY },
          b.child.proc.pid,
          async () => {
            before = await scrape(b.urls.metrics);
            upCpu0 = cpuMsOf(up.child.proc.pid);
          },
        ),
      );
      const upCpu1 = cpuMsOf(up.child.proc.pid);
      const after = await scrape(b.urls.metrics);
      const attempts = after('gateway_upstream_attempts_total') - before('gateway_upstream_attempts_total');
      const calls = after('gateway_upstream_calls_total') - before('gateway_upstream_calls_total');
      r.notes = {
        upstreamCallsPerRequest: r.totalRequests ? Math.round((calls / r.totalRequests) * 100) / 100 : null,
        upstreamRequestsPerRequest: r.totalRequests ? Math.round((attempts / r.totalRequests) * 100) / 100 : null,
        upstreamCpuUsPerRequest:
          upCpu0 !== null && upCpu1 !== null && r.totalRequests ? Math.round(((upCpu1 - upCpu0) * 1000) / r.totalRequests) : null,
      };
      table(r);
    };
    await run('uncached', () => measure('uncached', `keyed residentialPlans ${opts.zip}, CACHE_ENABLED=false`, opts.connections));
    await run('overhead', () => measure('uncached@1', 'the same, 1 connection', 1));
    memory.gatewayCacheOff = await memoryAfterRun(b);
    await b.child.stop();
  }
}

async function profileScenario(c: Ctx): Promise<void> {
  const { gatewayEnv, keyedHeaders, table } = c;
  if (only.has('profile')) {
    const b = await startGatewayChild('gateway (cache off, profile)', gatewayEnv, { CACHE_ENABLED: 'false' });
    try {
      for (const [name, body, what] of [
        ['profile/plain', BODY, 'plain list'],
        ['profile/uncached', PROFILE_BODY, '12-month usageProfile'],
      ] as const) {
        const check = await checkOnce(b.urls.production, keyedHeaders, body);
        if (check.status !== 200 || check.cache !== 'BYPASS')
          throw new Error(`${name}: expected 200 BYPASS, got ${check.status}/${check.cache}`);
        const load1 = { url: b.urls.production, connections: opts.connections, duration: opts.duration, method: 'POST' as const };
        const what1 = `keyed residentialPlans ${opts.zip}, CACHE_ENABLED=false, ${what}`;
        table(row(name, what1, opts.connections, await load({ ...load1, headers: keyedHeaders, body }, b.child.proc.pid)));
      }
    } finally {
      await b.child.stop();
    }
  }
}

async function directScenarios(c: Ctx): Promise<void> {
  const { upstreamUrl, table, run } = c;
  if (only.has('direct') || only.has('overhead')) {
    const port = await freePort();
    const d = startChild(
      'direct',
      process.execPath,
      ['--import', 'tsx', 'bench/direct-proxy.ts'],
      { PATH: process.env.PATH, PORT: String(port), UPSTREAM_URL: upstreamUrl, ZIP: opts.zip },
      /READY/,
    );
    await withTimeout(d.line, 20_000, 'direct proxy');
    const url = `http://127.0.0.1:${port}/`;
    await run(
      'direct',
      async () =>
        void table(
          row(
            'direct',
            'the same feed calls without the gateway',
            opts.connections,
            await load({ url, connections: opts.connections, duration: opts.duration }, d.child.proc.pid),
          ),
        ),
    );
    await run(
      'overhead',
      async () =>
        void table(
          row('direct@1', 'the same, 1 connection', 1, await load({ url, connections: 1, duration: opts.duration }, d.child.proc.pid)),
        ),
    );
    await d.child.stop();
  }
}

/** The `isolation` scenario. */
async function isolationRun(c: Ctx): Promise<void> {
  const { memory, redis, gatewayEnv, keyedHeaders, table, keysFile } = c;
  // The support console on the admin listener, with a support token in the keys file before start.
  const adminPort = await freePort();
  const supportToken = (await issueKey(keysFile, { environment: 'support', partnerCode: 'BENCH' })).key;
  // As `npm start` runs it: the playground in its own, lower-priority process.
  const g = await startGatewayChild('gateway (isolation)', gatewayEnv, {
    ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
    ADMIN_PORT: String(adminPort),
    PLAYGROUND_ALLOWANCE: '10',
    PLAYGROUND_MAX_CONNECTIONS_PER_IP: '32',
    PLAYGROUND_PROCESS: 'on',
    PLAYGROUND_OPS_PORT: String(await freePort()),
    // Attack 6 is a gateway exposed directly, whose keyed listeners cap sockets per address by
    // default; the bench's TRUST_PROXY (for the playground's X-Forwarded-For) would turn that off.
    KEYED_MAX_CONNECTIONS_PER_IP: '512',
    ...opts.env,
  });
  await waitFor200(g.urls.playground.replace(/\/graphql$/, '/healthz'), 60_000, g.child);
  try {
    const access = { base: `http://127.0.0.1:${adminPort}`, token: supportToken, dataDir: String(gatewayEnv.DATA_DIR) };
    const result = await isolationScenario(g, keyedHeaders, redis.url, access);
    for (const r of result.rows) table(r);
    memory.gatewayIsolation = result.memory;
  } finally {
    await g.child.stop();
  }
}

/** The `shared` scenario. */
async function sharedScenario(c: Ctx): Promise<void> {
  const { redis, gatewayEnv, table } = c;
  for (const r of await sharedRedisScenario(gatewayEnv, redis.url)) table(r);
}

/** The `mesh` scenario. */
async function meshScenario(c: Ctx): Promise<void> {
  const { tmp, up, upstreamUrl, table } = c;
  const description = `stock mesh start, raw feeds for ${opts.zip} (territories, Voltify, Brightgrid residential)`;
  try {
    table(await meshStartScenario(description, upstreamUrl, up.child, tmp));
  } catch (err) {
    console.log(`  mesh: FAILED: ${(err as Error).message.split('\n').slice(0, 12).join('\n    ')}`);
    table(errorRow('mesh', description, err));
  }
}

async function workersScenario(c: Ctx): Promise<void> {
  const { redis, gatewayEnv, keyedHeaders, table } = c;
  if (workerList) {
    await runWorkerScaling<Row, Options>({
      list: workerList,
      scenarios: scalingScenarios,
      connections: opts.connections,
      duration: opts.duration,
      startGateway: async (name, extra) => {
        const g = await startGatewayChild(name, gatewayEnv, extra);
        return { pid: g.child.proc.pid, production: g.urls.production, playground: g.urls.playground, stop: () => g.child.stop() };
      },
      load: async (o, cpuOf, before) => {
        const measured = await load(o, undefined, before, cpuOf);
        return {
          totalRequests: measured.result.requests.total,
          row: (scenario, description) => row(scenario, description, opts.connections, measured),
        };
      },
      keyedRequest: (url) => ({
        url,
        connections: opts.connections,
        duration: opts.duration,
        method: 'POST',
        headers: keyedHeaders,
        body: BODY,
      }),
      playgroundRequest: (url) => playgroundFromManyIps(url, opts.connections, ipCounter().next),
      redisCpuMs: () => redisCpuMs(redis.url),
      cpuMsOf,
      table,
    });
  }
}

/** Ratios and differences between rows that the report and the JSON carry. */
function deriveFigures(rows: Row[]): Record<string, number | null> {
  const base = rows.find((r) => r.scenario === 'baseline');
  for (const r of rows) if (base?.reqPerSec && !r.error) r.ratio = Math.round((r.reqPerSec / base.reqPerSec) * 1000) / 1000;
  const by = (s: string) => rows.find((r) => r.scenario === s && !r.error);
  const derived: Record<string, number | null> = {};
  const overheadAt = (g?: Row, d?: Row) => (g && d ? Math.round((g.p50Ms - d.p50Ms) * 100) / 100 : null);
  derived.overheadP50Ms = overheadAt(by('uncached'), by('direct'));
  derived.overheadP50MsOneConnection = overheadAt(by('uncached@1'), by('direct@1'));
  derived.missStormVsUncached =
    by('miss-storm') && by('uncached') ? Math.round((by('miss-storm')!.reqPerSec / by('uncached')!.reqPerSec) * 100) / 100 : null;
  derived.cachedVsFloor = by('cached') && by('floor') ? Math.round((by('cached')!.reqPerSec / by('floor')!.reqPerSec) * 1000) / 1000 : null;
  derived.cachedVsFloorInRounds =
    by('records: cached') && by('records: floor')
      ? Math.round((by('records: cached')!.reqPerSec / by('records: floor')!.reqPerSec) * 1000) / 1000
      : null;
  const cpuOf = (s: string) => by(s)?.cpuUsPerRequest ?? null;
  const added = (without: string) =>
    cpuOf('records: cached') !== null && cpuOf(without) !== null ? cpuOf('records: cached')! - cpuOf(without)! : null;
  derived.logCpuUsPerHit = added('records: cached/no-log');
  derived.replayCpuUsPerHit = added('records: cached/no-replay');
  derived.uncachedVsDirect =
    by('uncached') && by('direct') ? Math.round((by('uncached')!.reqPerSec / by('direct')!.reqPerSec) * 1000) / 1000 : null;
  // Target: uncached gateway throughput >= 2x stock `mesh start` over the same feeds.
  derived.uncachedVsMeshStart =
    by('uncached') && by('mesh')?.reqPerSec ? Math.round((by('uncached')!.reqPerSec / by('mesh')!.reqPerSec) * 1000) / 1000 : null;

  // Targets: a profile query uncached within 1.5x of the plain one (req/s), cached at the same speed.
  const speedRatio = (a: string, b: string) => (by(a) && by(b) ? Math.round((by(b)!.reqPerSec / by(a)!.reqPerSec) * 1000) / 1000 : null);
  derived.profileUncachedSlowdown = speedRatio('profile/uncached', 'profile/plain');
  derived.profileCachedSlowdown = speedRatio('profile/cached', 'profile/cached-plain');
  return derived;
}

/** The table and the derived figures, on stdout. */
function printReport(state: BenchState, derived: Record<string, number | null>): void {
  printTable(state.rows);
  printDerived(state, derived);
}

/** One line a row, then each row's notes and failures. */
function printTable(rows: Row[]): void {
  const header = ['scenario', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'bytes', 'cpu µs/req', 'x baseline'];
  const lines = rows.map((r) =>
    r.error
      ? [r.scenario, String(r.connections), 'FAILED', '-', '-', '-', '-', '-', '-']
      : [
          r.scenario,
          String(r.connections),
          String(r.reqPerSec),
          r.p50Ms.toFixed(2),
          r.p99Ms.toFixed(2),
          String(r.errors),
          String(r.bytesPerResponse),
          r.cpuUsPerRequest === null ? '-' : String(r.cpuUsPerRequest),
          r.ratio === undefined ? '-' : r.ratio.toFixed(3),
        ],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${lines.map(fmt).join('\n')}`);
  for (const r of rows)
    if (r.notes)
      console.log(
        `  ${r.scenario}: ${Object.entries(r.notes)
          .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : v}`)
          .join(', ')}`,
      );
  for (const r of rows) {
    if (!r.error) continue;
    const l = r.error
      .split('\n')
      .map((x) => x.trim())
      .filter(Boolean);
    console.log(`  ${r.scenario}: FAILED: ${l[0]}${l.length > 1 ? ` … ${l[l.length - 1]}` : ''}`);
  }
}

/** The ratios against their targets, instruction counts, start-up times and memory. */
function printDerived(state: BenchState, derived: Record<string, number | null>): void {
  const { startup, memory, instructions } = state;
  if (derived.overheadP50Ms != null)
    console.log(
      `  gateway overhead at p50 (${opts.connections} conns, uncached - direct): ${derived.overheadP50Ms} ms; req/s uncached/direct: ` +
        `${derived.uncachedVsDirect}`,
    );
  if (derived.overheadP50MsOneConnection != null)
    console.log(`  gateway overhead at p50 (1 connection): ${derived.overheadP50MsOneConnection} ms`);
  if (derived.uncachedVsMeshStart != null)
    console.log(`  uncached gateway / mesh start req/s: ${derived.uncachedVsMeshStart.toFixed(2)} (target >= 2)`);
  if (derived.cachedVsFloor != null) console.log(`  cached / floor req/s: ${derived.cachedVsFloor} (one load each)`);
  if (derived.cachedVsFloorInRounds != null)
    console.log(`  cached / floor req/s, medians of ${opts.rounds} interleaved rounds: ${derived.cachedVsFloorInRounds} (target >= 0.80)`);
  if (derived.logCpuUsPerHit != null || derived.replayCpuUsPerHit != null)
    console.log(
      `  CPU a hit spends on its request log line: ${derived.logCpuUsPerHit ?? '-'} µs; on its replay record: ${derived.replayCpuUsPerHit ?? '-'} µs`,
    );
  if (derived.missStormVsUncached != null) console.log(`  miss-storm / uncached req/s: ${derived.missStormVsUncached} (target >= 3)`);
  if (derived.profileUncachedSlowdown != null) {
    console.log(
      `  plain / profile req/s: uncached ${derived.profileUncachedSlowdown} (target <= 1.5), cached ${derived.profileCachedSlowdown ?? '-'}`,
    );
  }
  if (instructions.floor) {
    const of = (n: string) =>
      instructions[n]
        ? `${instructions[n]!.toLocaleString('en-US')} (${(instructions.floor! / instructions[n]!).toFixed(2)}× the floor's rate)`
        : '-';
    console.log(
      `  instructions per request (callgrind, 1 connection; main thread and libuv's pool): floor ` +
        `${instructions.floor.toLocaleString('en-US')}; cached ${of('cached')}; no log line ${of('cached/no-log')}; no replay ${of('cached/no-replay')}`,
    );
    if (instructions.cached && instructions['cached/no-log'] && instructions['cached/no-replay'])
      console.log(
        `  instructions a hit spends on its request log line: ` +
          `${(instructions.cached - instructions['cached/no-log']).toLocaleString('en-US')}; on its replay record: ` +
          `${(instructions.cached - instructions['cached/no-replay']).toLocaleString('en-US')}`,
      );
  }
  if (startup.ms.length)
    console.log(`  start-up to /healthz 200 (${opts.runner}): ${startup.ms.join(', ')} ms (max ${Math.max(...startup.ms)})`);
  for (const [k, m] of Object.entries(memory)) {
    const settled = m.settleSeconds ? `; ${m.settledRssMb} MB after ${m.settleSeconds} s idle` : '';
    console.log(
      `  ${k} RSS after its scenarios: ${m.rssMb} MB (peak ${m.peakRssMb} MB; V8 heap used ${m.heapUsedMb ?? '?'} of ${m.heapTotalMb ?? '?'} ` +
        `MB, external ${m.externalMb ?? '?'} MB${settled})`,
    );
  }
}

/** bench/results/<start time>.json: the settings, every row and the derived figures. */
function writeResults(started: Date, state: BenchState, derived: Record<string, number | null>): void {
  const { rows, startup, memory, instructions } = state;
  const dir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  const doc = {
    startedAt: started.toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      memoryMb: Math.round(os.totalmem() / 1048576),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    settings: {
      ...opts,
      only: [...only],
      query: QUERY,
      variables: { zipCode: opts.zip },
      ...(only.has('mesh') ? { meshQuery: MESH_QUERY, meshVariables: { zip: opts.zip } } : {}),
    },
    scenarios: rows,
    derived,
    startup,
    memory,
    instructions,
  };
  fs.writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`\n  results: ${path.relative(ROOT, file)}`);
}

// Stopped from outside (Ctrl-C, a CI timeout's SIGTERM, a closed terminal): nothing it started
// may outlive it (the servers and Redis would go on holding ports and CPU).
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  process.on(signal, () => {
    for (const c of children) c.proc.kill('SIGKILL');
    void benchRedis?.stop();
    process.exit(code);
  });
}

main().catch(async (err) => {
  console.error(`bench failed: ${(err as Error).message}`);
  for (const c of [...children]) c.proc.kill('SIGKILL');
  await benchRedis?.stop();
  process.exit(1);
});
