// `npm run config:check`: the settings table's checks without starting anything.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundled } from '../support/bundles.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const check = (env: Record<string, string>) =>
  spawnSync(process.execPath, [bundled('check-config')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('npm run config:check', () => {
  it('passes on the defaults and warns about a variable that looks like a misspelt setting', () => {
    const r = check({ KEYED_MAX_DEPHT: '3' });
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('configuration ok');
    expect(r.stderr).toContain('warning: KEYED_MAX_DEPHT is not a setting of the gateway');
    expect(JSON.parse(r.stdout).ports.production).toBe(4000);
  });

  it('fails naming every bad variable and what it accepts, without a stack trace or a secret', () => {
    const r = check({ KEYED_MAX_DEPTH: '99', REPLAY_RETENTION: 'soon', ADMIN_TOKEN: 'hunter2' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('KEYED_MAX_DEPTH must be an integer from 2 to 50, got "99"');
    expect(r.stderr).toContain('REPLAY_RETENTION must be a duration like 30m, 12h or 7d');
    expect(r.stderr).toContain('ADMIN_TOKEN must be at least 24 characters');
    expect(r.stderr).not.toContain('hunter2');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('shows a cluster or sentinel REDIS_URL by topology and hosts, never its password; a bad one fails naming REDIS_URL', () => {
    const cluster = check({ REDIS_URL: 'redis-cluster://u:hunter2@127.0.0.1:7001,127.0.0.1:7002' });
    expect(cluster.status).toBe(0);
    expect(JSON.parse(cluster.stdout).redis).toBe('redis-cluster://127.0.0.1:7001,127.0.0.1:7002');
    expect(cluster.stdout + cluster.stderr).not.toContain('hunter2');
    const bad = check({ REDIS_URL: 'http://u:hunter2@127.0.0.1:6379' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(
      'REDIS_URL must use redis, rediss, redis-cluster, rediss-cluster, redis-sentinel, rediss-sentinel, got "http:"',
    );
    expect(bad.stderr).not.toContain('hunter2');
  });
});
