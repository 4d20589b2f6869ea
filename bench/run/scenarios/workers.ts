// The `workers` scenario of `npm run bench` (bench/run.ts describes every scenario).
import { runWorkerScaling } from '../../workers.js';
import { BODY, opts, scalingScenarios, workerList } from '../flags.js';
import { startGatewayChild } from '../gateway.js';
import { type Options, type Row, ipCounter, load, playgroundFromManyIps, row } from '../load.js';
import { cpuMsOf, redisCpuMs } from '../proc-stats.js';
import { type Ctx } from '../setup.js';

export async function workersScenario(c: Ctx): Promise<void> {
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
