// A rerun (support console or `npm run replay -- rerun`) opens no socket: a process on the gateway
// host that polls /proc/net/tcp for new listeners and posts a keyless `utilityAccounts` query to
// each finds none of this process's and gets no account data, even with the supplier feed slowed
// so that each rerun takes the better part of a second.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { consoleClient } from '../support/console-client.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { startOfferProxy, type OfferProxy } from '../../scripts/harness/offer-proxy.js';
import { startReferenceUpstream, type ReferenceUpstream } from '../../sources/reference-upstream/server.js';
import { issueKey } from '../../stores/key-store.js';
import { runReplayCli } from '../../cli/replay.js';

const ADMIN_TOKEN = 'admin-token-for-rerun-tests-0123456789';
const PLANS = 'query Plans($zip: String!) { residentialPlans(zipCode: $zip, monthlyUsage: 1000) { id price } }';
const ACCOUNTS = '{ utilityAccounts(address: "901 Bagby St", zipCode: "77002") { accountId } }';

let redis: TestRedis;
let upstream: ReferenceUpstream;
let proxy: OfferProxy;
let t: TestGateway;
let admin: string;
let supportKey: string;
let requestId: string;

interface Listener {
  host: string;
  port: number;
  inode: string;
}

/** Listening TCP sockets of the host, as /proc/net/tcp{,6} list them. */
function listeners(): Listener[] {
  const found: Listener[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] !== '0A') continue; // LISTEN
      const [, portHex] = f[1]!.split(':');
      found.push({ host: v6 ? '[::1]' : '127.0.0.1', port: parseInt(portHex!, 16), inode: f[9]! });
    }
  }
  return found;
}

/** Socket inodes this process holds (the gateway under test runs in it). */
function ownSockets(): Set<string> {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/self/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/**
 * The attacker: polls for listeners opened after it started and posts the keyless query to each.
 * Only this process's listeners are probed, so parallel test runs on the host are left alone.
 */
function startProbe() {
  const known = new Set(listeners().map((l) => l.inode));
  const opened: Listener[] = [];
  const answers: { port: number; status: number; body: string }[] = [];
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const fresh = listeners().filter((l) => !known.has(l.inode));
      const own = fresh.length ? ownSockets() : new Set<string>();
      for (const l of fresh) {
        known.add(l.inode);
        if (!own.has(l.inode)) continue;
        opened.push(l);
        try {
          const res = await fetch(`http://${l.host}:${l.port}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: ACCOUNTS }),
            signal: AbortSignal.timeout(5000),
          });
          answers.push({ port: l.port, status: res.status, body: await res.text() });
        } catch {
          // closed before we got there
        }
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    opened,
    answers,
    async stop() {
      stop = true;
      await loop;
    },
  };
}

/** The console's sign-in and rerun, as a browser would post them. */
async function consoleRerun(): Promise<string> {
  const ui = consoleClient(admin);
  expect([302, 303]).toContain(await ui.signIn(supportKey));
  await ui.get(`/console/records/${requestId}`);
  let rerun = await ui.post(`/console/records/${requestId}/rerun`, {});
  if (rerun.status === 303 && rerun.location) rerun = await ui.get(rerun.location);
  expect(rerun.status).toBe(200);
  return rerun.text;
}

beforeAll(async () => {
  redis = await startTestRedis();
  upstream = await startReferenceUpstream({ port: 0 });
  proxy = await startOfferProxy(upstream.url);
  const port = await freePort();
  admin = `http://127.0.0.1:${port}`;
  // The support token is in the keys file before the gateway starts (what this file tests is the rerun).
  const keysFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'epg-rerun-')), 'keys.json');
  supportKey = (await issueKey(keysFile, { environment: 'support', partnerCode: 'alice' })).key;
  t = await startTestGateway({
    UPSTREAM_URL: proxy.url,
    ADMIN_TOKEN,
    ADMIN_PORT: String(port),
    CACHE_ENABLED: 'false',
    KEYS_FILE: keysFile,
    REDIS_URL: redis.url,
  });
  const sent = await t.post('production', PLANS, { zip: '75001' });
  expect(sent.status).toBe(200);
  requestId = sent.headers.get('x-request-id')!;
  await eventually(async () => (await fetch(`${admin}/replay/${requestId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).ok);
  // The keys file is reloaded every second: wait until the support token signs in.
  await eventually(async () => [302, 303].includes(await consoleClient(admin).signIn(supportKey)));
}, 60_000);

afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await upstream?.close();
  await redis?.stop();
});

describe('rerun opens no door', () => {
  it('console reruns with the supplier feed slowed to 800 ms: no new listener, no account data', async () => {
    proxy.delayMs = 800;
    const probe = startProbe();
    try {
      for (let i = 0; i < 3; i++) expect(await consoleRerun()).toMatch(/identical|different/);
    } finally {
      await probe.stop();
      proxy.delayMs = 0;
    }
    expect(probe.answers.filter((a) => a.body.includes('accountId'))).toEqual([]);
    expect(probe.opened).toEqual([]);
  }, 60_000);

  it('`npm run replay -- rerun` executes in process without a listener of its own', async () => {
    proxy.delayMs = 800;
    const probe = startProbe();
    let result: { code: number; out: string[]; err: string[] };
    try {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runReplayCli(
        ['rerun', requestId],
        { ...process.env, LOG_LEVEL: 'silent', REDIS_URL: redis.url, UPSTREAM_URL: proxy.url, DATA_DIR: t.dataDir },
        { out: (l) => out.push(l), err: (l) => err.push(l), raw: () => {} },
      );
      result = { code, out, err };
    } finally {
      await probe.stop();
      proxy.delayMs = 0;
    }
    expect(result.err.join('\n')).toBe('');
    expect(result.code).toBe(0);
    expect(probe.answers.filter((a) => a.body.includes('accountId'))).toEqual([]);
    expect(probe.opened).toEqual([]);
    expect(result.out.join('\n')).toMatch(/executed via production in process \(no listener\)/);
  }, 120_000);
});
