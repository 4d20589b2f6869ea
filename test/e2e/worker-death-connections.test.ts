// WORKERS=2, kill -9 a worker while partners open one new connection per request: node:cluster's
// primary accepts each connection and hands it to a worker, keeping its own copy until the worker
// acknowledges it. A worker that dies with a connection in that hand-off never acknowledges, and the
// primary's copy kept the client's socket open, unanswered, for as long as the primary ran. Every
// request must be answered, or its socket closed, within one headers timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { issueKey } from '../../stores/key-store.js';
import { alive, spawnMain, type Spawned } from '../support/main-process.js';

const HEADERS_TIMEOUT_MS = 10_000;
const KILLS = 3;
const CLIENTS = 6;

/** One keyed request on a connection of its own: its status, 'closed' (reset or ended unanswered), or 'hung'. */
function oneConnectionRequest(port: number, key: string): Promise<number | 'closed' | 'hung'> {
  const body = JSON.stringify({ query: '{ utilities(zipCode: "75001") { id } }' });
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/graphql',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
        res.on('error', () => resolve('closed'));
      },
    );
    // Neither answered nor closed within one headers timeout (the default: long enough that a busy
    // machine's slow answers are not mistaken for one left open).
    const hung = setTimeout(() => {
      resolve('hung');
      req.destroy();
    }, HEADERS_TIMEOUT_MS);
    req.on('close', () => clearTimeout(hung));
    req.on('error', () => resolve('closed'));
    req.end(body);
  });
}

/** The processes the primary forked (its workers: the playground process is off, the upstream in process). */
function childPids(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

describe('WORKERS=2: a dead worker leaves no connection unanswered and open', () => {
  let redis: TestRedis;
  let s: Spawned;
  let key: string;
  let port = 0;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-worker-death-'));

  beforeAll(async () => {
    redis = await startTestRedis();
    const keysFile = path.join(dataDir, 'keys.json');
    key = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
    port = await freePort();
    s = spawnMain({
      WORKERS: '2',
      REDIS_URL: redis.url,
      // One new connection per request, as fast as the workers answer: no partner quota in the way.
      PARTNER_QUOTA_DEFAULT: 'unlimited',
      DATA_DIR: dataDir,
      KEYS_FILE: keysFile,
      LOG_LEVEL: 'info',
      PLAYGROUND_PROCESS: 'off',
      PRODUCTION_PORT: String(port),
      CERTIFICATION_PORT: String(await freePort()),
      PLAYGROUND_PORT: String(await freePort()),
      UPSTREAM_PORT: String(await freePort()),
      OPS_PORT: String(await freePort()),
      KEYED_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      SHUTDOWN_GRACE_MS: '1000',
    });
    await eventually(async () => s.lines.some((l) => l.msg === 'workers ready') || s.proc.exitCode !== null, 300_000, 250);
    if (s.proc.exitCode !== null) throw new Error(`the gateway exited: ${s.stderr()}`);
  }, 320_000);

  afterAll(async () => {
    const workers = s ? childPids(s.proc.pid!) : [];
    if (s?.proc.exitCode === null) s.proc.kill('SIGKILL');
    for (const pid of workers) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await redis?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`${KILLS} kill -9s under one new connection per request: every request answered or its socket closed`, async () => {
    let stop = false;
    const outcomes: (number | 'closed' | 'hung')[] = [];
    const clients = Array.from({ length: CLIENTS }, async () => {
      while (!stop) outcomes.push(await oneConnectionRequest(port, key));
    });
    const killed: number[] = [];
    // Each kill while the other worker serves: a worker killed mid-hand-off leaves its connection
    // with the primary. (Replacements are not waited for: with no worker listening, the primary
    // closes the port, and a refused connection is closed, not left open.)
    for (let i = 0; i < KILLS; i++) {
      await eventually(async () => childPids(s.proc.pid!).length >= 1, 30_000, 100);
      const answered = outcomes.filter((o) => o === 200).length;
      await eventually(async () => outcomes.filter((o) => o === 200).length > answered + 20, 120_000, 100);
      const victim = childPids(s.proc.pid!)[0]!;
      process.kill(victim, 'SIGKILL');
      killed.push(victim);
      await eventually(async () => s.lines.some((l) => l.msg === 'worker exited: starting it again' && l.pid === victim), 10_000, 50);
    }
    // Let every request in flight finish or time out.
    await new Promise((r) => setTimeout(r, HEADERS_TIMEOUT_MS + 2000));
    stop = true;
    await Promise.all(clients);
    expect(killed).toHaveLength(KILLS);
    const counts: Record<string, number> = {};
    for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
    expect(counts.hung, JSON.stringify(counts)).toBeUndefined();
    expect(outcomes.filter((o) => o !== 200 && o !== 'closed' && o !== 'hung')).toEqual([]);
    expect(outcomes.filter((o) => o === 200).length).toBeGreaterThan(50);
  }, 600_000);
});
