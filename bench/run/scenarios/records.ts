// The `records` scenario of `npm run bench` (bench/run.ts describes every scenario).
import path from 'node:path';
import { freePort } from '../../../scripts/harness/redis-server.js';
import { startChild, withTimeout } from '../children.js';
import { BODY, opts } from '../flags.js';
import { startGatewayChild } from '../gateway.js';
import { type Row, checkOnce, load, medianRow, row } from '../load.js';
import { redisCpuMs } from '../proc-stats.js';
import { type Ctx } from '../setup.js';

/** The `records` scenario. */
export async function recordsScenario(c: Ctx): Promise<void> {
  const { gatewayEnv, keyedHeaders, table } = c;
  // What a hit's request log line and replay record cost, and cached against the floor, read off
  // processes loaded in turn: the floor server and three gateways (as `cached`, without the request
  // log, without replay) stay up, and each round loads each of them once, starting one further
  // along every round. Every row is the median of its rounds. One load after another on the same
  // machine moves a lot (docs/benchmark.md, "Reading the figures"); side by side in rounds the
  // comparison holds.
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
