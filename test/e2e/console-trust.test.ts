// The console's two trust rows of issue 37 against real processes: `npm start` (start/main.ts)
// as a child process with the admin listener in a process of its own, records in a real
// redis-server, the reference upstream answering the account lookups.
// - Masking by type: a partner sends `utilityAccounts` in a named fragment, an inline fragment,
//   with aliases, with variables; a viewer opening those records never sees the account ids or
//   addresses the partner received, and is offered no raw response.
// - A reused request id: two partners send the same `x-request-id`; the console lists both and
//   asks which, each partner's search row opens its own record, a rerun acts on the chosen one,
//   and the audit target names environment and partner.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../scripts/harness/eventually.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { issueKey } from '../../stores/key-store.js';
import { consoleClient, type ConsoleClient } from '../support/console-client.js';
import { startListening, type Started } from '../support/main-process.js';

const ADMIN_TOKEN = 'admin-token-for-console-trust-0123456789';
const PII_KEY = 'f6'.repeat(32);
const ADDRESS = '901 Bagby St';
const ACCOUNT = 'accountId serviceAddress { line1 city zip }';
const ATTACKS: Record<string, { query: string; variables?: Record<string, unknown> }> = {
  'named-fragment': {
    query: `query { ...F } fragment F on Query { utilityAccounts(address: "${ADDRESS}", zipCode: "77002") { ${ACCOUNT} } }`,
  },
  'inline-fragment': {
    query: `{ ... on Query { utilityAccounts(address: "${ADDRESS}", zipCode: "77002") { ... on UtilityAccount { ${ACCOUNT} } } } }`,
  },
  aliases: {
    query: `{ a: utilityAccounts(address: "${ADDRESS}", zipCode: "77002") { id: accountId where: serviceAddress { street: line1 } } }`,
  },
  variables: {
    query:
      'query L($a: String!, $z: String!, $on: Boolean!) { utilityAccounts(address: $a, zipCode: $z) { ...A @include(if: $on) } } ' +
      `fragment A on UtilityAccount { ${ACCOUNT} }`,
    variables: { a: ADDRESS, z: '77002', on: true },
  },
};
const PLANS = '{ residentialPlans(zipCode: "75001", monthlyUsage: 1000) { id } }';
const REUSED = 'partner-chosen-id-0001';

let redis: TestRedis;
let s: Started;
const keys: Record<string, string> = {};
const secrets = new Set<string>();
let admin: string;

async function send(partner: 'ACME' | 'BETA', id: string, query: string, variables?: Record<string, unknown>) {
  const res = await fetch(`http://127.0.0.1:${s.ports.production}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': keys[partner]!, 'x-request-id': id },
    body: JSON.stringify({ query, variables }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-request-id')).toBe(id);
  return (await res.json()) as { data?: unknown; errors?: unknown };
}

/** Every string the partner received under an account: what a viewer must never see. */
function collect(v: unknown): void {
  if (typeof v === 'string' && v.length >= 5) secrets.add(v);
  else if (Array.isArray(v)) v.forEach(collect);
  else if (v && typeof v === 'object') Object.values(v).forEach(collect);
}

const replayed = async (id: string, q = '') =>
  (await fetch(`${admin}/replay/${id}${q}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status;

async function as(token: string): Promise<ConsoleClient> {
  const ui = consoleClient(admin);
  expect(await ui.signIn(token)).toBe(303);
  return ui;
}

const links = (text: string) => [...text.matchAll(/href="(\/console\/records\/[^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));

beforeAll(async () => {
  redis = await startTestRedis();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-console-trust-'));
  const keysFile = path.join(dataDir, 'keys.json');
  keys.ACME = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
  keys.BETA = (await issueKey(keysFile, { environment: 'production', partnerCode: 'BETA' })).key;
  keys.viewer = (await issueKey(keysFile, { environment: 'support', partnerCode: 'vito' })).key;
  keys.unmask = (await issueKey(keysFile, { environment: 'support', partnerCode: 'umar', roles: ['viewer', 'unmask'] })).key;
  s = await startListening(
    { ADMIN_TOKEN, KEYS_FILE: keysFile, REDIS_URL: redis.url, REPLAY_PII_KEY: PII_KEY, CACHE_ENABLED: 'false', LOG_LEVEL: 'info' },
    dataDir,
  );
  admin = `http://127.0.0.1:${s.ports.admin}`;
  for (const [name, a] of Object.entries(ATTACKS)) {
    const body = await send('ACME', `attack-${name}`, a.query, a.variables);
    expect(body.errors).toBeUndefined();
    collect(body.data);
  }
  secrets.add(ADDRESS);
  // The ZIP sent is not @personalData and is shown as sent; the account's ZIP equals it here.
  secrets.delete('77002');
  await send('ACME', REUSED, PLANS);
  await send('BETA', REUSED, PLANS);
  await eventually(async () => (await replayed(REUSED)) === 300, 20_000, 200);
  for (const name of Object.keys(ATTACKS)) await eventually(async () => (await replayed(`attack-${name}`)) === 200, 20_000, 200);
}, 240_000);

afterAll(async () => {
  if (s?.proc.exitCode === null) {
    s.proc.kill('SIGTERM');
    await s.exited;
  }
  if (s) fs.rmSync(s.dataDir, { recursive: true, force: true });
  await redis?.stop();
});

describe('console trust (npm start, admin process, Redis records)', () => {
  it('the lookups answered account ids and addresses (what the viewer must not see)', () => {
    expect([...secrets].some((x) => /^\d{10,}$/.test(x))).toBe(true);
    expect(secrets.size).toBeGreaterThan(2);
  });

  it.each(Object.keys(ATTACKS))('a viewer opening the %s lookup sees no account id or address, and no raw response', async (name) => {
    const ui = await as(keys.viewer!);
    const page = await ui.get(`/console/records/attack-${name}`);
    expect(page.status).toBe(200);
    for (const x of secrets) expect(page.text, `shows ${x}`).not.toContain(x);
    expect(page.text).toContain('id="raw-withheld"');
    expect(page.text).not.toContain('id="raw-response"');
    expect(page.text).toContain('utilityAccounts');
    const rows = await ui.get('/console/search?partner=ACME&field=utilityAccounts&range=1h');
    for (const x of secrets) expect(rows.text).not.toContain(x);
    expect((await ui.post(`/console/records/attack-${name}/rerun`, { reason: 'T-1' })).status).toBe(403);
  });

  it('the unmask role opens one after a reason: the values are there to be masked', async () => {
    const ui = await as(keys.unmask!);
    const unmasked = await ui.post('/console/records/attack-named-fragment/unmask', { reason: 'TICKET-37' });
    expect(unmasked.status).toBe(303);
    expect(unmasked.location).toMatch(/^\/console\/records\/attack-named-fragment\?env=production&partner=ACME&at=/);
    const clear = await ui.get(unmasked.location!);
    expect([...secrets].filter((x) => clear.text.includes(x)).length).toBeGreaterThan(1);
  });

  it('a reused request id lists both partners and asks; each search row opens its own partner; a rerun acts on the chosen one', async () => {
    const ui = await as(keys.viewer!);
    const choice = await ui.get(`/console/records/${REUSED}`);
    expect(choice.status).toBe(300);
    expect(choice.text).toMatch(/<td data-label="Partner">BETA<\/td><td data-label="Environment">production<\/td>/);
    expect(choice.text).toMatch(/<td data-label="Partner">ACME<\/td><td data-label="Environment">production<\/td>/);
    const acmeRow = links((await ui.get('/console/search?partner=ACME&range=1h')).text).find((h) => h.includes(REUSED))!;
    expect(acmeRow).toContain('partner=ACME');
    const page = await ui.get(acmeRow);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<dt>Partner<\/dt><dd><a href="\/console\/partners\/ACME">ACME<\/a><\/dd>/);
    expect((await ui.post(`/console/records/${REUSED}/rerun`, {})).status).toBe(409);
    const action = /action="([^"]+\/rerun[^"]*)"/.exec(page.text)![1]!.replaceAll('&amp;', '&');
    const ran = await ui.post(action, {});
    expect(ran.status).toBe(303);
    // Back on the chosen record's own page, which shows the rerun.
    expect(ran.location).toBe(acmeRow);
    const shown = await ui.get(ran.location!);
    const main = shown.text.replace(/[\s\S]*<main/, '').slice(0, 1500);
    expect(shown.status, main).toBe(200);
    expect(shown.text, main).toContain('id="verdict"');
    const trail = await ui.get('/console/audit?action=record');
    expect(trail.text).toContain(`production/ACME/${REUSED}`);
    // The target links to the record it names.
    const target = new RegExp(`record\\.rerun</td>\\s*<td class="mono"[^>]*><a href="([^"]+)">production/ACME/${REUSED}</a>`).exec(
      trail.text,
    );
    expect(target).not.toBeNull();
    const linked = await ui.get(target![1]!.replaceAll('&amp;', '&'));
    expect(linked.status).toBe(200);
    expect(linked.text).toMatch(/<dt>Partner<\/dt><dd><a href="\/console\/partners\/ACME">ACME<\/a><\/dd>/);
  });
});
