// Loading a target with autocannon and turning a run into a table row (req/s, latency, CPU per
// request, the change of the gateway's metrics), medians over rounds, client addresses.
import http from 'node:http';
import autocannon from 'autocannon';
import { scrape } from '../../scripts/harness/metrics-text.js';
import { BODY, opts } from './flags.js';
import { type Gateway } from './gateway.js';
import { cpuMsOf, threadCpuMsOf } from './proc-stats.js';

export type Options = Parameters<typeof autocannon>[0];
export type Result = Awaited<ReturnType<typeof autocannon>>;

export interface Row {
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

/**
 * Warm-up (discarded), then `before()` (counters), then the measured run. With `pid`, also the CPU
 * time that process spent per answered request: robust to other load on the machine.
 */
export async function load(
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
export async function keyedLoadRow(
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

export function row(
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

export function median(xs: number[]): number {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
}

/** One row of several loads of the same target: the median of each figure, errors and requests summed. */
export function medianRow(scenario: string, description: string, runs: Row[]): Row {
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

export function errorRow(scenario: string, description: string, err: unknown): Row {
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

export function ipFor(n: number): string {
  // 10.0.0.0/8 spread over 65536 addresses, so each IP gets a handful of calls.
  const i = n % 65536;
  return `10.${(i >> 8) & 255}.${i & 255}.${1 + (Math.floor(n / 65536) % 250)}`;
}

/** A new client address on each call (ipFor), and how many were given. */
export function ipCounter(): { next: () => string; readonly count: number } {
  let n = 0;
  return {
    next: () => ipFor(n++),
    get count() {
      return n;
    },
  };
}

/** The playground's residentialPlans posted with a client address from `nextIp` each, so the per-IP allowance stays out of the way. */
export function playgroundFromManyIps(url: string, connections: number, nextIp: () => string): Options {
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
export async function sequential(url: string, headers: Record<string, string>, n: number): Promise<number> {
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

export async function checkOnce(
  url: string,
  headers: Record<string, string>,
  body = BODY,
): Promise<{ status: number; cache: string | null; bytes: number }> {
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, cache: res.headers.get('x-cache'), bytes: Buffer.byteLength(text) };
}

// Stock GraphQL Mesh (`mesh` scenario)
