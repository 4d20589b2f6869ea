// The `uncached` scenario of `npm run bench` (bench/run.ts describes every scenario).
import { scrape } from '../../../scripts/harness/metrics-text.js';
import { BODY, only, opts } from '../flags.js';
import { startGatewayChild } from '../gateway.js';
import { checkOnce, load, row } from '../load.js';
import { cpuMsOf, memoryAfterRun } from '../proc-stats.js';
import { type Ctx } from '../setup.js';

export async function uncachedScenarios(c: Ctx): Promise<void> {
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
