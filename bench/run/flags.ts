import fs from 'node:fs';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseWorkerList, type ScalingScenario } from '../workers.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// The flags of `npm run bench` (listed at the top of bench/run.ts and in docs/benchmark.md), read
// with node:util's parseArgs as the CLIs do; every value is text, checked below.

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

function readFlags(argv: string[]): Record<string, string | undefined> {
  const options = Object.fromEntries([
    ...FLAGS.map((k) => [k, { type: k === 'no-json' ? ('boolean' as const) : ('string' as const) }]),
    ['help', { type: 'boolean' as const, short: 'h' }],
  ]);
  // A value that starts with '-' (`--settle -1`) is the flag's value, for the checks below to refuse.
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (a !== '--no-json' && FLAGS.includes(a.slice(2)) && next?.startsWith('-')) {
      args.push(`${a}=${next}`);
      i++;
    } else args.push(a);
  }
  try {
    const { values } = parseArgs({ args, options, strict: true, allowPositionals: true });
    return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === true ? 'true' : typeof v === 'string' ? v : undefined]));
  } catch (err) {
    const unknown = args.find(
      (a) => a.startsWith('-') && !FLAGS.includes(a.replace(/^--?/, '').split('=')[0]!) && a !== '-h' && a !== '--help',
    );
    const what = unknown !== undefined ? `unknown flag ${unknown}` : (err as Error).message.split('\n')[0];
    return usage(`${what} (known: ${FLAGS.map((x) => `--${x}`).join(', ')})`);
  }
}

const f = readFlags(process.argv.slice(2));

const num = (name: string, fallback: number) => {
  const v = f[name] === undefined ? fallback : Number(f[name]);
  if (!Number.isFinite(v) || v <= 0) usage(`--${name} must be a positive number, got "${f[name]}"`);
  return v;
};

export const opts = {
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

/** --rows playground,attacks,connections,console,partners: the isolation rows run after the quiet one (all by default). */
const ISOLATION_ROWS = ['playground', 'attacks', 'connections', 'console', 'partners'];

export const isolationRows = new Set((f.rows ?? ISOLATION_ROWS.join(',')).split(',').map((s) => s.trim()));

for (const r of isolationRows) if (!ISOLATION_ROWS.includes(r)) usage(`--rows takes ${ISOLATION_ROWS.join(', ')}, got "${r}"`);

export const TRACING_LEVELS: Record<string, string | null> = { off: null, '1%': '0.01', '100%': '1' };

for (const level of opts.tracing)
  if (!(level in TRACING_LEVELS)) usage(`--tracing takes off, 1% and 100% separated by commas, got "${level}"`);

/** --flood-nice N: niceness of the isolation flood's load generator (default: the playground process's). */
export const floodNice = Math.max(0, Math.min(19, Math.round(Number(f['flood-nice'] ?? opts.env.PLAYGROUND_NICE ?? 10)) || 0));

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
  'peers',
  'instructions',
  'tracing',
] as const;

export type ScenarioName = (typeof ALL)[number];

// `instructions` runs under valgrind for minutes: only when asked for.
if (f.help) {
  console.log(
    `npm run bench -- [flags]\n\nscenarios (--only, comma-separated; instructions only when named): ${ALL.join(', ')}\n` +
      `flags: ${FLAGS.map((x) => `--${x}`).join(', ')}\nEach is described at the top of bench/run.ts and in docs/benchmark.md.`,
  );
  process.exit(0);
}
export const only = new Set<ScenarioName>((f.only ? f.only.split(',') : ALL.filter((s) => s !== 'instructions')) as ScenarioName[]);

for (const s of only) if (!ALL.includes(s)) usage(`--only: unknown scenario "${s}" (${ALL.join(', ')})`);

/** --workers 1,2,4: the gateway as a cluster of each size (bench/workers.ts), instead of the scenarios. */
const parsedWorkers = f.workers ? parseWorkerList(f.workers) : null;

if (typeof parsedWorkers === 'string') usage(parsedWorkers);

export const workerList: number[] | null = parsedWorkers;

const SCALING: ScalingScenario[] = ['cached', 'uncached', 'playground'];

export const scalingScenarios = workerList ? SCALING.filter((s) => !f.only || only.has(s)) : [];

if (workerList && !scalingScenarios.length) usage(`--workers runs ${SCALING.join(', ')}; --only names none of them`);

if (workerList) only.clear();

if (opts.runner !== 'tsx' && opts.runner !== 'dist') usage(`--runner must be tsx or dist, got "${opts.runner}"`);

for (const dir of [opts.gatewayRoot, opts.upstreamRoot, opts.compareRoot])
  if (dir && !fs.existsSync(path.join(dir, 'package.json'))) usage(`${dir} is not a checkout of the gateway (no package.json)`);

if (!/^\d{5}$/.test(opts.zip)) usage(`--zip must be a 5-digit ZIP code, got "${opts.zip}"`);

for (const kv of f.env ? f.env.split(',') : [])
  if (!/^[A-Z_][A-Z0-9_]*=/.test(kv)) usage(`--env takes NAME=value pairs separated by commas, got "${kv}"`);

// The keyed request: a realistic plan list (about 3.3 KB for 75001), by variables.
export const QUERY =
  'query Plans($zipCode: String!) { residentialPlans(zipCode: $zipCode) { title price term rateType supplier { name } } }';

export const BODY = JSON.stringify({ query: QUERY, variables: { zipCode: opts.zip }, operationName: 'Plans' });

// The same list priced over a household's year (profile scenario).
const PROFILE_QUERY =
  'query Year($zipCode: String!, $profile: [Int!]) { residentialPlans(zipCode: $zipCode, usageProfile: $profile) ' +
  '{ title price term rateType supplier { name } annualCost { totalUsd averageRateUsdPerKwh } } }';

export const PROFILE_BODY = JSON.stringify({
  query: PROFILE_QUERY,
  variables: { zipCode: opts.zip, profile: [800, 800, 750, 800, 1100, 1600, 2000, 2100, 1700, 1100, 800, 800] },
  operationName: 'Year',
});

// Child processes
