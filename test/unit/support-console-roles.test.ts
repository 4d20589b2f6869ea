// The support console's roles and what a record page tells, over HTTP with real stores (keys
// file, embedded replay log, audit log, partner records) behind the real admin listener: a viewer
// reads masked records, only the unmask role opens personal data (with a reason) or reruns a
// record holding it (the sealed operation, opened in the server), only the partners role changes
// partners; refused and invalid requests show why; reruns are records of their own; searches by
// outcome, error code, client address, root field, ZIP and time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../start/config.js';
import { KeyStore, issueKey } from '../../stores/key-store.js';
import { PartnerStore, savePartner } from '../../stores/partners.js';
import { createReplayStore, type ReplayRecord, type ReplayStore } from '../../stores/replay-store.js';
import { createAuditLog, type AuditLog } from '../../support/audit/audit-log.js';
import { createSupportConsole } from '../../support/console/console.js';
import { SEALED_MASK, digestQuery, sealPersonalData } from '../../stores/replay-privacy.js';
import { documentOf, replayFacets } from '../../stores/replay-facets.js';
import { createUnmasker } from '../../support/console/masking.js';
import { startAdminServer, type AdminServer } from '../../support/admin-server.js';
import { runKeysCli } from '../../cli/keys.js';
import { consoleClient, type ConsoleClient } from '../support/console-client.js';
import { testRecord } from '../support/replay-records.js';

const PII_KEY = Buffer.from('b2'.repeat(32), 'hex');
const ADMIN = 'a'.repeat(32);
const CHECKOUT = 'c'.repeat(32);
const PII_QUERY = 'query A($a: String!) { utilityAccounts(address: $a, zipCode: "77002") { accountId } }';
let dir: string;
let keys: KeyStore;
let partners: PartnerStore;
let replay: ReplayStore;
let audit: AuditLog;
let admin: AdminServer;
const tokens: Record<string, string> = {};
const reruns: ReplayRecord[] = [];
const warnings: string[] = [];

/** With the facets the gateway derives when it writes one. */
const record = (over: Partial<ReplayRecord>): ReplayRecord => {
  const r = testRecord(over);
  r.facets ??= replayFacets({
    body: r.responseBody,
    rootFields: undefined,
    document: documentOf(r.query ?? r.queryDigest?.head),
    variables: r.variables,
  });
  if (r.facets.rootFields.length === 0 && r.query) r.facets.rootFields = [/\{\s*(\w+)/.exec(r.query.replace(/^[^{]*/, ''))?.[1] ?? ''];
  return r;
};

const INVALID = '{ residentialPlans(zipCode: "75001") { nope } }';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-console-roles-'));
  const config = loadConfig({ DATA_DIR: dir });
  keys = await KeyStore.open(path.join(dir, 'keys.json'), { reloadMs: 50 });
  tokens.viewer = (await issueKey(keys.file, { environment: 'support', partnerCode: 'vera' })).key;
  tokens.unmask = (await issueKey(keys.file, { environment: 'support', partnerCode: 'uma', roles: ['viewer', 'unmask'] })).key;
  tokens.partners = (await issueKey(keys.file, { environment: 'support', partnerCode: 'pat', roles: ['partners'] })).key;
  await issueKey(keys.file, { environment: 'production', partnerCode: 'ACME' });
  await keys.reload();
  await savePartner(
    path.join(dir, 'partners.json'),
    { code: 'ACME', name: 'Acme Energy', contact: 'ops@acme.test' },
    { actor: 'cli:test' },
  );
  partners = await PartnerStore.open(path.join(dir, 'partners.json'));
  replay = createReplayStore({ redis: null, dataDir: dir, settings: config.cacheReplay.replay });
  replay.enqueue(
    record({ id: 'req-ok-0001', query: '{ residentialPlans(zipCode: "75001") { id } }', responseBody: '{"data":{"residentialPlans":[]}}' }),
  );
  // A validation failure: not executed, so only a digest of its (short) text is kept.
  replay.enqueue(
    record({
      id: 'req-invalid-01',
      query: null,
      queryDigest: digestQuery(INVALID),
      status: 200,
      responseBody:
        '{"errors":[{"message":"Cannot query field \\"nope\\" on type \\"Plan\\".","extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}',
      clientIp: '203.0.113.50',
    }),
  );
  // Too long to keep in full: no curl.
  const long = `{ utilities(zipCode: "75001") { id } } ${'#'.repeat(400)}`;
  replay.enqueue(
    record({ id: 'req-long-0001', query: null, queryDigest: digestQuery(long), status: 400, responseBody: '{"errors":[{"message":"x"}]}' }),
  );
  replay.enqueue(
    record({
      id: 'req-wrongenv-1',
      query: null,
      status: 403,
      responseBody:
        '{"errors":[{"message":"A valid x-api-key header for the production environment is required.","extensions":{"code":"FORBIDDEN"}}]}',
      notes: { auth: { ok: false, reason: 'wrong_environment', partnerCode: 'ACME' } },
    }),
  );
  replay.enqueue(
    record({
      id: 'req-timeout-01',
      query: '{ residentialPlans(zipCode: "77002") { id } }',
      responseBody: '{"data":{"residentialPlans":null},"errors":[{"message":"feed timed out","extensions":{"code":"UPSTREAM_TIMEOUT"}}]}',
      upstreamCalls: [{ feed: 'offers', url: 'http://up/offers', status: null, durationMs: 2000, error: 'timeout after 2000 ms' }],
    }),
  );
  replay.enqueue(record({ id: 'req-old-00001', time: new Date(Date.now() - 3 * 86_400_000).toISOString(), clientIp: '192.0.2.1' }));
  const personal = record({
    id: 'req-pii-000001',
    query: PII_QUERY,
    variables: { a: '901 Bagby St' },
    responseBody: '{"data":{"utilityAccounts":[]},"errors":[{"message":"no account at 901 Bagby St","extensions":{"code":"NOT_FOUND"}}]}',
  });
  personal.facets = replayFacets({
    body: personal.responseBody,
    rootFields: ['utilityAccounts'],
    document: documentOf(PII_QUERY),
    variables: personal.variables,
  });
  sealPersonalData(personal, PII_KEY);
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
    rerun: async (r) => {
      reruns.push(r);
      return { status: 200, body: '{"data":{"utilityAccounts":[{"accountId":"A-1"}]}}', requestId: `rerun.test-${reruns.length}` };
    },
    unmasker: createUnmasker({ piiKey: PII_KEY }),
  });
  admin = await startAdminServer({
    host: '127.0.0.1',
    port: 0,
    token: ADMIN,
    checkoutToken: CHECKOUT,
    replay,
    cache: null,
    console: support,
    partners,
    logger: { info: () => {}, warn: (_o, m) => void warnings.push(String(m)), error: () => {} },
  });
});

afterAll(async () => {
  await admin?.close();
  keys?.close();
  partners?.close();
  await replay?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function as(role: 'viewer' | 'unmask' | 'partners'): Promise<ConsoleClient> {
  const ui = consoleClient(admin.url);
  expect(await ui.signIn(tokens[role]!)).toBe(303);
  return ui;
}

const actions = async (actor: string) => (await audit.list({ actor })).map((e) => `${e.action} ${e.target ?? ''}`.trim());

describe('roles', () => {
  it('are issued with `keys issue --env support --role`, comma-separated; tokens without roles are viewers', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
    expect(
      await runKeysCli(['issue', '--env', 'support', '--partner', 'rita', '--role', 'unmask,partners'], { KEYS_FILE: keys.file }, io),
    ).toBe(0);
    expect(err.join('\n')).toContain('roles: unmask, partners');
    expect(await runKeysCli(['issue', '--env', 'support', '--partner', 'rob', '--role', 'admin'], { KEYS_FILE: keys.file }, io)).not.toBe(
      0,
    );
    expect(err.join('\n')).toMatch(/--role must be one or more of viewer, unmask, partners/);
    expect(
      await runKeysCli(['issue', '--env', 'production', '--partner', 'ACME', '--role', 'viewer'], { KEYS_FILE: keys.file }, io),
    ).not.toBe(0);
    await keys.reload();
    expect(keys.verify('support', out.at(-1)!)).toMatchObject({ ok: true, roles: ['unmask', 'partners'] });
    // A token issued before roles existed (no roles in the file) is a viewer.
    const file = JSON.parse(fs.readFileSync(keys.file, 'utf8'));
    const vera = file.keys.find((k: { partnerCode: string }) => k.partnerCode === 'VERA');
    delete vera.roles;
    fs.writeFileSync(keys.file, JSON.stringify(file));
    await keys.reload();
    expect(keys.verify('support', tokens.viewer)).toMatchObject({ ok: true, roles: ['viewer'] });
  });

  it('a viewer cannot open personal data, rerun a record holding it, or change partners: each refusal is a 403, audited', async () => {
    const ui = await as('viewer');
    const page = await ui.get('/console/records/req-pii-000001');
    expect(page.text).toMatch(/<button type="submit" class="primary" disabled aria-describedby="rerun-why">/);
    expect(page.text).toContain('Rerun needs the unmask role');
    const unmask = await ui.post('/console/records/req-pii-000001/unmask', { reason: 'TICKET-9' });
    expect(unmask.status).toBe(403);
    expect(unmask.text).not.toContain('901 Bagby St');
    const rerun = await ui.post('/console/records/req-pii-000001/rerun', { reason: 'TICKET-9' });
    expect(rerun.status).toBe(403);
    expect(reruns).toHaveLength(0);
    const save = await ui.post('/console/partners', { code: 'ACME', name: 'Evil', contact: 'x@y.z' });
    expect(save.status).toBe(403);
    expect((await ui.post('/console/partners/ACME/ips', { cidr: '203.0.113.9' })).status).toBe(403);
    expect(partners.get('ACME')!.name).toBe('Acme Energy');
    const trail = await actions('support:VERA');
    for (const a of [
      'record.unmask.refused production/ACME/req-pii-000001',
      'record.rerun.refused production/ACME/req-pii-000001',
      'partner.save.refused ACME',
      'partner.ip.enable.refused ACME',
    ])
      expect(trail).toContain(a);
  });

  it('the unmask role opens personal data after a reason, audited with it; nobody types a key', async () => {
    const ui = await as('unmask');
    const page = await ui.get('/console/records/req-pii-000001');
    expect(page.text).not.toContain('type="password"');
    expect(page.text).not.toContain('901 Bagby St');
    // The error message quoted the address: masked there too.
    expect(page.text).toContain('no account at ••••');
    expect((await ui.post('/console/records/req-pii-000001/unmask', { reason: '' })).status).toBe(400);
    const unmasked = await ui.post('/console/records/req-pii-000001/unmask', { reason: 'TICKET-42' });
    expect(unmasked.status).toBe(303);
    const clear = await ui.get(unmasked.location!);
    expect(clear.text).toContain('901 Bagby St');
    const entry = (await audit.list({ actor: 'support:UMA', action: 'record.unmask' }))[0]!;
    expect(entry.details).toMatchObject({ reason: 'TICKET-42' });
  });

  it('a rerun of a record holding personal data runs the stored operation (opened in the server), never the mask text', async () => {
    const ui = await as('unmask');
    expect((await ui.post('/console/records/req-pii-000001/rerun', {})).status).toBe(400);
    const posted = await ui.post('/console/records/req-pii-000001/rerun', { reason: 'TICKET-42' });
    expect(posted.status).toBe(303);
    const res = await ui.get(posted.location!);
    const ran = reruns.at(-1)!;
    expect(ran.query).toBe(PII_QUERY);
    expect(ran.variables).toEqual({ a: '901 Bagby St' });
    expect(JSON.stringify(ran)).not.toContain(SEALED_MASK);
    expect(res.text).toContain('id="verdict"');
    const entry = (await audit.list({ actor: 'support:UMA', action: 'record.rerun' }))[0]!;
    expect(entry.details).toMatchObject({ reason: 'TICKET-42', personalData: true, rerunRequestId: 'rerun.test-1' });
  });

  it("a rerun's own request id can be searched: its record names the original, sealed like it", async () => {
    const ui = await as('unmask');
    await ui.post('/console/records/req-pii-000001/rerun', { reason: 'TICKET-43' });
    const id = `rerun.test-${reruns.length}`;
    await replay.flush();
    const stored = await replay.get(id);
    expect(stored?.notes).toMatchObject({ rerunOf: 'req-pii-000001', by: 'support:UMA' });
    expect(stored?.responseBody).toBe(SEALED_MASK);
    const found = await ui.get(`/console/search?id=${encodeURIComponent(id)}`);
    expect(found.status).toBe(303);
    expect((await ui.get(found.location!)).text).toContain('A console rerun of');
  });

  it('the partners role edits a partner without retyping it, keeps a refused entry in the field, and reloads land on the page', async () => {
    const ui = await as('partners');
    const page = await ui.get('/console/partners/ACME');
    expect(page.text).toContain('value="Acme Energy"');
    expect(page.text).toContain('value="ops@acme.test"');
    const added = await ui.post('/console/partners/ACME/ips', { cidr: '203.0.113.7' });
    expect(added.status).toBe(303);
    expect(added.location).toBe('/console/partners/ACME?done=ip-enabled&cidr=203.0.113.7');
    expect((await ui.get(added.location!)).text).toContain('203.0.113.7 enabled for the certification checkout.');
    // Reloading the form's address (a GET) shows the partner, not a 404.
    const reload = await ui.get('/console/partners/ACME/ips');
    expect(reload.status).toBe(303);
    expect(reload.location).toBe('/console/partners/ACME');
    const dup = await ui.post('/console/partners/ACME/ips', { cidr: '203.0.113.7' });
    expect(dup.status).toBe(400);
    expect(dup.text).toContain('203.0.113.7 is already enabled for ACME');
    expect(dup.text).not.toContain('overlaps 203.0.113.7');
    const bad = await ui.post('/console/partners/ACME/ips', { cidr: '198.51.100.1/24' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('value="198.51.100.1/24"');
    const saved = await ui.post('/console/partners', { code: 'ACME', name: 'Acme Energy LLC', contact: 'ops@acme.test' });
    expect(saved.status).toBe(303);
    expect(partners.get('ACME')!.name).toBe('Acme Energy LLC');
  });
});

describe('the partner page', () => {
  it('lists the keys with their last use, checks an address (audited) and charts the week with links to searches', async () => {
    const ui = await as('viewer');
    const page = await ui.get('/console/partners/ACME');
    expect(page.text).toMatch(/<table id="keys" class="cards">[\s\S]*production[\s\S]*active/);
    expect(/<table id="keys" class="cards">[\s\S]*?<\/table>/.exec(page.text)![0]).not.toContain('support');
    expect(page.text).toMatch(/<svg role="img"[^>]*aria-label="production: requests, error rate and p95 latency per day"/);
    expect(page.text).toContain('/console/search?partner=ACME&amp;env=production&amp;range=custom&amp;from=');
    expect(page.text).not.toMatch(/<script>|style="/);
    const check = await ui.get('/console/partners/ACME?check=203.0.113.7');
    expect(check.text).toContain('203.0.113.7 is enabled for ACME');
    const wrong = await ui.get('/console/partners/ACME?check=10.0.0.0%2F8');
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('ip must be one IPv4 or IPv6 address');
    expect(await actions('support:VERA')).toContain('partner.ip.check ACME');
  });
});

describe('what a record page tells', () => {
  it('a validation failure shows the kept text and the error code; its curl repeats the text, never {"query":null}', async () => {
    const ui = await as('viewer');
    const page = await ui.get('/console/records/req-invalid-01');
    expect(page.text).not.toContain('answered before its body was read');
    expect(page.text).toContain('residentialPlans(zipCode: &quot;75001&quot;) { nope }');
    expect(page.text).toContain('GRAPHQL_VALIDATION_FAILED: Cannot query field');
    expect(page.text).toContain('--data &#39;{&quot;query&quot;:&quot;{ residentialPlans');
    expect(page.text).not.toContain('{&quot;query&quot;:null}');
    expect(page.text).toContain('Rerun is not possible: this request was not executed');
    const long = await ui.get('/console/records/req-long-0001');
    expect(long.text).toContain('No curl: the request was not executed');
    expect(long.text).not.toContain('{&quot;query&quot;:null}');
  });

  it('a wrong-environment refusal shows its reason and names its partner', async () => {
    const ui = await as('viewer');
    const page = await ui.get('/console/records/req-wrongenv-1');
    expect(page.text).toContain('the key is valid but for another environment');
    expect(page.text).toContain('(reason wrong_environment)');
    expect(page.text).toMatch(/<dt>Partner<\/dt><dd><a href="\/console\/partners\/ACME">ACME<\/a><\/dd>/);
    const timeout = await ui.get('/console/records/req-timeout-01');
    expect(timeout.text).toContain('Feed offers did not answer in time (timeout after 2000 ms)');
  });

  it('an answer that found nothing says so in Why this answer', async () => {
    const ui = await as('viewer');
    const page = await ui.get('/console/records/req-ok-0001');
    expect(page.text).toContain('No match: residentialPlans answered an empty list');
  });
});

describe('error-aware search', () => {
  const ids = (text: string) => [...text.matchAll(/href="\/console\/records\/([^"?]+)/g)].map((m) => decodeURIComponent(m[1]!));

  it('filters by outcome and shows the counts per outcome over every match', async () => {
    const ui = await as('viewer');
    const errors = await ui.get('/console/search?partner=ACME&outcome=graphql-errors&range=1d');
    expect(errors.status).toBe(200);
    expect(ids(errors.text).sort()).toEqual(['req-invalid-01', 'req-pii-000001', 'req-timeout-01']);
    expect(errors.text).toMatch(/GraphQL errors: <strong>3<\/strong>/);
    // req-ok-0001 only: the two reruns above are support reruns, hidden unless asked for.
    expect(errors.text).toMatch(/OK: <strong>1<\/strong>/);
    expect((await ui.get('/console/search?partner=ACME&outcome=ok&range=1d&reruns=include')).text).toMatch(/OK: <strong>3<\/strong>/);
    expect(errors.text).toMatch(/Refused \(4xx\): <strong>2<\/strong>/);
    expect(ids((await ui.get('/console/search?outcome=refused')).text).sort()).toEqual(['req-long-0001', 'req-wrongenv-1']);
  });

  it('filters by error code, client address, root field, ZIP and a custom time range', async () => {
    const ui = await as('viewer');
    expect(ids((await ui.get('/console/search?code=upstream_timeout')).text)).toEqual(['req-timeout-01']);
    expect(ids((await ui.get('/console/search?code=FORBIDDEN&partner=ACME')).text)).toEqual(['req-wrongenv-1']);
    expect(ids((await ui.get('/console/search?ip=203.0.113.50')).text)).toEqual(['req-invalid-01']);
    // A partner's request refused before its body was read (req-wrongenv-1) has no known root
    // field or ZIP: it is listed with any, marked as not read, so a search by ZIP finds it.
    const lookups = ids((await ui.get('/console/search?field=utilityAccounts')).text);
    expect(lookups).toContain('req-pii-000001');
    expect(lookups.filter((id) => !['req-pii-000001', 'req-wrongenv-1'].includes(id)).every((id) => id.startsWith('rerun.'))).toBe(true);
    const byZip = await ui.get('/console/search?zip=77002&partner=ACME');
    const zips = ids(byZip.text).filter((id) => !id.startsWith('rerun.'));
    expect(zips.sort()).toEqual(['req-pii-000001', 'req-timeout-01', 'req-wrongenv-1']);
    expect(byZip.text).toContain('(not read: refused first)');
    const from = new Date(Date.now() - 4 * 86_400_000).toISOString().slice(0, 16);
    const to = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 16);
    expect(ids((await ui.get(`/console/search?range=custom&from=${from}&to=${to}`)).text)).toEqual(['req-old-00001']);
    const bad = await ui.get('/console/search?outcome=weird&zip=1&range=custom&from=yesterday');
    expect(bad.status).toBe(400);
    for (const m of ['Outcome is one of', 'A ZIP is 5 digits', 'From is a date and time']) expect(bad.text).toContain(m);
  });
});

describe('sign-in and the admin listener', () => {
  it('returns to the page asked for after signing in, and says when the user signed out', async () => {
    const ui = consoleClient(admin.url);
    const first = await ui.get('/console/records/req-ok-0001');
    expect(first.status).toBe(303);
    expect(first.location).toBe('/console/sign-in?next=%2Fconsole%2Frecords%2Freq-ok-0001');
    const form = await ui.get(first.location!);
    expect(form.text).toContain('name="next" value="/console/records/req-ok-0001"');
    const signed = await ui.post('/console/sign-in', { token: tokens.viewer!, next: '/console/records/req-ok-0001' });
    expect(signed.location).toBe('/console/records/req-ok-0001');
    // Never another site.
    await ui.get('/console/sign-in');
    expect((await ui.post('/console/sign-in', { token: tokens.viewer!, next: '//evil.example/x' })).location).toBe('/console/search');
    await ui.get('/console/search');
    const out = await ui.post('/console/sign-out', {});
    expect(out.location).toBe('/console/sign-in?signed-out=1');
    expect((await ui.get(out.location!)).text).toContain('You signed out.');
  });

  it('answers /favicon.ico without an authentication warning; the checkout routes name the checkout token', async () => {
    const before = warnings.length;
    const icon = await fetch(`${admin.url}/favicon.ico`);
    expect(icon.status).toBe(404);
    expect(warnings.length).toBe(before);
    const check = await fetch(`${admin.url}/certification/allow-list/check?partner=ACME&ip=203.0.113.7`);
    expect(check.status).toBe(401);
    const body = await check.json();
    expect(body.message).toContain('CHECKOUT_TOKEN');
    expect(body.message).not.toContain('ADMIN_TOKEN');
    const bad = await fetch(`${admin.url}/certification/allow-list/check?partner=ACME&ip=nonsense`, {
      headers: { authorization: `Bearer ${CHECKOUT}` },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).not.toMatch(/CIDR|\/24|\/48/);
  });
});
