// Support searches and the thread that serves partners, measured in one process: the playground's
// replay partition filled to 90% of its 32 MiB budget in a redis-server of its own (as the
// isolation scenario's `console search` row), then 6 concurrent 7-day searches in a loop for
// --seconds, once with the scan thread (stores/scan-thread.ts) and once with every unit read
// on the calling thread (as before it), alternating --rounds times. Per mode: searches done, the
// calling thread's CPU ms per second (process.threadCpuUsage) and its event-loop delay p99 and max
// (perf_hooks, 1 ms resolution): what a partner's request on that thread would wait behind.
//
//   npx tsx bench/console-scan.ts [--seconds 8] [--rounds 2]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestRedis } from '../scripts/harness/redis-server.js';
import { connectRedis } from '../cache/redis-connection.js';
import { createReplayStore, type ReplayQuery } from '../stores/replay-store.js';
import { scanThread } from '../stores/scan-thread.js';
import { defaultReplaySettings, fillPlaygroundReplay, SEARCH_QUERIES } from './console-fill.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, rounds: { type: 'string', default: '2' } } });
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
if (!(seconds > 0 && Number.isInteger(rounds) && rounds > 0)) throw new Error('--seconds > 0 and --rounds a positive integer');

const redis = await startTestRedis();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-console-scan-'));
try {
  const filled = await fillPlaygroundReplay(redis.url, dir);
  const client = await connectRedis(redis.url);
  const store = createReplayStore({ redis: client, dataDir: dir, settings: defaultReplaySettings() });
  console.log(`filled: ${filled.records} records, ${(filled.bytes / 1048576).toFixed(1)} of ${filled.budget / 1048576} MiB`);
  console.log('mode            searches  calling-thread CPU ms/s  loop delay p99 ms  max ms');
  for (let round = 0; round < rounds; round++) {
    for (const enabled of [true, false]) {
      scanThread.enabled = enabled;
      const r = await searchLoad(store, seconds);
      const mode = enabled ? 'scan thread' : 'calling thread';
      const cells = [
        String(r.searches).padStart(8),
        String(r.cpuMsPerS).padStart(23),
        r.p99.toFixed(2).padStart(17),
        r.max.toFixed(2).padStart(6),
      ];
      console.log(`${mode.padEnd(16)}${cells.join('  ')}`);
    }
  }
  await store.close();
  client.disconnect();
} finally {
  await scanThread.close();
  await redis.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

/** 6 sessions searching the last 7 days in turn, as the console's search page asks. */
async function searchLoad(store: ReturnType<typeof createReplayStore>, s: number) {
  const since = Date.now() - 7 * 86_400_000;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const cpu0 = process.threadCpuUsage();
  const end = performance.now() + s * 1000;
  let searches = 0;
  await Promise.all(
    Array.from({ length: 6 }, async (_, i) => {
      for (let n = i; performance.now() < end; n++) {
        await store.search({ ...(SEARCH_QUERIES[n % SEARCH_QUERIES.length] as ReplayQuery), since, limit: 1000 });
        searches++;
      }
    }),
  );
  const cpu = process.threadCpuUsage(cpu0);
  delay.disable();
  return { searches, cpuMsPerS: Math.round((cpu.user + cpu.system) / 1000 / s), p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
}
