// `npm start` runs the keyless playground in a process of its own at a lower CPU priority, so a
// playground flood cannot queue partners' requests on one event loop. The real entry point, as a child process: its playground child is found by the
// pid it logs, killed, started again by the parent, and taken down with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Started {
  proc: ChildProcess;
  lines: Record<string, unknown>[];
  ports: { production: number; certification: number; playground: number; upstream: number; ops: number; playgroundOps: number };
  exited: Promise<number | null>;
}

async function startMain(extra: Record<string, string> = {}): Promise<Started> {
  const ports = {
    production: await freePort(),
    certification: await freePort(),
    playground: await freePort(),
    upstream: await freePort(),
    ops: await freePort(),
    playgroundOps: await freePort(),
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-split-'));
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      PRODUCTION_PORT: String(ports.production),
      CERTIFICATION_PORT: String(ports.certification),
      PLAYGROUND_PORT: String(ports.playground),
      UPSTREAM_PORT: String(ports.upstream),
      OPS_PORT: String(ports.ops),
      PLAYGROUND_OPS_PORT: String(ports.playgroundOps),
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let rest = '';
  proc.stdout!.on('data', (d: Buffer) => {
    const parts = (rest + d.toString()).split('\n');
    rest = parts.pop()!;
    for (const l of parts) {
      try {
        lines.push(JSON.parse(l));
      } catch {
        // not a log line
      }
    }
  });
  proc.stderr!.resume();
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, lines, ports, exited };
}

const up = async (port: number) => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status === 200;
const utilities = (port: number) =>
  fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ utilities(zipCode: "75001") { id } }' }),
  });

/**
 * startMain, until both listeners are ours: free ports are found, then bound, and another test
 * process may take one in between (EADDRINUSE), when its own listener would answer in ours' place.
 */
async function startListening(extra: Record<string, string> = {}): Promise<Started> {
  for (let attempt = 1; ; attempt++) {
    const started = await startMain(extra);
    const listening = (environment: string, port: number) =>
      started.lines.some((l) => l.msg === 'listening' && l.environment === environment && String(l.url).includes(`:${port}/`));
    const taken = () => started.lines.some((l) => /EADDRINUSE/.test(JSON.stringify(l)));
    await eventually(
      async () =>
        taken() ||
        (listening('production', started.ports.production) &&
          listening('playground', started.ports.playground) &&
          (await up(started.ports.production)) &&
          (await up(started.ports.playground))),
      120_000,
      250,
    );
    if (!taken()) return started;
    started.proc.kill('SIGKILL');
    await started.exited;
    if (attempt >= 3) throw new Error('a port was taken by another process three times in a row');
  }
}

describe('npm start: the playground in a process of its own', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startListening();
  });
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
    const child = playgroundPids().at(-1)!;
    s.proc.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    await eventually(
      async () => {
        try {
          process.kill(child, 0);
          return false;
        } catch {
          return true;
        }
      },
      20_000,
      100,
    );
  });
});

describe('PLAYGROUND_PROCESS=off', () => {
  it('keeps every environment in one process', async () => {
    const s = await startListening({ PLAYGROUND_PROCESS: 'off' });
    try {
      expect(s.lines.some((l) => l.msg === 'playground process started')).toBe(false);
    } finally {
      s.proc.kill('SIGTERM');
      await s.exited;
    }
  });
});
