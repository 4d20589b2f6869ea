// `--workers 1,2,4`: the gateway as a cluster of N workers (WORKERS=N; one process at N=1), loaded
// the same way for each N: keyed cache hits, keyed misses (CACHE_ENABLED=false) and counted
// playground calls from many addresses (allowance in Redis). Each row gives req/s and CPU µs per
// request of the whole process tree (primary + workers), the primary's own share (it accepts every
// connection and hands it to a worker), and for playground calls Redis' CPU per request.
// On a host with fewer cores than workers plus the load generator, req/s says little: read the CPU
// figures (docs/benchmark.md, "Workers: all the cores", turns them into cores for 8 and 16).
import fs from 'node:fs';

/** `--workers 1,2,4`: distinct positive counts, in the order given. */
export function parseWorkerList(raw: string): number[] | string {
  const parts = raw.split(',').map((s) => s.trim());
  const counts = parts.map(Number);
  if (!parts.length || counts.some((n, i) => !/^\d+$/.test(parts[i]!) || n < 1 || n > 256))
    return `--workers takes worker counts 1-256 separated by commas (e.g. 1,2,4), got "${raw}"`;
  return [...new Set(counts)];
}

/** CPU time (user + system, ms) of a process and every process below it (Linux /proc). */
export function treeCpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  let total = 0;
  const stack = [pid];
  let first = true;
  while (stack.length) {
    const p = stack.pop()!;
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, fields 14 and 15 of the line, in clock ticks (100 Hz).
      total += ((Number(f[11]) + Number(f[12])) * 1000) / 100;
      for (const tid of fs.readdirSync(`/proc/${p}/task`)) {
        const children = fs.readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').trim();
        if (children) stack.push(...children.split(' ').map(Number));
      }
    } catch {
      if (first) return null;
      // A process that ended meanwhile.
    }
    first = false;
  }
  return total;
}

export type ScalingScenario = 'cached' | 'uncached' | 'playground';

/** What bench/run.ts lends the series: its gateway start, load and row helpers. */
export interface ScalingDeps<Row, LoadOptions> {
  list: number[];
  scenarios: ScalingScenario[];
  connections: number;
  duration: number;
  startGateway(
    name: string,
    extra: NodeJS.ProcessEnv,
  ): Promise<{ pid: number | undefined; production: string; playground: string; stop(): Promise<void> }>;
  /** Warm-up, `before`, then the measured load; CPU read with `cpuOf` around the measured part. */
  load(
    o: LoadOptions,
    cpuOf: () => number | null,
    before?: () => Promise<void>,
  ): Promise<{ row: (scenario: string, description: string) => Row; totalRequests: number }>;
  keyedRequest(url: string): LoadOptions;
  playgroundRequest(url: string): LoadOptions;
  redisCpuMs(): Promise<number | null>;
  cpuMsOf(pid: number | undefined): number | null;
  table(row: Row & { notes?: Record<string, unknown> }): void;
}

export async function runWorkerScaling<Row extends { notes?: Record<string, unknown> }, LoadOptions>(
  d: ScalingDeps<Row, LoadOptions>,
): Promise<void> {
  const perRequest = (ms: number | null, n: number) => (ms !== null && n ? Math.round((ms * 1000) / n) : null);
  for (const n of d.list) {
    const label = `${n}w`;
    const measure = async (
      g: { pid: number | undefined },
      scenario: ScalingScenario,
      description: string,
      o: LoadOptions,
      withRedis = false,
    ) => {
      let primary0: number | null = null;
      let redis0: number | null = null;
      const measured = await d.load(
        o,
        () => treeCpuMs(g.pid),
        async () => {
          primary0 = d.cpuMsOf(g.pid);
          redis0 = withRedis ? await d.redisCpuMs() : null;
        },
      );
      const primary1 = d.cpuMsOf(g.pid);
      const redis1 = withRedis ? await d.redisCpuMs() : null;
      const row = measured.row(`${scenario}@${label}`, `${description}, WORKERS=${n}`);
      row.notes = {
        ...row.notes,
        workers: n,
        ...(n > 1
          ? {
              primaryCpuUsPerRequest: perRequest(
                primary0 !== null && primary1 !== null ? primary1 - primary0 : null,
                measured.totalRequests,
              ),
            }
          : {}),
        ...(withRedis
          ? { redisCpuUsPerRequest: perRequest(redis0 !== null && redis1 !== null ? redis1 - redis0 : null, measured.totalRequests) }
          : {}),
      };
      d.table(row);
    };
    if (d.scenarios.includes('cached') || d.scenarios.includes('playground')) {
      const g = await d.startGateway(`gateway WORKERS=${n}`, { WORKERS: String(n) });
      try {
        if (d.scenarios.includes('cached')) await measure(g, 'cached', 'keyed residentialPlans, cache hits', d.keyedRequest(g.production));
        if (d.scenarios.includes('playground'))
          await measure(g, 'playground', 'playground calls from many IPs', d.playgroundRequest(g.playground), true);
      } finally {
        await g.stop();
      }
    }
    if (d.scenarios.includes('uncached')) {
      const g = await d.startGateway(`gateway WORKERS=${n} (cache off)`, { WORKERS: String(n), CACHE_ENABLED: 'false' });
      try {
        await measure(g, 'uncached', 'keyed residentialPlans, CACHE_ENABLED=false', d.keyedRequest(g.production));
      } finally {
        await g.stop();
      }
    }
  }
}
