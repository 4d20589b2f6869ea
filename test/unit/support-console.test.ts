// The support console's HTTP surface with real stores (keys file, embedded replay log, audit log,
// partner records) behind the real admin listener: cookies, CSRF, hostile and malformed input,
// masking and unmasking of personal data, session expiry.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../start/config.js';
import { KeyStore, issueKey } from '../../stores/key-store.js';
import { PartnerStore } from '../../stores/partners.js';
import { createReplayStore, type ReplayStore } from '../../stores/replay-store.js';
import { createAuditLog, type AuditLog } from '../../support/audit/audit-log.js';
import { createSupportConsole } from '../../support/console/console.js';
import { sealPersonalData } from '../../stores/replay-privacy.js';
import { createUnmasker } from '../../support/console/masking.js';
import { startAdminServer, type AdminServer } from '../../support/admin-server.js';
import { consoleClient } from '../support/console-client.js';
import { testRecord } from '../support/replay-records.js';

const PII_KEY = 'a1'.repeat(32);
let dir: string;
let keys: KeyStore;
let partners: PartnerStore;
let replay: ReplayStore;
let audit: AuditLog;
let admin: AdminServer;
let token: string;
let clock = Date.now();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-console-'));
  const config = loadConfig({ DATA_DIR: dir });
  keys = await KeyStore.open(path.join(dir, 'keys.json'), { reloadMs: 50 });
  token = (await issueKey(keys.file, { environment: 'support', partnerCode: 'carol' })).key;
  await keys.reload();
  partners = await PartnerStore.open(path.join(dir, 'partners.json'));
  replay = createReplayStore({ redis: null, dataDir: dir, settings: config.cacheReplay.replay });
  replay.enqueue(testRecord({ id: 'req-0000000001' }));
  // As the replay plugin stores it: personal data sealed under the gateway's REPLAY_PII_KEY.
  const personal = testRecord({
    id: 'req-pii-000001',
    query: 'query A($a: String!) { utilityAccounts(address: $a, zipCode: "75201") { accountId } }',
    variables: { a: '1500 Marilla St' },
    responseBody: '{"data":{"utilityAccounts":[{"accountId":"10443720004563214"}]}}',
  });
  sealPersonalData(personal, Buffer.from(PII_KEY, 'hex'));
  replay.enqueue(personal);
  await replay.flush();
  audit = createAuditLog({ redis: null, dataDir: dir, retentionMs: 86_400_000 });
  const support = createSupportConsole({
    keys,
    replay,
    audit,
    partners,
    partnersFile: partners.file,
    trustProxy: null,
    sessionTtlMs: 3_600_000,
    now: () => clock,
    rerun: async () => {
      throw new Error('reruns are tested end to end');
    },
    unmasker: createUnmasker({ piiKey: Buffer.from(PII_KEY, 'hex') }),
  });
  admin = await startAdminServer({ host: '127.0.0.1', port: 0, token: 'x'.repeat(32), replay, cache: null, console: support, partners });
});

afterAll(async () => {
  await admin?.close();
  keys?.close();
  partners?.close();
  await replay?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('console sessions', () => {
  it('sets HttpOnly, SameSite=Strict cookies with an expiry, Secure only on TLS', async () => {
    const plain = await fetch(`${admin.url}/console/sign-in`);
    expect(plain.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict; Max-Age=600$/);
    const tls = await fetch(`${admin.url}/console/sign-in`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(tls.headers.get('set-cookie')).toMatch(/; Secure$/);
    const ui = consoleClient(admin.url);
    await ui.get('/console/sign-in');
    const res = await fetch(`${admin.url}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `epc_pre=${/epc_pre=([^;]+)/.exec(plain.headers.get('set-cookie')!)![1]}`,
      },
      body: new URLSearchParams({ _csrf: /epc_pre=([^;]+)/.exec(plain.headers.get('set-cookie')!)![1]!, token }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(
      /^epc_session=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=3600$/,
    );
  });

  it('refuses a sign-in without the form token, and partner keys', async () => {
    const ui = consoleClient(admin.url);
    await ui.get('/console/sign-in');
    expect((await ui.post('/console/sign-in', { token }, { csrf: false })).status).toBe(403);
    const partnerKey = (await issueKey(keys.file, { environment: 'production', partnerCode: 'ACME' })).key;
    await keys.reload();
    expect(await ui.signIn(partnerKey)).toBe(401);
  });

  it('ends a session at its expiry', async () => {
    const ui = consoleClient(admin.url);
    expect(await ui.signIn(token)).toBe(303);
    expect((await ui.get('/console/search')).status).toBe(200);
    clock += 3_600_001;
    const after = await ui.get('/console/search');
    expect(after.status).toBe(303);
    expect(after.location).toMatch(/^\/console\/sign-in\?ended=1&next=/);
    clock = Date.now();
  });
});

describe('console input', () => {
  const signedIn = async () => {
    const ui = consoleClient(admin.url);
    expect(await ui.signIn(token)).toBe(303);
    return ui;
  };

  it('answers malformed, hostile and boundary search input with a clear 400, escaped', async () => {
    const ui = await signedIn();
    const bad = await ui.get(
      `/console/search?${new URLSearchParams({
        id: '<script>alert(1)</script>',
        partner: '"><img src=x>',
        status: '6xx',
        cache: 'WARM',
        range: '1y',
        page: '0',
        env: 'staging',
      })}`,
    );
    expect(bad.status).toBe(400);
    for (const m of ['A request id is', 'A partner code is', 'Status is', 'Cache is', 'Time is', 'Page is', 'Unknown environment'])
      expect(bad.text).toContain(m);
    expect(bad.text).not.toContain('<script>alert');
    expect(bad.text).not.toContain('<img src=x>');
    expect((await ui.get('/console/search?page=41')).status).toBe(400);
    expect((await ui.get(`/console/search?id=${'a'.repeat(5000)}`)).status).toBe(404);
    const ok = await ui.get('/console/search?partner=acme&cache=MISS&range=1h&page=1');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('req-0000000001');
  });

  it('refuses oversized and non-form bodies and malformed paths', async () => {
    const ui = await signedIn();
    expect((await ui.post('/console/partners', { code: 'ACME', name: 'x'.repeat(20_000), contact: 'c' })).status).toBe(413);
    const json = await fetch(`${admin.url}/console/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
    expect((await ui.get('/console/records/%E0%A4%A')).status).toBe(400);
    expect((await ui.get('/console/records/..%2F..%2Fetc%2Fpasswd')).status).toBe(400);
    expect((await ui.get('/console/records/req-unknown-01')).status).toBe(404);
    expect((await fetch(`${admin.url}/console/records/req-0000000001/rerun`, { method: 'POST' })).status).toBe(401);
    expect(JSON.stringify(await fetch(`${admin.url}/console/search`, { redirect: 'manual' }).then((r) => r.status))).toBe('303');
  });

  it('masks only the personal values of a sealed record, opened in the server: the operation, shape and real size stay visible', async () => {
    const ui = await signedIn();
    const masked = await ui.get('/console/records/req-pii-000001');
    expect(masked.status).toBe(200);
    expect(masked.text).not.toContain('1500 Marilla St');
    expect(masked.text).not.toContain('10443720004563214');
    expect(masked.text).toContain('Personal data in this record (the address and the account data) is masked');
    // Not one marker: the operation, its root field and the answer's shape show, and the size is the answer's.
    expect(masked.text).toContain('utilityAccounts');
    expect(masked.text).not.toContain('no fields');
    expect(masked.text).toContain('&quot;accountId&quot;');
    expect(masked.text).toContain('(64 bytes as sent; shown masked)');
    expect(masked.text).not.toContain('[personal data: sealed');
    // A viewer is not offered the form, and a posted one is refused and audited.
    expect(masked.text).toMatch(/<button type="button" disabled aria-describedby="unmask-why">/);
    expect(masked.text).toContain('needs the unmask role');
    const refused = await ui.post('/console/records/req-pii-000001/unmask', { reason: 'TICKET-1' });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('10443720004563214');
    const actions = (await audit.list({ actor: 'support:CAROL' })).map((e) => e.action);
    expect(actions).toContain('record.unmask.refused');
    // A record without personal data is shown as sent.
    expect((await ui.get('/console/records/req-0000000001')).text).toContain(
      '{&quot;data&quot;:{&quot;utilities&quot;:[{&quot;id&quot;:&quot;ONCOR&quot;}]}}',
    );
  });
});

describe('audit log (embedded)', () => {
  it('keeps entries for the retention, newest first, filtered and paginated', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const log = createAuditLog({ redis: null, dataDir: path.join(dir, 'a2'), retentionMs: 10_000, now: () => now });
    for (let i = 0; i < 5; i++) {
      await log.write({ actor: i % 2 ? 'support:A' : 'cli:root', action: 'record.view', target: String(i), from: '127.0.0.1' });
      now += 1000;
    }
    expect((await log.list()).map((e) => e.target)).toEqual(['4', '3', '2', '1', '0']);
    expect((await log.list({ actor: 'support:A' })).map((e) => e.target)).toEqual(['3', '1']);
    expect((await log.list({ offset: 1, limit: 2 })).map((e) => e.target)).toEqual(['3', '2']);
    now += 7_500;
    expect((await log.list()).map((e) => e.target)).toEqual(['4', '3']);
  });
});
