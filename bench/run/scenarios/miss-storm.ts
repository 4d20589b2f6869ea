// The `miss-storm` scenario of `npm run bench` (bench/run.ts describes every scenario).
import fs from 'node:fs';
import path from 'node:path';
import { opts } from '../flags.js';
import { startGatewayChild } from '../gateway.js';
import { checkOnce, keyedLoadRow } from '../load.js';
import { type Ctx } from '../setup.js';

/** The `miss-storm` scenario. */
export async function missStormScenario(c: Ctx): Promise<void> {
  const { tmp, gatewayEnv, keyedHeaders, table } = c;
  // The plans entry lives one second: every second the 50 connections miss together.
  const cacheConfig = path.join(tmp, 'cache-1s.yaml');
  fs.writeFileSync(cacheConfig, 'generation: miss-storm\nttl:\n  residentialPlans: 1s\n');
  for (const [name, coalesce] of [
    ['miss-storm', 'true'],
    ['miss-storm/off', 'false'],
  ] as const) {
    const g = await startGatewayChild(`gateway (${name})`, gatewayEnv, { CACHE_CONFIG: cacheConfig, CACHE_COALESCE: coalesce });
    await checkOnce(g.urls.production, keyedHeaders);
    const { r, delta } = await keyedLoadRow(
      g,
      name,
      `keyed residentialPlans ${opts.zip}, entry expiring every second, CACHE_COALESCE=${coalesce}`,
      keyedHeaders,
    );
    const per = (n: number) => (r.totalRequests ? Math.round((n / r.totalRequests) * 10000) / 10000 : null);
    r.notes = {
      feedCallsPerRequest: per(delta('gateway_upstream_calls_total')),
      executionsPerRequest: per(delta('gateway_cache_misses_total', { environment: 'production' })),
      coalescedShare: per(delta('gateway_cache_coalesced_total', { environment: 'production' })),
    };
    table(r);
    await g.child.stop();
  }
}
