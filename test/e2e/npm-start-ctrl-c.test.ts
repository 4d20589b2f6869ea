// One Ctrl-C on `npm start`: the terminal sends SIGINT to the whole process group (npm, the
// gateway, the playground and admin processes) and npm relays it to the gateway once more. The
// gateway drains once and exits 0, with no "second shutdown request" warning, and takes the
// playground and admin processes (the bundle's own entry, dist/admin.mjs) down.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { freshCopy } from '../../scripts/harness/fresh-copy.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('npm start and one Ctrl-C', () => {
  it('drains once, cleanly, with the playground and admin processes', { timeout: 180_000 }, async () => {
    const ports: Record<string, number> = {};
    for (const name of [
      'PRODUCTION_PORT',
      'CERTIFICATION_PORT',
      'PLAYGROUND_PORT',
      'UPSTREAM_PORT',
      'OPS_PORT',
      'PLAYGROUND_OPS_PORT',
      'ADMIN_PORT',
    ])
      ports[name] = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-ctrlc-'));
    // npm start builds dist/ first: in a copy of its own, so it never rewrites the checkout's bundle
    // while another test runs it. The copy gets the bundle the global setup built from the same
    // sources, so its build step finds it up to date (as a second `npm start` does) instead of
    // bundling again; what is tested is the Ctrl-C.
    const copy = freshCopy(ROOT, 'epg-ctrlc-copy-');
    fs.cpSync(path.join(ROOT, 'dist'), path.join(copy.dir, 'dist'), { recursive: true });
    // detached: a process group of its own, as a terminal's foreground job.
    const npm = spawn('npm', ['start'], {
      cwd: copy.dir,
      detached: true,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATA_DIR: dataDir,
        ADMIN_TOKEN: 'admin-token-for-ctrl-c-0123456789abcdef',
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    try {
      for (const port of [ports.PRODUCTION_PORT, ports.PLAYGROUND_PORT])
        await eventually(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status === 200, 150_000, 250);
      const signIn = `http://127.0.0.1:${ports.ADMIN_PORT}/console/sign-in`;
      await eventually(async () => (await fetch(signIn).catch(() => null))?.status === 200, 30_000, 250);
      process.kill(-npm.pid!, 'SIGINT');
      expect(await exited).toBe(0);
    } finally {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
      copy.remove();
    }
    expect(out).toContain('shut down cleanly');
    expect(out).not.toContain('second shutdown request');
    // Every process drained once: the keyed one, the playground one and the admin one.
    expect(out.match(/shut down cleanly/g)).toHaveLength(3);
    // Nothing listens any more.
    expect(await fetch(`http://127.0.0.1:${ports.PLAYGROUND_PORT}/healthz`).catch(() => null)).toBeNull();
    expect(await fetch(`http://127.0.0.1:${ports.ADMIN_PORT}/console/sign-in`).catch(() => null)).toBeNull();
  });
});
