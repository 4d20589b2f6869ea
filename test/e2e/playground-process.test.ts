// `npm start` runs the keyless playground in a process of its own at a lower CPU priority, so a
// playground flood cannot queue partners' requests on one event loop. The real entry point, as a child process: its playground child is found by the
// pid it logs, killed, started again by the parent, and taken down with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import { eventually } from '../../scripts/harness/eventually.js';
import { startListening, stopsCleanly, up, utilities, type Started } from '../support/main-process.js';

describe('npm start: the playground in a process of its own', () => {
  let s: Started;
  // startListening waits up to 120 s for both processes on a busy machine.
  beforeAll(async () => {
    s = await startListening();
  }, 180_000);
  afterAll(() => {
    if (s?.proc.exitCode === null) s.proc.kill('SIGKILL');
  });

  const playgroundPids = () => s.lines.filter((l) => l.msg === 'playground process started').map((l) => Number(l.pid));

  it('serves the playground from a child process at a lower priority, the keyed environments from the parent', async () => {
    const [pid] = playgroundPids();
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(s.proc.pid);
    expect(os.getPriority(pid!)).toBe(10);
    // Linux keeps a niceness per thread: every thread of it, not only the main one.
    if (fs.existsSync(`/proc/${pid}/task`)) {
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) expect(os.getPriority(Number(tid))).toBe(10);
    }
    const play = await utilities(s.ports.playground);
    expect(play.status).toBe(200);
    expect(play.headers.get('x-ratelimit-remaining')).toBe('9');
    // The playground's own metrics, on its own ops port.
    expect((await fetch(`http://127.0.0.1:${s.ports.playgroundOps}/metrics`)).status).toBe(200);
    // The keyed environments answer from the parent (a key is needed: 403 without one).
    expect((await utilities(s.ports.production)).status).toBe(403);
    // Neither process warns at start, on any supported Node (Node 25+'s localStorage getter warns
    // when read: lib/no-web-storage.ts); CI runs this file on Node 26 too.
    expect(s.stderr()).not.toMatch(/Warning|\(node:\d+\)/);
  });

  it('runs the playground process with a heap limit derived from its budgets, the keyed process without one', () => {
    const [pid] = playgroundPids();
    const args = (p: number) => fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
    // The defaults: 64 MiB of base heap + 8 (documents) + 1 (persisted queries) + 32 (cache LRU)
    // + 16 (replay queue) + 256 sockets x 64 KiB bodies (16) + 24 (feed answers kept to recognise the same bytes).
    expect(args(pid!)).toEqual(expect.arrayContaining(['--max-old-space-size=161', '--optimize-for-size']));
    expect(args(s.proc.pid!).some((a) => a.startsWith('--max-old-space-size'))).toBe(false);
  });

  it('a playground process that dies is started again; the keyed environments never stop', async () => {
    const [first] = playgroundPids();
    process.kill(first!, 'SIGKILL');
    expect(await up(s.ports.production)).toBe(true);
    await eventually(async () => playgroundPids().length === 2 && (await up(s.ports.playground)), 60_000, 250);
    expect(playgroundPids()[1]).not.toBe(first);
    // The allowance survived the restart (the embedded store's log).
    expect((await utilities(s.ports.playground)).headers.get('x-ratelimit-remaining')).toBe('8');
  });

  it('SIGTERM stops both processes cleanly', async () => {
    await stopsCleanly(s, playgroundPids().at(-1)!);
  });
});

describe('PLAYGROUND_PROCESS=off', () => {
  it('keeps every environment in one process', { timeout: 180_000 }, async () => {
    const s = await startListening({ PLAYGROUND_PROCESS: 'off' });
    try {
      expect(s.lines.some((l) => l.msg === 'playground process started')).toBe(false);
    } finally {
      s.proc.kill('SIGTERM');
      await s.exited;
    }
  });
});
