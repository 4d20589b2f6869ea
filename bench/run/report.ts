// The run's report: the table, the figures derived from its rows, and the JSON results file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MESH_QUERY } from '../mesh-start/query.js';
import { QUERY, ROOT, only, opts } from './flags.js';
import { type Row } from './load.js';
import { type BenchState } from './setup.js';

/** The `peers` rows read against each other: [derived key, our row, Hive's row]. */
const PEER_PAIRS = [
  ['Cached', 'ours cached', 'hive cached'],
  ['Uncached', 'ours uncached', 'hive uncached'],
  ['LikeForLike', 'ours uncached/no-dedup', 'hive uncached'],
] as const;

/** Ratios and differences between rows that the report and the JSON carry. */
export function deriveFigures(rows: Row[]): Record<string, number | null> {
  const base = rows.find((r) => r.scenario === 'baseline');
  for (const r of rows) if (base?.reqPerSec && !r.error) r.ratio = Math.round((r.reqPerSec / base.reqPerSec) * 1000) / 1000;
  const by = (s: string) => rows.find((r) => r.scenario === s && !r.error);
  const derived: Record<string, number | null> = {};
  const overheadAt = (g?: Row, d?: Row) => (g && d ? Math.round((g.p50Ms - d.p50Ms) * 100) / 100 : null);
  derived.overheadP50Ms = overheadAt(by('uncached'), by('direct'));
  derived.overheadP50MsOneConnection = overheadAt(by('uncached@1'), by('direct@1'));
  derived.missStormVsUncached =
    by('miss-storm') && by('uncached') ? Math.round((by('miss-storm')!.reqPerSec / by('uncached')!.reqPerSec) * 100) / 100 : null;
  derived.cachedVsFloor = by('cached') && by('floor') ? Math.round((by('cached')!.reqPerSec / by('floor')!.reqPerSec) * 1000) / 1000 : null;
  derived.cachedVsFloorInRounds =
    by('records: cached') && by('records: floor')
      ? Math.round((by('records: cached')!.reqPerSec / by('records: floor')!.reqPerSec) * 1000) / 1000
      : null;
  const cpuOf = (s: string) => by(s)?.cpuUsPerRequest ?? null;
  const added = (without: string) =>
    cpuOf('records: cached') !== null && cpuOf(without) !== null ? cpuOf('records: cached')! - cpuOf(without)! : null;
  derived.logCpuUsPerHit = added('records: cached/no-log');
  derived.replayCpuUsPerHit = added('records: cached/no-replay');
  derived.uncachedVsDirect =
    by('uncached') && by('direct') ? Math.round((by('uncached')!.reqPerSec / by('direct')!.reqPerSec) * 1000) / 1000 : null;
  // Target: uncached gateway throughput >= 2x stock `mesh start` over the same feeds.
  derived.uncachedVsMeshStart =
    by('uncached') && by('mesh')?.reqPerSec ? Math.round((by('uncached')!.reqPerSec / by('mesh')!.reqPerSec) * 1000) / 1000 : null;

  // Targets: a profile query uncached within 1.5x of the plain one (req/s), cached at the same speed.
  const speedRatio = (a: string, b: string) => (by(a) && by(b) ? Math.round((by(b)!.reqPerSec / by(a)!.reqPerSec) * 1000) / 1000 : null);
  derived.profileUncachedSlowdown = speedRatio('profile/uncached', 'profile/plain');
  derived.profileCachedSlowdown = speedRatio('profile/cached', 'profile/cached-plain');

  // Ours / Hive Gateway in the same rounds (the `peers` scenario).
  const ratio = (a: number | null | undefined, b: number | null | undefined) => (a != null && b ? Math.round((a / b) * 100) / 100 : null);
  for (const [key, ours, peer] of PEER_PAIRS) {
    const o = by(`peers: ${ours}`);
    const p = by(`peers: ${peer}`);
    derived[`peers${key}ReqPerSec`] = ratio(o?.reqPerSec, p?.reqPerSec);
    derived[`peers${key}P99`] = ratio(o?.p99Ms, p?.p99Ms);
    derived[`peers${key}Cpu`] = ratio(o?.cpuUsPerRequest, p?.cpuUsPerRequest);
  }
  return derived;
}

/** The table and the derived figures, on stdout. */
export function printReport(state: BenchState, derived: Record<string, number | null>): void {
  printTable(state.rows);
  printDerived(state, derived);
}

/** One line a row, then each row's notes and failures. */
function printTable(rows: Row[]): void {
  const header = ['scenario', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'bytes', 'cpu µs/req', 'x baseline'];
  const lines = rows.map((r) =>
    r.error
      ? [r.scenario, String(r.connections), 'FAILED', '-', '-', '-', '-', '-', '-']
      : [
          r.scenario,
          String(r.connections),
          String(r.reqPerSec),
          r.p50Ms.toFixed(2),
          r.p99Ms.toFixed(2),
          String(r.errors),
          String(r.bytesPerResponse),
          r.cpuUsPerRequest === null ? '-' : String(r.cpuUsPerRequest),
          r.ratio === undefined ? '-' : r.ratio.toFixed(3),
        ],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${lines.map(fmt).join('\n')}`);
  for (const r of rows)
    if (r.notes)
      console.log(
        `  ${r.scenario}: ${Object.entries(r.notes)
          .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : v}`)
          .join(', ')}`,
      );
  for (const r of rows) {
    if (!r.error) continue;
    const l = r.error
      .split('\n')
      .map((x) => x.trim())
      .filter(Boolean);
    console.log(`  ${r.scenario}: FAILED: ${l[0]}${l.length > 1 ? ` … ${l[l.length - 1]}` : ''}`);
  }
}

/** The ratios against their targets, instruction counts, start-up times and memory. */
function printDerived(state: BenchState, derived: Record<string, number | null>): void {
  const { startup, memory, instructions } = state;
  if (derived.overheadP50Ms != null)
    console.log(
      `  gateway overhead at p50 (${opts.connections} conns, uncached - direct): ${derived.overheadP50Ms} ms; req/s uncached/direct: ` +
        `${derived.uncachedVsDirect}`,
    );
  if (derived.overheadP50MsOneConnection != null)
    console.log(`  gateway overhead at p50 (1 connection): ${derived.overheadP50MsOneConnection} ms`);
  if (derived.uncachedVsMeshStart != null)
    console.log(`  uncached gateway / mesh start req/s: ${derived.uncachedVsMeshStart.toFixed(2)} (target >= 2)`);
  if (PEER_PAIRS.some(([key]) => derived[`peers${key}ReqPerSec`] != null)) {
    console.log(`  ours / Hive Gateway, medians of ${opts.rounds} interleaved rounds (req/s higher is better; p99 and CPU lower):`);
    for (const [key, ours, peer] of PEER_PAIRS) {
      const f = (k: string) => derived[`peers${key}${k}`]?.toFixed(2) ?? '-';
      console.log(`    ${`${ours} / ${peer}`.padEnd(40)} req/s ${f('ReqPerSec')}×  p99 ${f('P99')}×  CPU µs/req ${f('Cpu')}×`);
    }
  }
  if (derived.cachedVsFloor != null) console.log(`  cached / floor req/s: ${derived.cachedVsFloor} (one load each)`);
  if (derived.cachedVsFloorInRounds != null)
    console.log(`  cached / floor req/s, medians of ${opts.rounds} interleaved rounds: ${derived.cachedVsFloorInRounds} (target >= 0.80)`);
  if (derived.logCpuUsPerHit != null || derived.replayCpuUsPerHit != null)
    console.log(
      `  CPU a hit spends on its request log line: ${derived.logCpuUsPerHit ?? '-'} µs; on its replay record: ${derived.replayCpuUsPerHit ?? '-'} µs`,
    );
  if (derived.missStormVsUncached != null) console.log(`  miss-storm / uncached req/s: ${derived.missStormVsUncached} (target >= 3)`);
  if (derived.profileUncachedSlowdown != null) {
    console.log(
      `  plain / profile req/s: uncached ${derived.profileUncachedSlowdown} (target <= 1.5), cached ${derived.profileCachedSlowdown ?? '-'}`,
    );
  }
  if (instructions.floor) {
    const of = (n: string) =>
      instructions[n]
        ? `${instructions[n]!.toLocaleString('en-US')} (${(instructions.floor! / instructions[n]!).toFixed(2)}× the floor's rate)`
        : '-';
    console.log(
      `  instructions per request (callgrind, 1 connection; main thread and libuv's pool): floor ` +
        `${instructions.floor.toLocaleString('en-US')}; cached ${of('cached')}; no log line ${of('cached/no-log')}; no replay ${of('cached/no-replay')}`,
    );
    if (instructions.cached && instructions['cached/no-log'] && instructions['cached/no-replay'])
      console.log(
        `  instructions a hit spends on its request log line: ` +
          `${(instructions.cached - instructions['cached/no-log']).toLocaleString('en-US')}; on its replay record: ` +
          `${(instructions.cached - instructions['cached/no-replay']).toLocaleString('en-US')}`,
      );
  }
  if (startup.ms.length)
    console.log(`  start-up to /healthz 200 (${opts.runner}): ${startup.ms.join(', ')} ms (max ${Math.max(...startup.ms)})`);
  for (const [k, m] of Object.entries(memory)) {
    const settled = m.settleSeconds ? `; ${m.settledRssMb} MB after ${m.settleSeconds} s idle` : '';
    console.log(
      `  ${k} RSS after its scenarios: ${m.rssMb} MB (peak ${m.peakRssMb} MB; V8 heap used ${m.heapUsedMb ?? '?'} of ${m.heapTotalMb ?? '?'} ` +
        `MB, external ${m.externalMb ?? '?'} MB${settled})`,
    );
  }
}

/** bench/results/<start time>.json: the settings, every row and the derived figures. */
export function writeResults(started: Date, state: BenchState, derived: Record<string, number | null>): void {
  const { rows, startup, memory, instructions } = state;
  const dir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  const doc = {
    startedAt: started.toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      memoryMb: Math.round(os.totalmem() / 1048576),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    settings: {
      ...opts,
      only: [...only],
      query: QUERY,
      variables: { zipCode: opts.zip },
      ...(only.has('mesh') || only.has('peers') ? { meshQuery: MESH_QUERY, meshVariables: { zip: opts.zip } } : {}),
    },
    scenarios: rows,
    derived,
    startup,
    memory,
    instructions,
  };
  fs.writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`\n  results: ${path.relative(ROOT, file)}`);
}
