// The playground process's niceness holds for every thread it has, not only its main thread (Linux
// keeps a niceness per thread): server/playground-process.ts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { playgroundProcessEnv } from '../../server/playground-process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const linux = fs.existsSync('/proc/self/task');

function threadPriorities(env: NodeJS.ProcessEnv): { main: number; threads: number[] } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/thread-priorities.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`thread-priorities failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('the playground process priority', () => {
  it('the parent passes the niceness to the child', () => {
    const env = playgroundProcessEnv({}, 'http://127.0.0.1:1', { enabled: true, opsPort: 9465, nice: 7, workers: 3 });
    expect(env.PLAYGROUND_CHILD_NICE).toBe('7');
    // PLAYGROUND_WORKERS: the playground process's own cluster size.
    expect(env.WORKERS).toBe('3');
  });

  it.skipIf(!linux)('every thread of the child, those started before and after it is applied, gets it', () => {
    const own = os.getPriority(0);
    const nice = Math.min(19, own + 5);
    const { main, threads } = threadPriorities({ PLAYGROUND_CHILD_NICE: String(nice) });
    expect(main).toBe(nice);
    expect(threads.length).toBeGreaterThan(3);
    expect(threads.every((n) => n === nice)).toBe(true);
  });

  it.skipIf(!linux)('a process that is not the playground child keeps its priority', () => {
    const own = os.getPriority(0);
    const { threads } = threadPriorities({});
    expect(threads.every((n) => n === own)).toBe(true);
  });
});
