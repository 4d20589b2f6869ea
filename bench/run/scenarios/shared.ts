// The `shared` scenario of `npm run bench` (bench/run.ts describes every scenario).
import { opts } from '../flags.js';
import { type Gateway, startGatewayChild } from '../gateway.js';
import { type Options, type Row, ipCounter, load, playgroundFromManyIps, row } from '../load.js';
import { redisCpuMs } from '../proc-stats.js';
import { type Ctx } from '../setup.js';

/**
 * Issue 15: two gateway instances sharing one Redis, both loaded at once with counted playground
 * calls from many IPs (allowance, cache and replay all in Redis). Reports, per instance, CPU µs
 * per request, and Redis' CPU µs per request over both: the cost of sharing state.
 */
async function sharedRedisScenario(gatewayEnv: NodeJS.ProcessEnv, redisUrl: string): Promise<Row[]> {
  const a = await startGatewayChild('shared gateway A', gatewayEnv);
  const b = await startGatewayChild('shared gateway B', gatewayEnv);
  try {
    // One counter for both instances: they share the allowance in Redis.
    const ips = ipCounter();
    const half = Math.max(1, Math.floor(opts.connections / 2));
    const options = (g: Gateway): Options => playgroundFromManyIps(g.urls.playground, half, ips.next);
    let redis0: number | null = null;
    let started = 0;
    const before = async () => {
      // Both warm-ups are over once both have called this.
      if (++started === 2) redis0 = await redisCpuMs(redisUrl);
    };
    const [ra, rb] = await Promise.all([load(options(a), a.child.proc.pid, before), load(options(b), b.child.proc.pid, before)]);
    const redis1 = await redisCpuMs(redisUrl);
    const total = ra.result.requests.total + rb.result.requests.total;
    const redisUs = redis0 !== null && redis1 !== null && total ? Math.round(((redis1 - redis0) * 1000) / total) : null;
    const rowA = row('shared-a', 'instance A of 2 sharing one Redis: playground from many IPs', half, ra);
    const rowB = row('shared-b', 'instance B of 2 sharing one Redis: the same, at the same time', half, rb);
    rowA.notes = { redisCpuUsPerRequest: redisUs, requestsBothInstances: total };
    return [rowA, rowB];
  } finally {
    await a.child.stop();
    await b.child.stop();
  }
}

// Isolation: keyed latency under a keyless flood, memory under attacks 1-5

// The keyed probe (bench/keyed-probe.ts) and the flood's load generator (bench/playground-flood.ts)
// run in processes of their own, not in this one: the flood's generator saturates the event loop it
// runs on, and a probe sharing it would report its own queueing as the gateway's latency. The probe
// sends at a fixed rate (--probe-rate, 500 req/s over 4 keep-alive connections) and times each
// request with process.hrtime.bigint() (µs), so quiet and flood runs offer the same load and p99 is
// not rounded to whole milliseconds.
//
// Priorities: nothing is pinned to a core (pinning would split this 2-core machine into halves and
// measure something else). The probe runs at this process's priority, like the gateway's keyed
// process; the flood's generator runs at the playground process's niceness (--flood-nice, the
// gateway's PLAYGROUND_NICE, 10 by default), because in production the flood comes from the
// attacker's machine: at nice 0 the generator would take a core from the keyed process, which says
// nothing about the playground's isolation. Started through nice(1), so every thread of it has that
// niceness from its first instruction. This process itself keeps its priority (the other scenarios
// load the gateway from here) and waits while the isolation runs are measured.

/** The `shared` scenario. */
export async function sharedScenario(c: Ctx): Promise<void> {
  const { redis, gatewayEnv, table } = c;
  for (const r of await sharedRedisScenario(gatewayEnv, redis.url)) table(r);
}
