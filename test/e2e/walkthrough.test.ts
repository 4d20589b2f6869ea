// The newcomer's first hour, in CI: scripts/docs/walkthrough.ts follows README.md, docs/partners.md
// and docs/adding-a-feed.md step by step on a fresh copy of the repository (every command block,
// servers started and stopped with one Ctrl-C, the playground allowance left with calls to spare).
// Its step-by-step log is printed, so a failing step is named with its page and line.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the walkthrough of README.md, docs/partners.md and docs/adding-a-feed.md', () => {
  it('runs every step on a fresh copy', { timeout: 900_000 }, async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/docs/walkthrough.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
    console.info(out);
    expect(out).toMatch(/walkthrough: \d+ steps, all passed/);
    expect(code).toBe(0);
  });
});
