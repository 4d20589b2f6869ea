// Run as a child process by test/unit/playground-priority.test.ts: starts a worker thread (a thread
// created before the helper process's priority is applied, at this process's own), applies it as the
// playground process does first thing, starts another worker, and prints every thread's niceness
// as JSON.
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { applyChildPriority } from '../../server/child-process.js';

const worker = () =>
  new Promise<Worker>((resolve) => {
    const w = new Worker('setInterval(() => {}, 1000)', { eval: true });
    w.once('online', () => resolve(w));
  });

const before = await worker();
applyChildPriority(process.env.PLAYGROUND_CHILD_NICE);
const after = await worker();
const nice = fs.readdirSync('/proc/self/task').map((tid) => os.getPriority(Number(tid)));
process.stdout.write(`${JSON.stringify({ main: os.getPriority(0), threads: nice })}\n`);
await Promise.all([before.terminate(), after.terminate()]);
