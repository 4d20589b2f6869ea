// `npm run bench` refuses a bad flag before it starts anything: what is wrong, no stack trace, exit 2.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function bench(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bench flags', () => {
  it.each([
    [['--duration', 'abc'], '--duration must be a positive number, got "abc"'],
    [['--connections', '0'], '--connections must be a positive number'],
    [['--settle', '-1'], '--settle must be a positive number'],
    [['--only', 'cached,nope'], '--only: unknown scenario "nope"'],
    [['--bogus'], 'unknown flag --bogus'],
    [['--runner', 'node'], '--runner must be tsx or dist'],
    [['--zip', '7500'], '--zip must be a 5-digit ZIP code'],
    [['--env', 'REPLAY_ENABLED'], '--env takes NAME=value pairs'],
    [['--tracing', 'off,50%'], '--tracing takes off, 1% and 100% separated by commas, got "50%"'],
    [['--gateway-root', '/nonexistent/checkout'], '/nonexistent/checkout is not a checkout of the gateway'],
    [['--workers', '1,0'], '--workers takes worker counts 1-256 separated by commas (e.g. 1,2,4), got "1,0"'],
    [['--workers', 'two'], '--workers takes worker counts'],
    [['--workers', '1,2', '--only', 'floor'], '--workers runs cached, uncached, playground; --only names none of them'],
  ])('%j is refused', (args, message) => {
    const r = bench(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`bench: ${message}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });
});
