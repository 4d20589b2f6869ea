// Support searches read whole units of replay storage (a Redis chunk of up to 500 records, or an
// embedded segment file): inflating and parsing one is several milliseconds of CPU in one step.
// On the thread that serves partners, a few concurrent 7-day searches raised keyed p99 well past its
// target (docs/benchmark.md, "Searches on a scan thread"). So the unpacking, parsing and filtering run on one
// worker thread per process, at a lower CPU priority (SCAN_THREAD_NICE): the serving thread only
// fetches the stored bytes and receives the matching records. One thread, one unit at a time, at
// most half a core (SCAN_THREAD_DUTY): the console's share of the machine is bounded whatever the
// number of searches (they queue and take longer).
// A thread that cannot start or dies is replaced on the next unit; after three failures in a row
// the units are read on the calling thread, as before, and `fallbacks` counts them.
import { Worker } from 'node:worker_threads';
import fsp from 'node:fs/promises';
import type { ReplayQuery } from './replay-match.js';
import type { ReplayRecord } from './replay-record.js';
import { SCAN_THREAD_NICE, scanUnit, type ScanJob, type ScanResponse } from './scan-job.js';

const MAX_FAILURES = 3;

interface Pending {
  resolve(records: ReplayRecord[]): void;
  reject(err: Error): void;
}

class ThreadGone extends Error {}

class ScanThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failures = 0;
  /** Units read on the calling thread because the scan thread could not run. */
  fallbacks = 0;
  /** Units the scan thread read. */
  scanned = 0;
  /** false: every unit is read on the calling thread (the benchmark's comparison, bench/console-scan.ts). */
  enabled = true;

  /** The records of one deflated Redis chunk that match `query`. */
  chunk(stored: Buffer, query: ReplayQuery, summary = false): Promise<ReplayRecord[]> {
    // Copied to the thread (a deflated chunk is small), kept here for a scan that fails.
    return this.run({ kind: 'chunk', data: stored, query, summary });
  }

  /** The records of one embedded segment file that match `query`. */
  lines(path: string, query: ReplayQuery, summary = false): Promise<ReplayRecord[]> {
    return this.run({ kind: 'lines', path, query, summary });
  }

  private async run(job: ScanJob): Promise<ReplayRecord[]> {
    const worker = this.enabled && this.failures < MAX_FAILURES ? this.start() : null;
    if (!worker) return this.inline(job);
    const id = this.nextId++;
    const records = new Promise<ReplayRecord[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    // Held open while it has work (a CLI process may have nothing else), let go when idle.
    if (this.pending.size === 1) worker.ref();
    worker.postMessage({ ...job, id });
    try {
      return await records;
    } catch (err) {
      // A unit the thread could not read (corrupt) fails as it would here; a thread gone is replaced.
      if (err instanceof ThreadGone) return this.inline(job);
      throw err;
    }
  }

  private start(): Worker | null {
    if (this.worker) return this.worker;
    let worker: Worker;
    try {
      worker = new Worker(...workerScript());
    } catch {
      this.failures++;
      return null;
    }
    worker.on('message', (reply: ScanResponse) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      this.failures = 0;
      this.scanned++;
      if ('error' in reply) p.reject(new Error(reply.error));
      else p.resolve(reply.records);
    });
    const fail = (err: ThreadGone) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failures++;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', (err) => fail(new ThreadGone(err.message)));
    worker.on('exit', (code) => fail(new ThreadGone(`scan thread exited (${code})`)));
    worker.unref();
    return (this.worker = worker);
  }

  /** The unit read on this thread: a unit whose scan failed, or every unit once the thread cannot run. */
  private async inline(job: ScanJob): Promise<ReplayRecord[]> {
    this.fallbacks++;
    const text = job.kind === 'lines' ? await fsp.readFile(job.path, 'utf8').catch(() => '') : '';
    return scanUnit(job, () => text);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }
}

/**
 * The worker's file beside this module: scan-worker.mjs in the bundle (dist/, built by
 * scripts/build.mjs), scan-worker.ts from the sources (tests, tsx), loaded through tsx.
 */
function workerScript(): [URL, { execArgv: string[]; workerData: { nice: number } }] {
  const fromSources = import.meta.url.endsWith('.ts');
  return [
    new URL(fromSources ? './scan-worker.ts' : './scan-worker.mjs', import.meta.url),
    { execArgv: fromSources ? ['--import', 'tsx'] : [], workerData: { nice: SCAN_THREAD_NICE } },
  ];
}

/** The process's scan thread, started on the first unit a search reads. */
export const scanThread = new ScanThread();
