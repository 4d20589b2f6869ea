// Support console round 3 (issue 41), over HTTP with real stores behind the real admin listener:
// every partner with keys has a page (a key-only one too) and the Partner column links to it; a
// refused record names the key id sent (never the key), its environment, partner and revocation;
// the keys table tells "last presented" from "last used"; a 429 shows its own headers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../start/config.js';
import { KeyStore, issueKey, revokeKeys } from '../../stores/key-store.js';
import { PartnerStore, savePartner } from '../../stores/partners.js';
import { createReplayStore, type ReplayStore } from '../../stores/replay-store.js';
import type { AuditLog } from '../../support/audit/audit-log.js';
import { createUnmasker } from '../../support/console/masking.js';
import type { AdminServer } from '../../support/admin-server.js';
import { startConsoleFixture } from '../support/console-fixture.js';
import { apiKeyPlugin } from '../../server/plugins/api-key.js';
import type { RequestState } from '../../server/http/plugin.js';
import { createAllowanceStore, type AllowanceStore } from '../../cache/allowance.js';
import { allowanceSubject } from '../../server/http/client-ip.js';
import { allowanceAdmin } from '../../support/allowance-admin.js';
import { consoleClient, type ConsoleClient } from '../support/console-client.js';
import { testRecord } from '../support/replay-records.js';

let dir: string;
let keys: KeyStore;
let partners: PartnerStore;
let replay: ReplayStore;
let audit: AuditLog;
let admin: AdminServer;
let allowance: AllowanceStore;
const tokens: Record<string, string> = {};
const issued: Record<string, { id: string; key: string }> = {};

/** The key check's note for a key sent to `environment`, by the real plugin over the real keys file. */
function keyNote(environment: 'production' | 'certification', key: string): Record<string, unknown> {
  const state = { requestId: 'r', environment, clientIp: '203.0.113.9', req: { rawHeaders: ['x-api-key', key] }, notes: {} };
  void apiKeyPlugin({ environment, keys }).onRequest!(state as unknown as RequestState);
  return state.notes as Record<string, unknown>;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-console-round3-'));
  const config = loadConfig({ DATA_DIR: dir });
  keys = await KeyStore.open(path.join(dir, 'keys.json'), { reloadMs: 50 });
  tokens.viewer = (await issueKey(keys.file, { environment: 'support', partnerCode: 'vera' })).key;
  tokens.partners = (await issueKey(keys.file, { environment: 'support', partnerCode: 'pat', roles: ['viewer', 'partners'] })).key;
  const put = async (name: string, environment: 'production' | 'certification', partnerCode: string) => {
    const k = await issueKey(keys.file, { environment, partnerCode });
    issued[name] = { id: k.record.id, key: k.key };
  };
  await put('acmeLive', 'production', 'ACME');
  // BOLT: keys only (issued from the CLI), no partner record.
  await put('boltLive', 'production', 'BOLT');
  await put('boltCert', 'certification', 'BOLT');
  await put('boltOld', 'production', 'BOLT');
  await revokeKeys(keys.file, { id: issued.boltOld!.id });
  await keys.reload();
  await savePartner(
    path.join(dir, 'partners.json'),
    { code: 'ACME', name: 'Acme Energy', contact: 'ops@acme.test' },
    { actor: 'cli:test' },
  );
  partners = await PartnerStore.open(path.join(dir, 'partners.json'));
  replay = createReplayStore({ redis: null, dataDir: dir, settings: config.cacheReplay.replay });
  const refused = (key: string) => ({
    status: 403,
    // As the replay plugin writes it: the refused key's partner.
    partnerCode: 'BOLT',
    query: null,
    responseBody:
      '{"errors":[{"message":"A valid x-api-key header for the production environment is required.","extensions":{"code":"FORBIDDEN"}}]}',
    notes: keyNote('production', key),
  });
  replay.enqueue(testRecord({ id: 'req-bolt-ok', partnerCode: 'BOLT', notes: keyNote('production', issued.boltLive!.key) }));
  replay.enqueue(testRecord({ id: 'req-bolt-cert', ...refused(issued.boltCert!.key) }));
  replay.enqueue(testRecord({ id: 'req-bolt-revoked', ...refused(issued.boltOld!.key) }));
  // A support rerun of BOLT's request (the console marks it rerunOf): it runs as BOLT but is not BOLT's traffic.
  replay.enqueue(
    testRecord({
      id: 'rerun.0b0c0d0e-1',
      partnerCode: 'BOLT',
      notes: { auth: { ok: true, keyId: issued.boltLive!.id }, rerunOf: 'req-bolt-ok', by: 'support:JANE' },
    }),
  );
  replay.enqueue(
    testRecord({
      id: 'req-429-headers',
      environment: 'playground',
      partnerCode: null,
      clientIp: '2001:db8:5:6::9',
      status: 429,
      responseBody: '{"errors":[{"message":"used up","extensions":{"code":"ALLOWANCE_USED_UP"}}]}',
      responseHeaders: {
        'x-request-id': 'req-429-headers',
        'retry-after': '3600',
        'x-ratelimit-limit': '50',
        'x-ratelimit-remaining': '0',
      },
    }),
  );
  // A feed down: three requests of two partners failed on Brightgrid (no connection) within minutes.
  const down = (id: string, partnerCode: string, ago: number, feed = 'Brightgrid', error = 'network error', durationMs = 51) =>
    testRecord(
      {
        id,
        partnerCode,
        responseBody: '{"data":{"residentialPlans":null},"errors":[{"message":"feed down","extensions":{"code":"UPSTREAM_UNAVAILABLE"}}]}',
        upstreamCalls: [{ feed, url: 'http://up/offers', status: null, durationMs, error }],
      },
      Date.now() - ago,
    );
  replay.enqueue(down('req-feed-1', 'ACME', 60_000));
  replay.enqueue(down('req-feed-2', 'BOLT', 300_000, 'Brightgrid', 'network error', 48));
  replay.enqueue(down('req-feed-3', 'ACME', 600_000));
  replay.enqueue(down('req-feed-other', 'ACME', 120_000, 'Sunward'));
  replay.enqueue(down('req-feed-timeout', 'ACME', 120_000, 'Brightgrid', 'timeout after 2000 ms', 2000));
  replay.enqueue(down('req-feed-old', 'ACME', 3 * 3_600_000));
  await replay.flush();
  // The gateway's own embedded store over the same DATA_DIR: it counts, the console reads and resets.
  allowance = await createAllowanceStore({ redis: null, dataDir: dir, limit: 5 });
  ({ audit, admin } = await startConsoleFixture({
    dir,
    keys,
    replay,
    partners,
    rerun: async () => ({ status: 200, body: '{}', requestId: 'rerun.x' }),
    unmasker: createUnmasker({ piiKey: null }),
    allowance: allowanceAdmin({ redis: null, dataDir: dir, limit: 5 }),
  }));
});

afterAll(async () => {
  await admin?.close();
  await allowance?.close();
  keys?.close();
  partners?.close();
  await replay?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function viewer(): Promise<ConsoleClient> {
  const ui = consoleClient(admin.url);
  expect(await ui.signIn(tokens.viewer!)).toBe(303);
  return ui;
}

describe('partner pages for every partner with keys', () => {
  it('lists a key-only partner in Partners and gives it a page with its keys', async () => {
    const ui = await viewer();
    const list = await ui.get('/console/partners');
    expect(list.text).toContain('href="/console/partners/ACME"');
    expect(list.text).toContain('href="/console/partners/BOLT"');
    expect(list.text).not.toContain('href="/console/partners/VERA"');
    const bolt = await ui.get('/console/partners/BOLT');
    expect(bolt.status).toBe(200);
    expect(bolt.text).toContain('has keys but no partner record yet');
    expect(bolt.text).toContain(issued.boltLive!.id);
    expect(bolt.text).toContain(issued.boltCert!.id);
    expect((await ui.get('/console/partners/NOPE')).status).toBe(404);
  });

  it('links the Partner column of results and of a record to the partner page', async () => {
    const ui = await viewer();
    const results = await ui.get('/console/search?partner=BOLT&range=1d');
    expect(results.text).toMatch(/data-label="Partner"><a href="\/console\/partners\/BOLT">BOLT<\/a>/);
  });
});

describe('refused requests explained', () => {
  it('names the key id sent (never the key), its own environment and partner, and whether it is revoked', async () => {
    const ui = await viewer();
    const cert = await ui.get('/console/records/req-bolt-cert');
    expect(cert.text).toContain(`key id ${issued.boltCert!.id}, a certification key of partner BOLT (not revoked), sent to production`);
    expect(cert.text).not.toContain(issued.boltCert!.key);
    expect(cert.text).not.toContain('e.g.');
    const old = await ui.get('/console/records/req-bolt-revoked');
    expect(old.text).toContain(`key id ${issued.boltOld!.id}, a production key of partner BOLT (revoked)`);
    expect(old.text).not.toContain(issued.boltOld!.key);
    // The record names the partner, as a link.
    expect(cert.text).toContain('<a href="/console/partners/BOLT">BOLT</a>');
  });

  it('the keys table shows last presented (refused ones included) apart from last used', async () => {
    const ui = await viewer();
    const page = await ui.get('/console/partners/BOLT');
    expect(page.text).toContain('Last presented');
    const row = (id: string) => new RegExp(`${id}</td>[\\s\\S]*?</tr>`).exec(page.text)![0];
    expect(row(issued.boltCert!.id)).toMatch(/data-label="Last presented">\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ</);
    expect(row(issued.boltCert!.id)).toContain('data-label="Last used">not in the last 7 days');
    expect(row(issued.boltLive!.id)).toMatch(/data-label="Last used">\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ</);
  });

  it('a 429 record shows the headers it names', async () => {
    const ui = await viewer();
    const page = await ui.get('/console/records/req-429-headers');
    expect(page.text).toContain('Retry-After: 3600');
    expect(page.text).toContain('X-RateLimit-Limit: 50');
    expect(page.text).toContain('X-RateLimit-Remaining: 0');
  });
});

describe('the playground allowance in the console', () => {
  it('reads used and left for IPv4 and IPv6 (by its /64, the gateway keying), linked from a 429 record', async () => {
    // Counted as the playground plugin counts: under the address's subject.
    for (let i = 0; i < 3; i++) await allowance.consume(allowanceSubject('2001:db8:5:6::9'));
    await allowance.consume(allowanceSubject('203.0.113.77'));
    const ui = await viewer();
    const record = await ui.get('/console/records/req-429-headers');
    const href = /id="allowance-link" href="([^"]+)"/.exec(record.text)![1]!.replace(/&amp;/g, '&');
    const page = await ui.get(href);
    expect(page.status).toBe(200);
    expect(page.text, page.text.slice(page.text.indexOf('<main'))).toContain('2001:db8:5:6::/64');
    expect(page.text).toMatch(/id="used">3 of 5</);
    expect(page.text).toMatch(/id="left">2</);
    // Another address of the same /64 is the same counter.
    expect((await ui.get('/console/allowance?ip=2001:db8:5:6:ffff::1')).text).toMatch(/id="used">3 of 5</);
    expect((await ui.get('/console/allowance?ip=203.0.113.77')).text).toMatch(/id="used">1 of 5</);
    expect((await ui.get('/console/allowance?ip=%3A%3Affff%3A203.0.113.77')).text).toMatch(/id="used">1 of 5</);
  });

  it('refuses garbage, oversized and hostile addresses with a clear 400', async () => {
    const ui = await viewer();
    for (const bad of ['nope', '1.2.3', '203.0.113.7/24', `${'1:'.repeat(40)}1`, 'x'.repeat(4000), '<script>', '203.0.113.7%0a']) {
      const res = await ui.get(`/console/allowance?ip=${encodeURIComponent(bad)}`);
      expect(res.status, bad.slice(0, 20)).toBe(400);
      expect(res.text).toContain('An address is an IPv4 or IPv6 address');
      expect(res.text).not.toContain('<script>');
    }
  });

  it('a viewer cannot reset (403, audited); the partners role resets with a ticket, audited, and lands back on the page', async () => {
    const ui = await viewer();
    const page = await ui.get('/console/allowance?ip=203.0.113.77');
    expect(page.text).toContain('Giving an allowance back needs the partners role');
    const refused = await ui.post('/console/allowance', { ip: '203.0.113.77', ticket: 'T-1' });
    expect(refused.status).toBe(403);
    const pat = consoleClient(admin.url);
    expect(await pat.signIn(tokens.partners!)).toBe(303);
    await pat.get('/console/allowance?ip=203.0.113.77');
    // The CSRF token and the Origin are checked as for every console form.
    expect((await pat.post('/console/allowance', { ip: '203.0.113.77', ticket: 'T-2' }, { csrf: false })).status).toBe(403);
    expect((await pat.post('/console/allowance', { ip: '203.0.113.77', ticket: '' })).status).toBe(400);
    expect((await pat.post('/console/allowance', { ip: 'nope', ticket: 'T-2' })).status).toBe(400);
    expect(await allowance.peek('203.0.113.77')).toEqual({ remaining: 4 });
    const done = await pat.post('/console/allowance', { ip: '203.0.113.77', ticket: 'T-2' });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/console/allowance?ip=203.0.113.77&done=reset');
    expect((await pat.get(done.location!)).text).toMatch(/id="used">0 of 5</);
    expect(await allowance.peek('203.0.113.77')).toEqual({ remaining: 5 });
    const entries = await audit.list({ action: 'allowance' });
    const reset = entries.find((e) => e.action === 'allowance.reset')!;
    expect(reset).toMatchObject({ actor: 'support:PAT', target: '203.0.113.77', details: { ticket: 'T-2', usedBefore: 1 } });
    expect(entries.some((e) => e.action === 'allowance.reset.refused' && e.actor === 'support:VERA')).toBe(true);
  });
});

describe('reruns apart from partner traffic', () => {
  const ids = (text: string) => [...text.matchAll(/data-label="Request id"><a class="mono" href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);

  it('leaves support reruns out of partner searches unless asked for, and always marks them', async () => {
    const ui = await viewer();
    const plain = await ui.get('/console/search?partner=BOLT&range=1d');
    expect(ids(plain.text)).not.toContain('rerun.0b0c0d0e-1');
    expect(ids(plain.text)).toContain('req-bolt-ok');
    const included = await ui.get('/console/search?partner=BOLT&range=1d&reruns=include');
    expect(ids(included.text)).toContain('rerun.0b0c0d0e-1');
    expect(included.text).toMatch(/rerun\.0b0c0d0e-1<\/a> <span class="badge rerun"[^>]*>support rerun</);
    const only = await ui.get('/console/search?partner=BOLT&range=1d&reruns=only');
    expect(ids(only.text)).toEqual(['rerun.0b0c0d0e-1']);
    expect((await ui.get('/console/search?reruns=maybe')).status).toBe(400);
    expect((await ui.get('/console/records/rerun.0b0c0d0e-1')).text).toContain('support rerun');
  });

  it('leaves them out of the partner chart and of last used', async () => {
    const ui = await viewer();
    const page = await ui.get('/console/partners/BOLT');
    const today = new Date().toISOString().slice(5, 10);
    // req-bolt-ok, the two refused and req-feed-2; not the rerun.
    expect(page.text).toContain(`aria-label="${today}: 4 requests`);
  });
});

describe('a feed incident', () => {
  it('from a failed feed call, one click lists the other requests of that feed and error around it, with count, partners, first and last', async () => {
    const ui = await viewer();
    const record = await ui.get('/console/records/req-feed-1');
    expect(record.text).toContain('A feed failure answers 200 with errors');
    expect(record.text).toMatch(/<progress [^>]*class="failed"/);
    expect(record.text).toContain('Feed Brightgrid could not be reached (no connection; gave up after 51 ms).');
    const href = /<a class="incident" href="([^"]+)"/.exec(record.text)![1]!.replace(/&amp;/g, '&');
    const page = await ui.get(href);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/id="incident-count">3</);
    expect(page.text).toMatch(
      /id="incident-partners"><a href="\/console\/partners\/ACME">ACME<\/a>, <a href="\/console\/partners\/BOLT">BOLT<\/a></,
    );
    for (const id of ['req-feed-1', 'req-feed-2', 'req-feed-3']) expect(page.text).toContain(`>${id}</a>`);
    // Another feed, another kind of error, or outside the window: not part of it.
    for (const id of ['req-feed-other', 'req-feed-timeout', 'req-feed-old']) expect(page.text).not.toContain(`>${id}</a>`);
  });

  it('refuses a malformed incident link with a clear 400', async () => {
    const ui = await viewer();
    for (const q of [
      'feed=&error=x&at=2026-01-01T00:00:00Z',
      'feed=a&error=&at=2026-01-01T00:00:00Z',
      'feed=a&error=x&at=soon',
      `feed=${'a'.repeat(70)}&error=x&at=2026-01-01T00:00:00Z`,
      `feed=a&error=${'x'.repeat(300)}&at=2026-01-01T00:00:00Z`,
    ])
      expect((await ui.get(`/console/incident?${q}`)).status, q.slice(0, 30)).toBe(400);
  });
});
