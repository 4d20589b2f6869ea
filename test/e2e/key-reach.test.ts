// Key changes reach every running instance at once through Redis, and `npm run keys` says how many
// applied them: two gateway instances sharing one keys file and one redis-server. (The same on a
// Redis Cluster: test/e2e/scale-out-cluster.test.ts.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { runKeysCli } from '../../cli/keys.js';
import { eventually } from '../../scripts/harness/eventually.js';

const UTILS = '{ utilities(zipCode: "60601") { id } }';

async function keysCli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string; key: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runKeysCli(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n'), key: out.at(-1) ?? '' };
}

describe('key changes across instances on one Redis', () => {
  let redis: TestRedis;
  let dir: string;
  let keysFile: string;
  let a: TestGateway;
  let b: TestGateway | null;
  const cliEnv = () => ({ KEYS_FILE: keysFile, REDIS_URL: redis.url });
  const status = async (gw: TestGateway, key: string) => (await gw.post('production', UTILS, undefined, { key })).status;

  beforeAll(async () => {
    redis = await startTestRedis();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-key-reach-'));
    keysFile = path.join(dir, 'keys.json');
    a = await startTestGateway({ REDIS_URL: redis.url, KEYS_FILE: keysFile });
    b = await startTestGateway({ REDIS_URL: redis.url, KEYS_FILE: keysFile });
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('issue and revoke: both instances apply the change at once and the CLI says 2 of 2', async () => {
    const issued = await keysCli(['issue', '--env', 'production', '--partner', 'REACH'], cliEnv());
    expect(issued.code).toBe(0);
    expect(issued.err).toMatch(/key change applied by 2 of 2 live instance\(s\)/);
    // stdout's last line is still the key alone.
    expect(issued.key).toMatch(/^epk_live_/);
    expect([await status(a, issued.key), await status(b!, issued.key)]).toEqual([200, 200]);

    const id = /Issued key (key_[0-9a-f]{16})/.exec(issued.err)![1]!;
    const revoked = await keysCli(['revoke', id], cliEnv());
    expect(revoked.code).toBe(0);
    expect(revoked.out).toMatch(new RegExp(`revoked ${id}`));
    expect(revoked.out).toMatch(/key change applied by 2 of 2 live instance\(s\)/);
    // No wait: the instances re-read the file when told, before the CLI returned.
    expect([await status(a, issued.key), await status(b!, issued.key)]).toEqual([403, 403]);
  });

  it('an instance whose keys file lacks the change says so, and is not counted as applied', async () => {
    // Its own keys file: not the one the command writes.
    const c = await startTestGateway({ REDIS_URL: redis.url });
    try {
      const issued = await keysCli(['issue', '--env', 'production', '--partner', 'OTHER'], cliEnv());
      expect(issued.err).toMatch(/applied by 2 of 3 live instance\(s\).*; 1 answered that their keys file does not show the change/);
      expect(await status(c, issued.key)).toBe(403);
      expect(await status(a, issued.key)).toBe(200);
    } finally {
      await c.close();
    }
  });

  it('one instance stopped: 1 of 1; without REDIS_URL the CLI says the file is polled', async () => {
    await b!.close();
    b = null;
    const issued = await keysCli(['issue', '--env', 'production', '--partner', 'SOLO'], cliEnv());
    expect(issued.err).toMatch(/key change applied by 1 of 1 live instance\(s\)/);
    const id = /Issued key (key_[0-9a-f]{16})/.exec(issued.err)![1]!;
    expect(await status(a, issued.key)).toBe(200);
    const revoked = await keysCli(['revoke', id], cliEnv());
    expect(revoked.out).toMatch(/key change applied by 1 of 1 live instance\(s\) using redis:/);
    expect(await status(a, issued.key)).toBe(403);

    const local = await keysCli(['issue', '--env', 'certification', '--partner', 'SOLO'], { KEYS_FILE: keysFile });
    expect(local.code).toBe(0);
    expect(local.err).toMatch(/pick the change up from the keys file within about a second \(no REDIS_URL/);
  });

  it('Redis down: the change is still made, and the CLI says the instances were not told', async () => {
    await redis.stop();
    try {
      const issued = await keysCli(['issue', '--env', 'production', '--partner', 'DOWN'], cliEnv());
      expect(issued.code).toBe(0);
      expect(issued.key).toMatch(/^epk_live_/);
      expect(issued.err).toMatch(
        /The change is in the keys file, but the gateways could not be told through Redis \(.*\): they pick it up from the file within about a second/,
      );
      // The poll of the file still brings it.
      await eventually(async () => (await status(a, issued.key)) === 200, 5000, 100);
    } finally {
      await redis.start();
    }
  });
});
