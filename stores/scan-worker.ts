// The scan thread's code (see scan-thread.ts): unpacks and parses one unit of replay storage (a
// Redis chunk or an embedded segment file) and returns the records a search wants. It runs at a
// lower CPU priority than the thread that serves partners, first thing, and after each unit rests
// as long as the unit took: at most half a core for support searches, however many queue up (a
// lower priority alone still lets it take a whole core that partners' requests then wait behind).
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { SCAN_THREAD_DUTY, scanUnit, type ScanRequest, type ScanResponse } from './scan-job.js';

lowerOwnPriority(Number((workerData as { nice?: number } | undefined)?.nice));

const rest = new Int32Array(new SharedArrayBuffer(4));

parentPort!.on('message', (job: ScanRequest) => {
  const started = performance.now();
  let reply: ScanResponse;
  try {
    reply = { id: job.id, records: scanUnit(job, readText) };
  } catch (err) {
    reply = { id: job.id, error: (err as Error)?.message ?? String(err) };
  }
  parentPort!.postMessage(reply);
  // Wall time, not CPU time: a thread kept waiting by a busy machine rests longer.
  Atomics.wait(rest, 0, 0, (performance.now() - started) * (1 / SCAN_THREAD_DUTY - 1));
});

/** A segment deleted by retention since it was listed reads as empty. */
function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** On Linux a niceness belongs to a thread: this one's, through its id in /proc/thread-self. */
function lowerOwnPriority(nice: number): void {
  if (!Number.isInteger(nice) || nice <= 0 || nice > 19) return;
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
  } catch {
    // Not Linux, or not allowed: the scan runs at the process's priority.
  }
}
