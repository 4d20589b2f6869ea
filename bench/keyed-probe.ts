// The isolation scenario's keyed probe (bench/run.ts), a process of its own: the flood's load
// generator saturates whatever process it runs in, and a probe sharing that event loop would count
// its own queueing as the gateway's latency.
//
// Fixed request rate, not a closed loop: RATE requests a second in all, spread over CONNECTIONS
// keep-alive connections (undici Pool, no pipelining), each connection sending at its own evenly
// staggered slots. A closed loop as fast as it can go saturates the keyed process, so its p99 says
// how the CPU is shared at saturation rather than what a partner's request meets; and it sends fewer
// requests when the gateway is slower, so a quiet run and a flood run would not be the same load.
// At a fixed rate both runs offer the same load, well below the keyed process's capacity.
//
// Each request's latency is taken with process.hrtime.bigint() from just before it is handed to
// the pool to the last byte of its answer (µs resolution). A connection whose answer arrives after
// its next slot sends at once and skips the slots it missed (counted: `missedSlots`), so a stall
// shows as its own long latency rather than as a burst afterwards. How late the probe itself was
// at its slots (its own timer and event-loop delay, not counted in the latency) is reported as
// `lagP99Ms`.
//
// Environment: URL, BODY, HEADERS (JSON object), RATE (req/s), CONNECTIONS, DURATION and WARMUP (s;
// the warm-up's samples are discarded). Prints `MEASURING` when the warm-up is over (the bench reads
// the gateway's CPU time then), then one line, `RESULT {json}`, and exits.
import { Pool } from 'undici';

const url = new URL(process.env.URL ?? 'http://127.0.0.1:4000/graphql');
const body = process.env.BODY ?? '';
const headers = JSON.parse(process.env.HEADERS ?? '{}') as Record<string, string>;
const rate = Number(process.env.RATE ?? 500);
const connections = Number(process.env.CONNECTIONS ?? 4);
const duration = Number(process.env.DURATION ?? 5);
const warmup = Number(process.env.WARMUP ?? 1);
if (!(rate > 0 && connections > 0 && duration > 0 && warmup >= 0))
  throw new Error('keyed probe: RATE, CONNECTIONS and DURATION must be positive');

const pool = new Pool(url.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
const intervalNs = BigInt(Math.round((connections / rate) * 1e9));

interface Samples {
  latencyUs: number[];
  lagUs: number[];
  errors: number;
  missedSlots: number;
}

const sleepUntil = (t: bigint) => {
  const ms = Number(t - process.hrtime.bigint()) / 1e6;
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
};

/** One connection's loop from `start` (its first slot) until `end`. */
async function connectionLoop(start: bigint, end: bigint, out: Samples): Promise<void> {
  let slot = start;
  while (slot < end) {
    await sleepUntil(slot);
    const t0 = process.hrtime.bigint();
    out.lagUs.push(Number(t0 - slot) / 1000);
    try {
      const res = await pool.request({ path: url.pathname, method: 'POST', headers, body });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) out.errors++;
    } catch {
      out.errors++;
    }
    const t1 = process.hrtime.bigint();
    out.latencyUs.push(Number(t1 - t0) / 1000);
    slot += intervalNs;
    while (slot < t1) {
      slot += intervalNs;
      out.missedSlots++;
    }
  }
}

async function run(seconds: number): Promise<Samples> {
  const out: Samples = { latencyUs: [], lagUs: [], errors: 0, missedSlots: 0 };
  const start = process.hrtime.bigint() + 5_000_000n;
  const end = start + BigInt(Math.round(seconds * 1e9));
  const step = intervalNs / BigInt(connections);
  await Promise.all(Array.from({ length: connections }, (_, i) => connectionLoop(start + step * BigInt(i), end, out)));
  return out;
}

/** The q-quantile (nearest rank) of µs samples, in ms with two decimals. */
function quantileMs(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const v = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return Math.round(v / 10) / 100;
}

if (warmup > 0) await run(warmup);
process.stdout.write('MEASURING\n');
const s = await run(duration);
await pool.close();
const latency = Float64Array.from(s.latencyUs).sort();
const lag = Float64Array.from(s.lagUs).sort();
const result = {
  count: latency.length,
  errors: s.errors,
  reqPerSec: Math.round(latency.length / duration),
  p50Ms: quantileMs(latency, 0.5),
  p99Ms: quantileMs(latency, 0.99),
  maxMs: quantileMs(latency, 1),
  missedSlots: s.missedSlots,
  lagP99Ms: quantileMs(lag, 0.99),
};
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
