// The isolation scenario's partner rows (bench/run.ts, `--rows partners`): partner B sends light
// requests (keyed cache hits) at a fixed rate through the keyed probe (bench/keyed-probe.ts) while
// partner A runs a loop gone wrong, 64 connections of uncached plan queries, a new monthlyUsage
// each (bench/partner-flood.ts, at the flood's niceness like the other isolation floods: in
// production A's loop runs on A's machines). Three rows:
//   partners quiet        B alone, and A's misses over one connection alone (each partner's quiet p99)
//   partner A runaway     B during A's loop, A under the default quota
//   partner A unlimited   the same with A's quota "unlimited": only the fair share of uncached
//                         executions keeps A's burst behind its own requests
// The notes hold B's p99 quiet / during and its ratio, A's p99 quiet / during, A's share of 429
// answers and the gateway's own count of them by reason (its /metrics).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { issueKey } from '../stores/key-store.js';
import { savePartner, setQuota } from '../stores/partners.js';
import { scrape } from '../scripts/harness/metrics-text.js';
import type { Row } from './run/load.js';

interface ProbeResult {
  count: number;
  errors: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

interface FloodResult {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}

export interface PartnerRowsInput {
  /** The gateway's production /graphql and /metrics. */
  urls: { production: string; metrics: string };
  keysFile: string;
  /** The probe's body: a keyed cache hit. */
  body: string;
  seconds: number;
  warmup: number;
  floodNice: number;
}

const ROOT = path.resolve(import.meta.dirname, '..');
/** B's light traffic: requests a second over two connections. */
const B_RATE = 20;

function child(cmd: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) => {
      const m = /^RESULT (\{.*\})$/m.exec(out);
      if (m) resolve(m[1]!);
      else reject(new Error(`${args.at(-1)} exited ${code}: ${out.slice(-2000)}`));
    });
  });
}

const probe = (input: PartnerRowsInput, key: string, seconds: number) =>
  child(process.execPath, ['--import', 'tsx', 'bench/keyed-probe.ts'], {
    URL: input.urls.production,
    BODY: input.body,
    HEADERS: JSON.stringify({ 'content-type': 'application/json', 'x-api-key': key }),
    RATE: String(B_RATE),
    CONNECTIONS: '2',
    DURATION: String(seconds),
    WARMUP: String(input.warmup),
  }).then((s) => JSON.parse(s) as ProbeResult);

const flood = (input: PartnerRowsInput, key: string, connections: number, seconds: number) =>
  child('nice', ['-n', String(input.floodNice), process.execPath, '--import', 'tsx', 'bench/partner-flood.ts'], {
    URL: input.urls.production,
    KEY: key,
    CONNECTIONS: String(connections),
    DURATION: String(seconds),
  }).then((s) => JSON.parse(s) as FloodResult);

async function refusals(metricsUrl: string): Promise<Record<string, number>> {
  const m = await scrape(metricsUrl);
  const of = (result: string) => m('gateway_partner_requests_total', { environment: 'production', partner: 'ALPHA', result });
  return { allowed: of('allowed'), refused_quota: of('refused_quota'), refused_concurrency: of('refused_concurrency') };
}

const ratio = (a: number, b: number) => (b ? Math.round((a / b) * 100) / 100 : null);

export async function partnerIsolationRows(input: PartnerRowsInput): Promise<Row[]> {
  const partnersFile = path.join(path.dirname(input.keysFile), 'partners.json');
  const a = (await issueKey(input.keysFile, { environment: 'production', partnerCode: 'ALPHA' })).key;
  const b = (await issueKey(input.keysFile, { environment: 'production', partnerCode: 'BRAVO' })).key;
  await savePartner(partnersFile, { code: 'ALPHA', name: 'Partner A (runaway)', contact: 'bench' }, { actor: 'bench' });
  const seconds = input.seconds;

  const bQuiet = await probe(input, b, seconds);
  const aQuiet = await flood(input, a, 1, Math.max(3, Math.min(seconds, 5)));
  const quietRow: Row = {
    scenario: 'partners quiet',
    description: `partner B: keyed cache hits, ${B_RATE} req/s over 2 connections, nothing else`,
    connections: 2,
    reqPerSec: bQuiet.reqPerSec,
    p50Ms: bQuiet.p50Ms,
    p99Ms: bQuiet.p99Ms,
    errors: bQuiet.errors,
    non2xx: bQuiet.errors,
    timeouts: 0,
    totalRequests: bQuiet.count,
    bytesPerResponse: 0,
    cpuUsPerRequest: null,
    notes: {
      bMaxMs: bQuiet.maxMs,
      aQuietP99Ms: aQuiet.latency.p99,
      aQuietReqPerSec: aQuiet.requests.average,
      aQuietNote: 'A: misses over 1 connection',
    },
  };

  const during = async (scenario: string, description: string): Promise<Row> => {
    const before = await refusals(input.urls.metrics);
    const loop = flood(input, a, 64, input.warmup + seconds + 4);
    await new Promise((r) => setTimeout(r, 1000));
    const bDuring = await probe(input, b, seconds);
    const aDuring = await loop;
    const after = await refusals(input.urls.metrics);
    const total = Object.values(aDuring.statusCodeStats).reduce((n, s) => n + s.count, 0);
    const refused = aDuring.statusCodeStats['429']?.count ?? 0;
    return {
      scenario,
      description,
      connections: 2,
      reqPerSec: bDuring.reqPerSec,
      p50Ms: bDuring.p50Ms,
      p99Ms: bDuring.p99Ms,
      errors: bDuring.errors,
      non2xx: bDuring.errors,
      timeouts: 0,
      totalRequests: bDuring.count,
      bytesPerResponse: 0,
      cpuUsPerRequest: null,
      notes: {
        bP99QuietMs: bQuiet.p99Ms,
        bP99DuringMs: bDuring.p99Ms,
        bP99VsQuiet: ratio(bDuring.p99Ms, bQuiet.p99Ms),
        bMaxMs: bDuring.maxMs,
        target: 'B p99 <= 3x quiet (or quiet + 50 ms), B error-free, A answered 429 past its share',
        aP99QuietMs: aQuiet.latency.p99,
        aP99DuringMs: aDuring.latency.p99,
        aRequests: total,
        a429Share: total ? Math.round((refused / total) * 1000) / 1000 : null,
        aStatus: Object.fromEntries(Object.entries(aDuring.statusCodeStats).map(([k, v]) => [k, v.count])),
        aErrors: aDuring.errors + aDuring.timeouts,
        aByReason: Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)])),
      },
    };
  };

  const rows = [quietRow];
  rows.push(await during('partner A runaway', 'partner B as above while partner A (default quota) runs 64 connections of misses'));
  await setQuota(partnersFile, 'ALPHA', 'production', 'unlimited', { actor: 'bench' });
  // The gateway polls the partners file (250 ms).
  await new Promise((r) => setTimeout(r, 1500));
  rows.push(await during('partner A unlimited', 'the same with A\'s quota "unlimited": only the fair share holds A back'));
  return rows;
}
