// The console's audit log page over HTTP, behind the real admin listener: each target links to
// what it names (a record, a partner, a key on its partner's page, a support token's actions, a
// client address's allowance), and a from – to filter in the console's one time format (UTC,
// ISO-like, 24-hour), bounded and refused with a message like the search's own filters.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../start/config.js';
import { KeyStore, issueKey } from '../../stores/key-store.js';
import { PartnerStore, savePartner } from '../../stores/partners.js';
import { createReplayStore, type ReplayStore } from '../../stores/replay-store.js';
import { createUnmasker } from '../../support/console/masking.js';
import { allowanceAdmin, allowanceSubjectOf } from '../../support/allowance-admin.js';
import type { AuditLog } from '../../support/audit/audit-log.js';
import type { AdminServer } from '../../support/admin-server.js';
import { startConsoleFixture } from '../support/console-fixture.js';
import { consoleClient, type ConsoleClient } from '../support/console-client.js';
import { testRecord } from '../support/replay-records.js';

const RECORD_ID = 'req-audit-page-0001';
const HOUR = 3_600_000;

let dir: string;
let keys: KeyStore;
let partners: PartnerStore;
let replay: ReplayStore;
let audit: AuditLog;
let admin: AdminServer;
let ui: ConsoleClient;
let acmeKeyId: string;
let janeKeyId: string;
const now = Date.now();
/** "2026-03-01 14:05" of a time: the console's format, to the minute. */
const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/** The audit page's target links, by the action of their row. */
function targets(html: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const row of html.split('<tr>').slice(1)) {
    const what = /data-label="What">([^<]+)</.exec(row)?.[1];
    const href = /data-label="Target"><a href="([^"]+)"/.exec(row)?.[1];
    if (what && href) (out[what] ??= []).push(href.replaceAll('&amp;', '&'));
  }
  return out;
}

const whats = (html: string) => [...html.matchAll(/data-label="What">([^<]+)</g)].map((m) => m[1]);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-console-audit-'));
  const config = loadConfig({ DATA_DIR: dir });
  keys = await KeyStore.open(path.join(dir, 'keys.json'), { reloadMs: 50 });
  const token = (await issueKey(keys.file, { environment: 'support', partnerCode: 'VIC' })).key;
  janeKeyId = (await issueKey(keys.file, { environment: 'support', partnerCode: 'JANE' })).record.id;
  acmeKeyId = (await issueKey(keys.file, { environment: 'production', partnerCode: 'ACME' })).record.id;
  await keys.reload();
  await savePartner(path.join(dir, 'partners.json'), { code: 'ACME', name: 'Acme', contact: 'ops@acme.example' }, { actor: 'cli:t' });
  partners = await PartnerStore.open(path.join(dir, 'partners.json'));
  replay = createReplayStore({ redis: null, dataDir: dir, settings: config.cacheReplay.replay });
  replay.enqueue(testRecord({ id: RECORD_ID }, now - 4 * HOUR));
  await replay.flush();
  ({ audit, admin } = await startConsoleFixture({
    dir,
    keys,
    replay,
    partners,
    rerun: async () => ({ status: 200, body: '{}', requestId: 'rerun.x' }),
    unmasker: createUnmasker({ piiKey: null }),
    allowance: allowanceAdmin({ redis: null, dataDir: dir, limit: 50 }),
  }));
  const at = (ms: number) => new Date(ms).toISOString();
  const entries = [
    { actor: 'support:VIC', action: 'record.view', target: `production/ACME/${RECORD_ID}`, time: at(now - 3 * HOUR) },
    // Written before targets named environment and partner: the request id alone.
    { actor: 'support:VIC', action: 'record.unmask', target: RECORD_ID, details: { reason: 'T-1' }, time: at(now - 3 * HOUR + 30_000) },
    { actor: 'cli:root', action: 'partner.quota', target: 'ACME', time: at(now - 2 * HOUR) },
    {
      actor: 'cli:root',
      action: 'key.issue',
      target: acmeKeyId,
      details: { partner: 'ACME', environment: 'production' },
      time: at(now - 90 * 60_000),
    },
    {
      actor: 'cli:root',
      action: 'key.revoke',
      target: janeKeyId,
      details: { partner: 'JANE', environment: 'support' },
      time: at(now - 80 * 60_000),
    },
    {
      actor: 'support:VIC',
      action: 'allowance.reset',
      target: allowanceSubjectOf('203.0.113.9')!,
      details: { ip: '203.0.113.9', ticket: 'T-2' },
      time: at(now - HOUR),
    },
  ];
  for (const e of entries) await audit.write({ from: '127.0.0.1', ...e });
  ui = consoleClient(admin.url);
  expect(await ui.signIn(token)).toBe(303);
});

afterAll(async () => {
  await admin?.close();
  keys?.close();
  partners?.close();
  await replay?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the audit log page', () => {
  it('links each target to what it names: the record, the partner, the key, the token user, the address', async () => {
    const page = await ui.get('/console/audit');
    expect(page.status).toBe(200);
    const links = targets(page.text);
    const open = async (href: string) => {
      const res = await ui.get(href.split('#')[0]!);
      expect(res.status, href).toBe(200);
      return res.text;
    };
    expect(links['record.view']).toEqual([`/console/records/${RECORD_ID}?env=production&partner=ACME`]);
    expect(await open(links['record.view']![0]!)).toContain(`<dt>Request id</dt><dd class="mono">${RECORD_ID}`);
    expect(await open(links['record.unmask']![0]!)).toContain(`<dt>Request id</dt><dd class="mono">${RECORD_ID}`);
    expect(links['partner.quota']).toEqual(['/console/partners/ACME']);
    expect(await open(links['partner.quota']![0]!)).toContain('<title>Partner ACME');
    // A key: its row on its partner's page.
    expect(links['key.issue']).toEqual([`/console/partners/ACME#key-${acmeKeyId}`]);
    expect(await open(links['key.issue']![0]!)).toContain(`<tr id="key-${acmeKeyId}">`);
    // A support token has no partner page: its user's actions.
    expect(links['key.revoke']).toEqual(['/console/audit?actor=support%3AJANE']);
    expect(links['allowance.reset']).toEqual(['/console/allowance?ip=203.0.113.9']);
    expect(await open(links['allowance.reset']![0]!)).toContain('id="allowance-result"');
  });

  it('filters by a from – to time in UTC, 24-hour, either end optional; a "to" minute takes in that whole minute', async () => {
    const window = (from: string, to: string) =>
      ui.get(`/console/audit?${new URLSearchParams({ ...(from ? { from } : {}), ...(to ? { to } : {}) })}`);
    // The two record entries, 30 s apart in one minute, and nothing else.
    const t = now - 3 * HOUR;
    const both = await window(minute(t - 60_000), minute(t + 30_000));
    expect(both.status).toBe(200);
    expect(whats(both.text)).toEqual(['record.unmask', 'record.view']);
    // ISO with a T and a Z, seconds: the same.
    const iso = await window(new Date(t - 1000).toISOString().slice(0, 19) + 'Z', new Date(t + 31_000).toISOString());
    expect(whats(iso.text)).toEqual(['record.unmask', 'record.view']);
    // From only: the newer entries (and this test's own page views), never the unmasking of 3 hours ago.
    const newer = whats((await window(minute(now - 2.5 * HOUR), '')).text);
    expect(newer).toEqual(expect.arrayContaining(['partner.quota', 'key.issue', 'key.revoke', 'allowance.reset']));
    expect(newer).not.toContain('record.unmask');
    // To only: up to the key's issue.
    expect(whats((await window('', minute(now - 90 * 60_000))).text)).toEqual([
      'key.issue',
      'partner.quota',
      'record.unmask',
      'record.view',
    ]);
    // The filter is kept in the form and the pager.
    expect(both.text).toContain(`name="from" value="${minute(t - 60_000)}"`);
  });

  it('refuses a time that is not one, or a range that ends before it starts, saying what a time looks like', async () => {
    for (const [q, message] of [
      ['from=yesterday', 'From is a date and time, such as 2026-03-01 14:00 (UTC, 24-hour)'],
      ['to=2026-02-30%2010:00', 'To is a date and time'],
      ['from=2026-03-01%2025:00', 'From is a date and time'],
      ['from=3/1/2026%202:00%20PM', 'From is a date and time'],
      ['from=2026-03-02%2000:00&to=2026-03-01%2000:00', 'From is after to'],
      [`from=2026-03-01T14:00:00.000Z${'0'.repeat(20)}`, 'From is a date and time'],
    ] as const) {
      const res = await ui.get(`/console/audit?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.text, q).toContain(message);
      expect(res.text).not.toContain('id="audit"');
    }
  });
});
