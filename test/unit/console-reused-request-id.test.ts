// A request id is the client's: two partners (and one partner in two environments) send the same
// `x-request-id`. Over HTTP with real stores behind the admin listener: the console never shows,
// reruns or unmasks a guess; it lists every record carrying the id (partner, environment, time)
// and asks which; search rows link to their own record; the audit target names environment and
// partner; malformed record links get a clear 400.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../start/config.js';
import { KeyStore, issueKey } from '../../stores/key-store.js';
import { PartnerStore } from '../../stores/partners.js';
import { createReplayStore, type ReplayRecord, type ReplayStore } from '../../stores/replay-store.js';
import type { AuditLog } from '../../support/audit/audit-log.js';
import { safeNext } from '../../support/console/console.js';
import { createUnmasker } from '../../support/console/masking.js';
import type { AdminServer } from '../../support/admin-server.js';
import { startConsoleFixture } from '../support/console-fixture.js';
import { sealPersonalData } from '../../stores/replay-privacy.js';
import { documentOf, replayFacets } from '../../stores/replay-facets.js';
import { consoleClient, type ConsoleClient } from '../support/console-client.js';
import { testRecord } from '../support/replay-records.js';

const PII_KEY = Buffer.from('e5'.repeat(32), 'hex');
const ID = 'shared-request-id-1';
const t0 = Date.now() - 60_000;
let dir: string;
let keys: KeyStore;
let partners: PartnerStore;
let replay: ReplayStore;
let audit: AuditLog;
let admin: AdminServer;
const tokens: Record<string, string> = {};
const reruns: ReplayRecord[] = [];

const rec = (over: Partial<ReplayRecord>, at: number): ReplayRecord => {
  const r = testRecord({ id: ID, ...over }, at);
  r.facets = replayFacets({ body: r.responseBody, rootFields: ['utilities'], document: documentOf(r.query), variables: r.variables });
  return r;
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-console-reused-'));
  const config = loadConfig({ DATA_DIR: dir });
  keys = await KeyStore.open(path.join(dir, 'keys.json'), { reloadMs: 50 });
  tokens.viewer = (await issueKey(keys.file, { environment: 'support', partnerCode: 'vio' })).key;
  tokens.unmask = (await issueKey(keys.file, { environment: 'support', partnerCode: 'uno', roles: ['viewer', 'unmask'] })).key;
  await keys.reload();
  partners = await PartnerStore.open(path.join(dir, 'partners.json'));
  replay = createReplayStore({ redis: null, dataDir: dir, settings: config.cacheReplay.replay });
  // ACME first (production, then certification), BETA last: BETA's is the newest.
  replay.enqueue(rec({ partnerCode: 'ACME', responseBody: '{"data":{"utilities":[{"id":"ACME-ANSWER"}]}}' }, t0));
  replay.enqueue(
    rec({ partnerCode: 'ACME', environment: 'certification', responseBody: '{"data":{"utilities":[{"id":"ACME-CERT"}]}}' }, t0 + 1000),
  );
  const beta = rec(
    {
      partnerCode: 'BETA',
      query: 'query L($a: String!) { utilityAccounts(address: $a, zipCode: "77002") { accountId } }',
      variables: { a: '901 Bagby St' },
      responseBody: '{"data":{"utilityAccounts":[{"accountId":"10443720004563214"}]}}',
    },
    t0 + 2000,
  );
  sealPersonalData(beta, PII_KEY);
  replay.enqueue(beta);
  await replay.flush();
  ({ audit, admin } = await startConsoleFixture({
    dir,
    keys,
    replay,
    partners,
    token: 'r'.repeat(32),
    rerun: async (r) => {
      reruns.push(r);
      return { status: 200, body: r.responseBody, requestId: `rerun.reused-${reruns.length}` };
    },
    unmasker: createUnmasker({ piiKey: PII_KEY }),
  }));
});

afterAll(async () => {
  await admin?.close();
  keys?.close();
  partners?.close();
  await replay?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function as(role: 'viewer' | 'unmask'): Promise<ConsoleClient> {
  const ui = consoleClient(admin.url);
  expect(await ui.signIn(tokens[role]!)).toBe(303);
  return ui;
}

const links = (text: string) => [...text.matchAll(/href="(\/console\/records\/[^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
const partnerShown = (text: string) => /<dt>Partner<\/dt><dd>(?:<a [^>]*>)?([^<]*)(?:<\/a>)?<\/dd>/.exec(text)?.[1];

describe('a request id several records carry', () => {
  it('lists every record with it (partner, environment, time) and asks which, whether opened by link or by search', async () => {
    const ui = await as('viewer');
    for (const page of [await ui.get(`/console/records/${ID}`), await ui.get(`/console/search?id=${ID}`)]) {
      expect(page.status).toBe(300);
      expect(page.text).toContain('3 records carry the request id');
      const rows = [...page.text.matchAll(/<tr><td data-label="Partner">(\w+)<\/td><td data-label="Environment">(\w+)<\/td>/g)].map(
        (m) => `${m[1]} ${m[2]}`,
      );
      expect(rows).toEqual(['BETA production', 'ACME certification', 'ACME production']);
      expect(new Set(links(page.text)).size).toBe(3);
      expect(page.text).not.toContain('ACME-ANSWER');
    }
    // The search narrowed by partner and environment opens that one.
    const one = await ui.get(`/console/search?id=${ID}&partner=ACME&env=production`);
    expect(one.status).toBe(303);
    expect((await ui.get(one.location!)).text).toContain('ACME-ANSWER');
  });

  it("each search row links to its own record: the first partner's row opens the first partner's record", async () => {
    const ui = await as('viewer');
    const rows = await ui.get('/console/search?partner=ACME&range=1h');
    const hrefs = links(rows.text);
    expect(hrefs).toHaveLength(2);
    const pages = await Promise.all(hrefs.map((h) => ui.get(h)));
    expect(pages.map((p) => p.status)).toEqual([200, 200]);
    expect(pages.map((p) => partnerShown(p.text))).toEqual(['ACME', 'ACME']);
    expect(
      pages.map((p) => (p.text.includes('ACME-CERT') ? 'certification' : p.text.includes('ACME-ANSWER') ? 'production' : '?')),
    ).toEqual(['certification', 'production']);
    const beta = links((await ui.get('/console/search?partner=BETA&range=1h')).text);
    expect(beta).toHaveLength(1);
    expect(partnerShown((await ui.get(beta[0]!)).text)).toBe('BETA');
  });

  it('reruns and unmasks act on the chosen record only; an id naming several is refused, never guessed', async () => {
    const ui = await as('unmask');
    const before = reruns.length;
    const guessed = await ui.post(`/console/records/${ID}/rerun`, {});
    expect(guessed.status).toBe(409);
    expect(guessed.text).toContain('choose one first');
    expect((await ui.post(`/console/records/${ID}/unmask`, { reason: 'T-1' })).status).toBe(409);
    expect(reruns.length).toBe(before);
    const acme = links((await ui.get(`/console/records/${ID}`)).text).find(
      (h) => h.includes('partner=ACME') && h.includes('env=production'),
    )!;
    const page = await ui.get(acme);
    const rerunAction = /action="([^"]+\/rerun[^"]*)"/.exec(page.text)![1]!.replaceAll('&amp;', '&');
    expect(rerunAction).toContain('partner=ACME');
    const ran = await ui.post(rerunAction, {});
    expect(ran.status).toBe(303);
    expect(ran.location).toBe(acme);
    expect(reruns.at(-1)).toMatchObject({ partnerCode: 'ACME', environment: 'production' });
    const beta = links((await ui.get(`/console/records/${ID}`)).text).find((h) => h.includes('partner=BETA'))!;
    const unmaskAction = /action="([^"]+\/unmask[^"]*)"/.exec((await ui.get(beta)).text)![1]!.replaceAll('&amp;', '&');
    const unmasked = await ui.post(unmaskAction, { reason: 'TICKET-77' });
    expect(unmasked.status).toBe(303);
    expect(unmasked.location).toBe(beta);
    expect((await ui.get(unmasked.location!)).text).toContain('10443720004563214');
  });

  it('the audit target names environment and partner with the id', async () => {
    const trail = (await audit.list({})).map((e) => `${e.action} ${e.target ?? ''}`);
    expect(trail).toContain(`record.view production/ACME/${ID}`);
    expect(trail).toContain(`record.view certification/ACME/${ID}`);
    expect(trail).toContain(`record.view production/BETA/${ID}`);
    expect(trail).toContain(`record.rerun production/ACME/${ID}`);
    expect(trail).toContain(`record.unmask production/BETA/${ID}`);
    // A search's target is the id searched for (a term, not a record): only record actions name records.
    expect(trail.filter((t) => t.startsWith('record.') && t.endsWith(` ${ID}`))).toEqual([]);
  });

  it('answers a malformed record link with a clear 400, and a link naming nothing with 404', async () => {
    const ui = await as('viewer');
    for (const q of ['env=staging', 'partner=%3Cscript%3E', 'at=yesterday', 'n=-1', `partner=${'A'.repeat(40)}`]) {
      const res = await ui.get(`/console/records/${ID}?${q}`);
      expect(res.status).toBe(400);
      expect(res.text).not.toContain('<script>');
      expect(res.text).not.toMatch(/at \w+ \(/);
    }
    expect((await ui.get(`/console/records/${ID}?partner=NOBODY`)).status).toBe(404);
    // A form's action (rerun, unmask) comes back after signing in as its record page, selector kept.
    expect(safeNext(`/console/records/${ID}/rerun?env=production&partner=ACME`)).toBe(`/console/records/${ID}?env=production&partner=ACME`);
    expect((await ui.get(`/console/records/${ID}?partner=-`)).status).toBe(404);
  });
});
