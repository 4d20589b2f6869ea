// The `isolation` scenario of `npm run bench` (bench/run.ts describes every scenario).
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../../../scripts/harness/redis-server.js';
import { issueKey } from '../../../stores/key-store.js';
import { savePartner, setQuota } from '../../../stores/partners.js';
import { spreadDocument } from '../../spread-document.js';
import { AUDIT_PATHS, fillAuditTrail, fillPlaygroundReplay, SEARCH_PATHS } from '../../console-fill.js';
import { startChild, waitFor200, withTimeout } from '../children.js';
import { BODY, floodNice, isolationRows, opts } from '../flags.js';
import { type Gateway, startGatewayChild, startWaitMs } from '../gateway.js';
import { partnerIsolationRows } from '../../partner-isolation.js';
import { craftedBody } from '../../crafted-bodies.js';
import { type Options, type Result, type Row, checkOnce, ipFor, row } from '../load.js';
import { type MemoryReading, cpuMsOf, machineCpu, memoryAfterRun, memoryWithChildren, redisCpuMs } from '../proc-stats.js';
import { type Ctx } from '../setup.js';

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
      // Said in the row: a probe refused (a quota, a key) times refusals, not keyed answers.
      ...(p.errors > 0 ? { probeNot200: `${p.errors} of ${p.count} answers were not 200: this p99 is not of keyed answers` } : {}),
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
  keysFile: string;
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
  if (isolationRows.has('partners'))
    rows.push(
      ...(await partnerIsolationRows({ ...access, urls: g.urls, body: BODY, seconds: opts.duration, warmup: opts.warmup, floodNice })),
    );
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
  // 64 KB crafted bodies (bench/crafted-bodies.ts) to the playground, many IPs, while production is asked.
  const crafting = autocannon({
    url: g.urls.playground,
    connections: 4,
    duration: opts.warmup + Math.min(opts.duration, 5) + 3,
    timeout: 30,
    requests: manyIps(() => craftedBody(n)),
  });
  const crafted = probeRow(
    'attack crafted',
    'keyed cache hits while 64 KB crafted bodies go to the playground',
    await keyedProbe(g, keyedHeaders, Math.min(opts.duration, 5)),
  );
  const craftedResult = await crafting;
  crafted.notes = { ...crafted.notes, craftedRequests: craftedResult.requests.total, craftedTimeouts: craftedResult.timeouts };
  rows.push(crafted);
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

/** The `isolation` scenario. */
export async function isolationRun(c: Ctx): Promise<void> {
  const { memory, redis, gatewayEnv, keyedHeaders, table, keysFile } = c;
  // The support console on the admin listener, with a support token in the keys file before start.
  const adminPort = await freePort();
  const supportToken = (await issueKey(keysFile, { environment: 'support', partnerCode: 'BENCH' })).key;
  // The keyed probe (500 req/s) stands for a partner whose quota was set for its volume: under the
  // default quota (50/s) nine in ten of its requests were 429s, and its rows measured refusals.
  const partnersFile = path.join(path.dirname(keysFile), 'partners.json');
  await savePartner(partnersFile, { code: 'BENCH', name: 'Bench keyed probe', contact: 'bench' }, { actor: 'bench' });
  await setQuota(partnersFile, 'BENCH', 'production', 'unlimited', { actor: 'bench' });
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
    // The partner quota and fair share as shipped (the other scenarios lift them).
    PARTNER_QUOTA_DEFAULT: '50/200',
    PARTNER_QUEUE: '32',
    ...opts.env,
  });
  await waitFor200(g.urls.playground.replace(/\/graphql$/, '/healthz'), startWaitMs(60_000), g.child);
  try {
    const access = { base: `http://127.0.0.1:${adminPort}`, token: supportToken, dataDir: String(gatewayEnv.DATA_DIR), keysFile };
    const result = await isolationScenario(g, keyedHeaders, redis.url, access);
    for (const r of result.rows) table(r);
    memory.gatewayIsolation = result.memory;
  } finally {
    await g.child.stop();
  }
}
