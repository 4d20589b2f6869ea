// Replay records of answered requests outlive the process: a real gateway process under keyed
// load keeps every record on SIGTERM, and on kill -9 loses only records of requests answered
// within the last flush interval (50 ms) plus the write in flight (docs/operations.md).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { startReferenceUpstream, type ReferenceUpstream } from '../../sources/reference-upstream/server.js';
import { issueKey } from '../../stores/key-store.js';
import { loadConfig } from '../../start/config.js';
import { createReplayStore } from '../../stores/replay-store.js';
import { useTestRedis } from '../support/redis-suite.js';
import { bundled } from '../support/bundles.js';

const FLUSH_MS = 50;
// The write in flight when the process dies, and the client seeing its answer after the gateway queued the record.
const WRITE_SLACK_MS = 40;
const QUERY = JSON.stringify({ query: '{ utilities(zipCode: "75001") { id } }' });

const db = useTestRedis();
let upstream: ReferenceUpstream;
let dir: string;
let key: string;

beforeAll(async () => {
  upstream = await startReferenceUpstream({ port: 0 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-durable-'));
  key = (await issueKey(path.join(dir, 'keys.json'), { environment: 'production', partnerCode: 'ACME' })).key;
}, 60_000);
afterAll(async () => {
  await upstream?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function startGatewayProcess(): Promise<{ proc: ChildProcess; url: string }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [bundled('gateway')], {
    env: {
      PATH: process.env.PATH,
      ENVIRONMENTS: 'production',
      PRODUCTION_PORT: String(port),
      OPS_PORT: '0',
      PLAYGROUND_PROCESS: 'false',
      UPSTREAM_URL: upstream.url,
      REDIS_URL: db.redis.url,
      KEYS_FILE: path.join(dir, 'keys.json'),
      DATA_DIR: dir,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}/graphql`;
  await eventually(
    async () => {
      try {
        return (await fetch(url.replace('/graphql', '/readyz'))).status === 200;
      } catch {
        return false;
      }
    },
    60_000,
    200,
  );
  return { proc, url };
}

/** Keyed load on 8 connections until `stop`; every answered request id with the time its answer arrived. */
function load(url: string) {
  const answered: { id: string; at: number }[] = [];
  let stopped = false;
  let n = 0;
  const worker = async () => {
    while (!stopped) {
      const id = `durable-${process.pid}-${n++}-${Date.now()}`;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-request-id': id },
          body: QUERY,
        });
        await res.text();
        if (res.status === 200) answered.push({ id, at: Date.now() });
      } catch {
        // the process went away
      }
    }
  };
  const workers = Array.from({ length: 8 }, worker);
  return {
    answered,
    async stop() {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

/** Until the process has answered more than 100 requests (the run the test judges), whatever the machine's speed. */
const underLoad = (l: ReturnType<typeof load>) => eventually(async () => l.answered.length > 100, 60_000, 50);

async function missing(ids: string[]): Promise<Set<string>> {
  const store = createReplayStore({ redis: db.client, dataDir: dir, settings: loadConfig({ REDIS_URL: db.redis.url }).cacheReplay.replay });
  try {
    const gone = new Set<string>();
    for (const id of ids) if (!(await store.get(id, 'production'))) gone.add(id);
    return gone;
  } finally {
    await store.close();
  }
}

describe('replay records survive the process', () => {
  it('SIGTERM under keyed load: every answered request has its record', async () => {
    const g = await startGatewayProcess();
    const l = load(g.url);
    await underLoad(l);
    const exited = new Promise((r) => g.proc.once('exit', r));
    g.proc.kill('SIGTERM');
    await exited;
    await l.stop();
    expect(l.answered.length).toBeGreaterThan(100);
    const gone = await missing(l.answered.map((a) => a.id));
    expect([...gone]).toEqual([]);
  }, 120_000);

  it(`kill -9 under keyed load: only records answered in the last ${FLUSH_MS} ms (+${WRITE_SLACK_MS} ms) may be lost`, async () => {
    const g = await startGatewayProcess();
    const l = load(g.url);
    await underLoad(l);
    const exited = new Promise((r) => g.proc.once('exit', r));
    const killedAt = Date.now();
    g.proc.kill('SIGKILL');
    await exited;
    await l.stop();
    const gone = await missing(l.answered.map((a) => a.id));
    const lost = l.answered.filter((a) => gone.has(a.id)).map((a) => killedAt - a.at);
    expect(l.answered.length).toBeGreaterThan(100);
    expect(
      Math.max(0, ...lost),
      `lost ${lost.length} of ${l.answered.length}, answered ${lost.join(', ')} ms before the kill`,
    ).toBeLessThanOrEqual(FLUSH_MS + WRITE_SLACK_MS);
  }, 120_000);
});
