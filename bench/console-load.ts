// The isolation scenario's console load (bench/run.ts), a process of its own at the flood's
// niceness (support people's browsers are not on the gateway's cores): CLIENTS support sessions,
// each signed in through the form with TOKEN, GET the console PATHS in turn in a closed loop until
// DURATION seconds are over.
//
// Environment: BASE (the admin listener's origin), TOKEN, CLIENTS, PATHS (JSON array of paths),
// DURATION (s). Prints `READY` once every client is signed in, then `RESULT {json}` (pages loaded,
// their statuses and latency) at the end.
import { benchConsoleClient } from './console-client.js';

const base = process.env.BASE ?? 'http://127.0.0.1:4020';
const token = process.env.TOKEN ?? '';
const clients = Number(process.env.CLIENTS ?? 8);
const paths = JSON.parse(process.env.PATHS ?? '["/console/audit"]') as string[];
const duration = Number(process.env.DURATION ?? 10);
if (!(clients > 0 && duration > 0 && paths.length)) throw new Error('console load: CLIENTS, DURATION and PATHS must be set');

const sessions = await Promise.all(
  Array.from({ length: clients }, async () => {
    const c = benchConsoleClient(base);
    await c.signIn(token);
    return c;
  }),
);
process.stdout.write('READY\n');
const end = performance.now() + duration * 1000;
const latencyMs: number[] = [];
const statuses: Record<string, number> = {};
let bytes = 0;
await Promise.all(
  sessions.map(async (c, i) => {
    for (let n = i; performance.now() < end; n++) {
      const t0 = performance.now();
      const r = await c.get(paths[n % paths.length]!).catch(() => ({ status: 0, bytes: 0 }));
      latencyMs.push(performance.now() - t0);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      bytes += r.bytes;
    }
  }),
);
latencyMs.sort((a, b) => a - b);
const q = (p: number) => Math.round((latencyMs[Math.min(latencyMs.length - 1, Math.ceil(p * latencyMs.length) - 1)] ?? 0) * 10) / 10;
const result = {
  pages: latencyMs.length,
  pagesPerSec: Math.round((latencyMs.length / duration) * 10) / 10,
  statuses,
  bytesPerPage: latencyMs.length ? Math.round(bytes / latencyMs.length) : 0,
  p50Ms: q(0.5),
  p99Ms: q(0.99),
  maxMs: q(1),
};
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
