// The playground process's niceness holds for every thread it has, not only its main thread (Linux
// keeps a niceness per thread): server/playground-process.ts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { playgroundProcessEnv, playgroundV8Flags } from '../../server/playground-process.js';

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

describe('the playground process heap limit', () => {
  const MiB = 1024 * 1024;
  const budgets = {
    documentCacheBytes: 8 * MiB,
    persistedQueryBytes: 1 * MiB,
    cacheLruBytes: 32 * MiB,
    replayQueueBytes: 16 * MiB,
    maxConnections: 256,
    bodyLimitBytes: 64 * 1024,
  };
  const limit = (b: typeof budgets) => Number(/^--max-old-space-size=(\d+)$/.exec(playgroundV8Flags(b)[0]!)![1]);

  it('is the base heap plus every budget the process keeps in its heap', () => {
    // + 24 MiB of feed answers kept to recognise the same bytes (sources/upstream/answer-memo.ts).
    expect(limit(budgets)).toBe(64 + 8 + 1 + 32 + 16 + 16 + 24);
    expect(playgroundV8Flags(budgets)).toEqual(['--max-old-space-size=161', '--optimize-for-size', '--heap-growing-percent=30']);
  });

  it('grows with each budget, rounded up to a whole MiB', () => {
    expect(limit({ ...budgets, cacheLruBytes: 64 * MiB })).toBe(193);
    expect(limit({ ...budgets, replayQueueBytes: 16 * MiB + 1 })).toBe(162);
    expect(limit({ ...budgets, bodyLimitBytes: 1024 * 1024 })).toBe(161 - 16 + 256);
  });

  it('counts 4,096 sockets of bodies when the listener has no socket cap', () => {
    expect(limit({ ...budgets, maxConnections: 0 })).toBe(161 - 16 + 256);
  });
});
