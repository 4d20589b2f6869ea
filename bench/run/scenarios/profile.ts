// The `profile` scenario of `npm run bench` (bench/run.ts describes every scenario).
import { BODY, PROFILE_BODY, only, opts } from '../flags.js';
import { startGatewayChild } from '../gateway.js';
import { checkOnce, load, row } from '../load.js';
import { type Ctx } from '../setup.js';

export async function profileScenario(c: Ctx): Promise<void> {
  const { gatewayEnv, keyedHeaders, table } = c;
  if (only.has('profile')) {
    const b = await startGatewayChild('gateway (cache off, profile)', gatewayEnv, { CACHE_ENABLED: 'false' });
    try {
      for (const [name, body, what] of [
        ['profile/plain', BODY, 'plain list'],
        ['profile/uncached', PROFILE_BODY, '12-month usageProfile'],
      ] as const) {
        const check = await checkOnce(b.urls.production, keyedHeaders, body);
        if (check.status !== 200 || check.cache !== 'BYPASS')
          throw new Error(`${name}: expected 200 BYPASS, got ${check.status}/${check.cache}`);
        const load1 = { url: b.urls.production, connections: opts.connections, duration: opts.duration, method: 'POST' as const };
        const what1 = `keyed residentialPlans ${opts.zip}, CACHE_ENABLED=false, ${what}`;
        table(row(name, what1, opts.connections, await load({ ...load1, headers: keyedHeaders, body }, b.child.proc.pid)));
      }
    } finally {
      await b.child.stop();
    }
  }
}
