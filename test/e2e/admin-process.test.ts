// `npm start` with ADMIN_TOKEN runs the admin listener (admin API, support console) in a process
// of its own at a lower CPU priority, so support people's pages never queue on the keyed event
// loop. The real entry point, as a child process: the admin process is found by the pid it logs;
// a console rerun and an admin purge run in the serving process (asked over IPC); a killed admin
// process is started again while partners are served; a taken ADMIN_PORT stops the start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../../scripts/harness/eventually.js';
import { issueKey } from '../../stores/key-store.js';
import { consoleClient } from '../support/console-client.js';
import { startListening, stopsCleanly, startMain, up, type Started } from '../support/main-process.js';

const ADMIN_TOKEN = 'admin-token-for-admin-process-0123456789';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const PLANS = '{ residentialPlans(zipCode: "75001", monthlyUsage: 1000) { id price } }';

async function keyed(s: Started, key: string) {
  return fetch(`http://127.0.0.1:${s.ports.production}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: PLANS }),
  });
}

describe('npm start: the admin listener in a process of its own', () => {
  let s: Started;
  let partnerKey: string;
  let supportKey: string;
  beforeAll(async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-admin-'));
    const keysFile = path.join(dataDir, 'keys.json');
    partnerKey = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
    supportKey = (await issueKey(keysFile, { environment: 'support', partnerCode: 'alice' })).key;
    s = await startListening({ ADMIN_TOKEN, KEYS_FILE: keysFile }, dataDir);
  }, 180_000);
  afterAll(() => {
    if (s?.proc.exitCode === null) s.proc.kill('SIGKILL');
  });

  const adminPids = () => s.lines.filter((l) => l.msg === 'admin process started').map((l) => Number(l.pid));
  const admin = `http://127.0.0.1`;

  it('listens from a child process at a lower priority; the serving process binds no admin port', async () => {
    const [pid] = adminPids();
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(s.proc.pid);
    expect(os.getPriority(pid!)).toBe(19);
    if (fs.existsSync(`/proc/${pid}/task`)) {
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) expect(os.getPriority(Number(tid))).toBe(19);
    }
    // Logged by the admin process (its lines say so), never by the serving process.
    const listening = s.lines.filter((l) => l.msg === 'admin endpoint listening');
    expect(listening.length).toBeGreaterThan(0);
    expect(listening.every((l) => l.process === 'admin')).toBe(true);
    expect((await fetch(`${admin}:${s.ports.admin}/replay?since=1h`, { headers: auth })).status).toBe(200);
  });

  it('a purge through the admin API empties the serving process’s cache', async () => {
    expect((await keyed(s, partnerKey)).status).toBe(200);
    await eventually(async () => (await keyed(s, partnerKey)).headers.get('x-cache') === 'HIT');
    const purge = await fetch(`${admin}:${s.ports.admin}/cache/purge?field=residentialPlans`, { method: 'POST', headers: auth });
    expect(purge.status).toBe(200);
    expect(await purge.json()).toMatchObject({ purged: ['residentialPlans'], reach: 'this instance' });
    expect((await keyed(s, partnerKey)).headers.get('x-cache')).toBe('MISS');
  });

  it('a console rerun runs in the serving process and compares', async () => {
    const sent = await keyed(s, partnerKey);
    const id = sent.headers.get('x-request-id')!;
    // The serving process flushes its replay records; the admin process reads them from the files.
    await eventually(async () => (await fetch(`${admin}:${s.ports.admin}/replay/${id}`, { headers: auth })).ok, 10_000);
    const ui = consoleClient(`${admin}:${s.ports.admin}`);
    expect([302, 303]).toContain(await ui.signIn(supportKey));
    let rerun = await ui.post(`/console/records/${id}/rerun`, {});
    if (rerun.status === 303 && rerun.location) rerun = await ui.get(rerun.location);
    expect(rerun.status).toBe(200);
    expect(rerun.text).toMatch(/same/i);
    expect(rerun.text).not.toMatch(/GRAPHQL_PARSE_FAILED|serving process is gone|did not answer/);
  });

  it('an admin process that dies is started again; partners are served meanwhile', async () => {
    const [first] = adminPids();
    process.kill(first!, 'SIGKILL');
    expect((await keyed(s, partnerKey)).status).toBe(200);
    await eventually(async () => adminPids().length === 2, 60_000, 100);
    await eventually(
      async () => (await fetch(`${admin}:${s.ports.admin}/replay?since=1h`, { headers: auth }).catch(() => null))?.status === 200,
      60_000,
      250,
    );
  });

  it('SIGTERM stops every process cleanly', async () => {
    await stopsCleanly(s, adminPids().at(-1)!);
  });
});

describe('the admin process, other settings', () => {
  it('ADMIN_PROCESS=off keeps the admin listener in the serving process', async () => {
    const s = await startListening({ ADMIN_TOKEN, ADMIN_PROCESS: 'off' });
    try {
      expect(s.lines.some((l) => l.msg === 'admin process started')).toBe(false);
      expect(s.lines.find((l) => l.msg === 'admin endpoint listening')?.process).toBeUndefined();
      expect((await fetch(`http://127.0.0.1:${s.ports.admin}/replay?since=1h`, { headers: auth })).status).toBe(200);
    } finally {
      s.proc.kill('SIGTERM');
      await s.exited;
    }
  }, 180_000);

  it('a taken ADMIN_PORT stops the start with exit 78, naming the variable; nothing is left running', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const s = await startMain({ ADMIN_TOKEN, ADMIN_PORT: String(port) });
      expect(await s.exited).toBe(78);
      expect(s.stderr()).toMatch(/ADMIN_PORT/);
      expect(await up(s.ports.production)).toBe(false);
    } finally {
      blocker.close();
    }
  }, 180_000);
});
