// The `instructions` scenario of `npm run bench` (bench/run.ts describes every scenario).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../../scripts/harness/redis-server.js';
import { startChild, withTimeout } from '../children.js';
import { opts } from '../flags.js';
import { startGatewayChild } from '../gateway.js';
import { checkOnce, sequential } from '../load.js';
import { type Ctx } from '../setup.js';

/** The `instructions` scenario. */
export async function instructionsScenario(c: Ctx): Promise<void> {
  const { tmp, instructions, gatewayEnv, keyedHeaders } = c;
  // Instructions per request, counted by valgrind's callgrind: the same figure for the same code
  // whatever else the machine is doing (time and CPU figures move with it: docs/benchmark.md, "Reading the figures").
  // The floor server and the gateways as in `records`, one connection, requests one after the
  // other: --instructions-warmup of them (not counted: JIT, caches), then --instructions-requests
  // counted. User-space instructions only: the kernel's share (socket writes) is not in it.
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is not installed (apt-get install valgrind)');
  const dir = path.join(tmp, 'callgrind');
  fs.mkdirSync(dir, { recursive: true });
  const wrap = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${dir}/cg.%p`, '--smc-check=all-non-file', '--separate-threads=yes'];
  // Per thread: the main thread and libuv's pool (deflate, file writes) are the request's work;
  // V8's platform threads (optimizing compiles, concurrent GC) are reported apart: under valgrind
  // they run late (threads are serialized), so optimized code arrives later than it would, and
  // the counts are higher than a natively warmed-up process would execute, for every target alike.
  const threadTotals = (pid: number) => {
    const own = { main: 0, pool: 0, v8: 0 };
    for (const f of fs.readdirSync(dir).filter((n) => n.startsWith(`cg.${pid}.`))) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      const total = Number(/^(?:totals|summary):\s+(\d+)/m.exec(text)?.[1] ?? 0);
      const thread = Number(/^thread:\s+(\d+)/m.exec(text)?.[1] ?? 1);
      if (thread === 1) own.main += total;
      else if (/PlatformWorkerThread/.test(text)) own.v8 += total;
      else own.pool += total;
    }
    return own;
  };
  const count = async (name: string, url: string, pid: number, headers: Record<string, string>) => {
    await sequential(url, headers, opts.instructionsWarmup);
    if (spawnSync('callgrind_control', ['-z', String(pid)]).status !== 0) throw new Error(`callgrind_control -z ${pid} failed`);
    for (const f of fs.readdirSync(dir).filter((n) => n.startsWith(`cg.${pid}.`))) fs.rmSync(path.join(dir, f));
    const bad = await sequential(url, headers, opts.instructionsRequests);
    if (spawnSync('callgrind_control', ['-d', String(pid)]).status !== 0) throw new Error(`callgrind_control -d ${pid} failed`);
    if (bad) throw new Error(`instructions (${name}): ${bad} of ${opts.instructionsRequests} answers were not 200`);
    const t = threadTotals(pid);
    if (!t.main) throw new Error(`no callgrind dump for ${name}`);
    const per = (n: number) => Math.round(n / opts.instructionsRequests);
    instructions[name] = per(t.main + t.pool);
    instructions[`${name} (V8 background threads)`] = per(t.v8);
  };
  let answerBytes = 0;
  for (const [name, extra] of [
    ['cached', {}],
    ['cached/no-log', { LOG_LEVEL: 'warn' }],
    ['cached/no-replay', { REPLAY_ENABLED: 'false' }],
  ] as const) {
    // Requests are slow under valgrind: batches are written once they hold 500 records, as under
    // load, rather than every REPLAY_FLUSH_MS of valgrind's time.
    const g = await startGatewayChild(`gateway (instructions: ${name})`, gatewayEnv, { ...extra, REPLAY_FLUSH_MS: '60000' }, wrap);
    try {
      answerBytes = (await checkOnce(g.urls.production, keyedHeaders)).bytes;
      await count(name, g.urls.production, g.child.proc.pid!, keyedHeaders);
    } finally {
      await g.child.stop();
    }
  }
  // The floor answers as many bytes as the gateways did.
  const floorPort = await freePort();
  const floor = startChild(
    'instructions: floor',
    'valgrind',
    [...wrap.slice(1), process.execPath, '--import', 'tsx', 'bench/baseline-server.ts'],
    { PATH: process.env.PATH, PORT: String(floorPort), MODE: 'floor', BODY_BYTES: String(answerBytes) },
    /READY/,
  );
  try {
    await withTimeout(floor.line, 300_000, 'floor server under valgrind');
    await count('floor', `http://127.0.0.1:${floorPort}/graphql`, floor.child.proc.pid!, {});
  } finally {
    await floor.child.stop();
  }
}
