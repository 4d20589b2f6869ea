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
//   peers        Hive Gateway (GraphQL Mesh's successor; `hive-gateway supergraph`, one process) over a
//                `mesh-compose` supergraph of the same feeds (bench/peers/), asked for the same three
//                feed calls as `mesh`, against the gateway in interleaved rounds (--rounds): cached
//                against cached (Hive's response caching in memory), uncached against uncached (no
//                response cache on either, a new undeclared variable each request), and the gateway with
//                UPSTREAM_DEDUP=false against Hive uncached (like for like: 3 feed requests a request);
//                printed as ours / Hive for req/s, p99 and CPU per request
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
//        --rows playground,attacks,connections,console,partners (isolation: the rows after the quiet one).
//        An unknown flag or a bad value exits 2; --help lists the flags and scenarios.
//
// The parts live in bench/run/: flags.ts, children.ts, proc-stats.ts, gateway.ts, load.ts, setup.ts,
// scenarios/ (one file per scenario) and report.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { children } from './run/children.js';
import { opts } from './run/flags.js';
import { deriveFigures, printReport, writeResults } from './run/report.js';
import { baselineScenario } from './run/scenarios/baseline.js';
import { directScenarios } from './run/scenarios/direct.js';
import { floorScenario, floorUwsScenario } from './run/scenarios/floor.js';
import { gatewayAScenarios } from './run/scenarios/gateway-a.js';
import { instructionsScenario } from './run/scenarios/instructions.js';
import { isolationRun } from './run/scenarios/isolation.js';
import { meshScenario } from './run/scenarios/mesh.js';
import { peersScenario } from './run/scenarios/peers.js';
import { missStormScenario } from './run/scenarios/miss-storm.js';
import { profileScenario } from './run/scenarios/profile.js';
import { recordsScenario } from './run/scenarios/records.js';
import { sharedScenario } from './run/scenarios/shared.js';
import { tracingScenario } from './run/scenarios/tracing.js';
import { uncachedScenarios } from './run/scenarios/uncached.js';
import { workersScenario } from './run/scenarios/workers.js';
import { type BenchState, benchRedis, setUp } from './run/setup.js';

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
  await c.run('peers', () => peersScenario(c));
  await workersScenario(c);
  await c.up.child.stop();
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
