// The `gateway-a` scenario of `npm run bench` (bench/run.ts describes every scenario).
import { scrape } from '../../../scripts/harness/metrics-text.js';
import { BODY, PROFILE_BODY, opts } from '../flags.js';
import { checkOnce, ipCounter, keyedLoadRow, load, playgroundFromManyIps, row } from '../load.js';
import { memoryAfterRun } from '../proc-stats.js';
import { type Ctx } from '../setup.js';

export async function gatewayAScenarios(c: Ctx): Promise<void> {
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
