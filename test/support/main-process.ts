// The gateway as `npm start` runs it (dist/gateway.mjs, built by the global setup) as a child process on free ports, its JSON log lines
// collected: for the tests of its helper processes (playground, admin).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { expect } from 'vitest';
import { bundled, ROOT } from './bundles.js';

/** The gateway spawned, its JSON log lines collected and its stderr kept. */
export interface Spawned {
  proc: ChildProcess;
  lines: Record<string, unknown>[];
  stderr: () => string;
  exited: Promise<number | null>;
}

export interface Started extends Spawned {
  ports: {
    production: number;
    certification: number;
    playground: number;
    upstream: number;
    ops: number;
    playgroundOps: number;
    admin: number;
  };
  dataDir: string;
}

export function spawnMain(env: Record<string, string>): Spawned {
  const proc = spawn(process.execPath, [bundled('gateway')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
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
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, lines, stderr: () => err, exited };
}

/** On free ports, with a data directory of its own unless given one. */
export async function startMain(
  extra: Record<string, string> = {},
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-split-')),
): Promise<Started> {
  const ports = {
    production: await freePort(),
    certification: await freePort(),
    playground: await freePort(),
    upstream: await freePort(),
    ops: await freePort(),
    playgroundOps: await freePort(),
    admin: await freePort(),
  };
  const spawned = spawnMain({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    PRODUCTION_PORT: String(ports.production),
    CERTIFICATION_PORT: String(ports.certification),
    PLAYGROUND_PORT: String(ports.playground),
    UPSTREAM_PORT: String(ports.upstream),
    OPS_PORT: String(ports.ops),
    PLAYGROUND_OPS_PORT: String(ports.playgroundOps),
    ADMIN_PORT: String(ports.admin),
    ...extra,
  });
  return { ...spawned, ports, dataDir };
}

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGTERM to the parent: it exits 0 and takes its helper process `child` down with it. */
export async function stopsCleanly(s: Spawned, child: number): Promise<void> {
  s.proc.kill('SIGTERM');
  expect(await s.exited).toBe(0);
  await eventually(async () => !alive(child), 20_000, 100);
}

export const up = async (port: number) => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status === 200;
export const utilities = (port: number) =>
  fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ utilities(zipCode: "75001") { id } }' }),
  });

/**
 * startMain, until both listeners (and the admin listener, with ADMIN_TOKEN) are ours: free ports are found, then bound, and another test
 * process may take one in between (EADDRINUSE), when its own listener would answer in ours' place.
 */
export async function startListening(extra: Record<string, string> = {}, dataDir?: string): Promise<Started> {
  for (let attempt = 1; ; attempt++) {
    const started = await startMain(extra, dataDir);
    const listening = (environment: string, port: number) =>
      started.lines.some((l) => l.msg === 'listening' && l.environment === environment && String(l.url).includes(`:${port}/`));
    // A taken port stops the start with exit 78 (the message on stderr), or is logged.
    const taken = () => started.proc.exitCode === 78 || started.lines.some((l) => /EADDRINUSE/.test(JSON.stringify(l)));
    const admin = () => !extra.ADMIN_TOKEN || started.lines.some((l) => l.msg === 'admin endpoint listening');
    await eventually(
      async () =>
        taken() ||
        (admin() &&
          listening('production', started.ports.production) &&
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
