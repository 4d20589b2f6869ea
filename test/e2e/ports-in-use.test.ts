// A port already taken stops the start (start/main.ts, as `npm start` runs it) with a message naming
// the variable that moves it, whether the keyed process or the playground process hit it.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/harness/redis-server.js';
import { bundled } from '../support/bundles.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VARIABLES = ['PRODUCTION_PORT', 'CERTIFICATION_PORT', 'PLAYGROUND_PORT', 'UPSTREAM_PORT', 'OPS_PORT', 'PLAYGROUND_OPS_PORT'];

async function startWithTaken(variable: string): Promise<{ code: number | null; stderr: string; port: number }> {
  const holder = net.createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
  const taken = (holder.address() as net.AddressInfo).port;
  const env: Record<string, string> = { PATH: process.env.PATH!, LOG_LEVEL: 'warn' };
  for (const v of VARIABLES) env[v] = String(v === variable ? taken : await freePort());
  env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-ports-'));
  const proc = spawn(process.execPath, [bundled('gateway')], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  holder.close();
  fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  return { code, stderr, port: taken };
}

describe('a port in use', () => {
  it('stops the start, naming the variable (keyed process)', { timeout: 120_000 }, async () => {
    const r = await startWithTaken('CERTIFICATION_PORT');
    expect(r.code).toBe(78);
    expect(r.stderr).toContain(
      `gateway: 127.0.0.1:${r.port} is already in use (CERTIFICATION_PORT): stop what listens there, set CERTIFICATION_PORT`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it(
    'stops the start, naming the variable (the playground process: its parent stops too, no restart loop)',
    { timeout: 120_000 },
    async () => {
      const r = await startWithTaken('PLAYGROUND_OPS_PORT');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`gateway: 127.0.0.1:${r.port} is already in use (PLAYGROUND_OPS_PORT)`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
  );
});
