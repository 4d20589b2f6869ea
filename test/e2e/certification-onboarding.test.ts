// Certification onboarding: a partner's test IP enabled in the console is answered as
// enabled by the checkout endpoint of every instance within a second, and removing it likewise;
// the whole allow-list; IPv4 and IPv6, single addresses and ranges; bad input refused clearly;
// certification enrollment links point at the certification checkout.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { consoleClient, type ConsoleClient } from '../support/console-client.js';
import { issueKey } from '../../stores/key-store.js';
import { runPartnersCli } from '../../cli/partners.js';

const ADMIN_TOKEN = 'admin-token-for-onboarding-tests-012345';
const CHECKOUT_TOKEN = 'checkout-token-for-onboarding-tests-0123';
const CERT_BASE = 'https://checkout-cert.energyplans.example/enroll';
const LIVE_BASE = 'https://enroll.energyplans.example/residential';

let a: TestGateway;
let b: TestGateway;
let adminA: string;
let adminB: string;
let partnersFile: string;
let ui: ConsoleClient;

const check = async (admin: string, partner: string, ip: string, token = CHECKOUT_TOKEN) => {
  const res = await fetch(`${admin}/certification/allow-list/check?${new URLSearchParams({ partner, ip })}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, json: (await res.json()) as any };
};

beforeAll(async () => {
  const [pa, pb] = [await freePort(), await freePort()];
  adminA = `http://127.0.0.1:${pa}`;
  adminB = `http://127.0.0.1:${pb}`;
  a = await startTestGateway({
    ADMIN_TOKEN,
    CHECKOUT_TOKEN,
    ADMIN_PORT: String(pa),
    CERTIFICATION_ENROLLMENT_BASE_URL: CERT_BASE,
    ENROLLMENT_BASE_URL: LIVE_BASE,
  });
  partnersFile = path.join(a.dataDir, 'partners.json');
  // A second instance over the same keys and partner records (a shared volume in production).
  b = await startTestGateway({
    ADMIN_TOKEN,
    CHECKOUT_TOKEN,
    ADMIN_PORT: String(pb),
    KEYS_FILE: path.join(a.dataDir, 'keys.json'),
    PARTNERS_FILE: partnersFile,
    UPSTREAM_URL: a.g.upstreamUrl,
  });
  const support = await issueKey(path.join(a.dataDir, 'keys.json'), {
    environment: 'support',
    partnerCode: 'BOB',
    roles: ['viewer', 'partners'],
  });
  ui = consoleClient(adminA);
  await eventually(async () => (await ui.signIn(support.key)) === 303, 10_000, 200);
  const saved = await ui.post('/console/partners', { code: 'acme', name: 'Acme Energy Apps', contact: 'qa@acme.example' });
  expect(saved.status).toBe(303);
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe('certification test IPs through the console and the checkout endpoint', () => {
  it('answers an IP enabled in the console as enabled on every instance within a second, and a removal as fast', async () => {
    expect((await check(adminB, 'ACME', '203.0.113.7')).json.enabled).toBe(false);
    const res = await ui.post('/console/partners/ACME/ips', { cidr: '203.0.113.7' });
    // Answered with a redirect: reloading the page never repeats the change.
    expect(res.status, res.text).toBe(303);
    expect((await ui.get(res.location!)).text).toContain('203.0.113.7 enabled');
    for (const admin of [adminA, adminB]) {
      const answer = await eventually(
        async () => (await check(admin, 'acme', '203.0.113.7')).json.enabled && (await check(admin, 'acme', '203.0.113.7')).json,
        1000,
        20,
      );
      expect(answer).toMatchObject({
        partner: 'ACME',
        ip: '203.0.113.7',
        enabled: true,
        match: { cidr: '203.0.113.7', addedBy: 'support:BOB' },
      });
    }
    await ui.post('/console/partners/ACME/ips/remove', { cidr: '203.0.113.7' });
    for (const admin of [adminA, adminB])
      await eventually(async () => (await check(admin, 'ACME', '203.0.113.7')).json.enabled === false, 1000, 20);
  });

  it('handles IPv4 and IPv6 ranges, and serves the whole allow-list', async () => {
    expect((await ui.post('/console/partners/ACME/ips', { cidr: '198.51.100.0/28' })).status).toBe(303);
    expect((await ui.post('/console/partners/ACME/ips', { cidr: '2001:db8:42::/48' })).status).toBe(303);
    await eventually(async () => (await check(adminB, 'ACME', '2001:db8:42:1::9')).json.enabled, 1000, 20);
    expect((await check(adminB, 'ACME', '198.51.100.15')).json.match.cidr).toBe('198.51.100.0/28');
    expect((await check(adminB, 'ACME', '198.51.100.16')).json.enabled).toBe(false);
    expect((await check(adminB, 'ACME', '2001:db8:43::1')).json.enabled).toBe(false);
    expect((await check(adminB, 'OTHER', '198.51.100.1')).json.enabled).toBe(false);
    const list = await fetch(`${adminB}/certification/allow-list`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(await list.json()).toEqual({ partners: [{ partner: 'ACME', testIps: ['198.51.100.0/28', '2001:db8:42::/48'] }] });
  });

  it('refuses malformed, enormous and overlapping entries in the console with a clear error', async () => {
    for (const [cidr, message] of [
      ['999.1.1.1', 'not an IPv4 or IPv6'],
      ['10.0.0.0/8', 'too large a range'],
      ['198.51.100.4', 'overlaps 198.51.100.0/28'],
      ['2001:db8:42:7::/64', 'overlaps 2001:db8:42::/48'],
      ['198.51.100.1/24', 'host bits set'],
    ]) {
      const res = await ui.post('/console/partners/ACME/ips', { cidr: cidr! });
      expect(res.status).toBe(400);
      expect(res.text).toContain(message);
    }
    const bad = await ui.post('/console/partners', { code: 'x', name: '<b>', contact: '' });
    expect(bad.status).toBe(400);
  });

  it('refuses bad checkout questions with 400 and unauthenticated ones with 401', async () => {
    expect((await check(adminA, 'ACME', 'not-an-ip')).status).toBe(400);
    expect((await check(adminA, 'ACME', '198.51.100.0/28')).json.problems[0]).toMatch(/single address/);
    expect((await check(adminA, '!', '1.2.3.4')).status).toBe(400);
    expect((await check(adminA, 'ACME', '')).status).toBe(400);
    expect((await check(adminA, 'ACME', '1.2.3.4', 'wrong-token')).status).toBe(401);
    // The checkout token opens the checkout routes only.
    expect((await fetch(`${adminA}/replay?limit=1`, { headers: { authorization: `Bearer ${CHECKOUT_TOKEN}` } })).status).toBe(401);
  });

  it('needs the session CSRF token to change a partner', async () => {
    const res = await ui.post('/console/partners/ACME/ips', { cidr: '192.0.2.1' }, { csrf: false });
    expect(res.status).toBe(403);
    expect((await check(adminA, 'ACME', '192.0.2.1')).json.enabled).toBe(false);
  });

  it('edits the same records from the CLI, audited', async () => {
    const out: string[] = [];
    const env = { DATA_DIR: a.dataDir, KEYS_FILE: path.join(a.dataDir, 'keys.json') };
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
    expect(await runPartnersCli(['allow', '--partner', 'acme', '--ip', '192.0.2.10'], env, io)).toBe(0);
    await eventually(async () => (await check(adminB, 'ACME', '192.0.2.10')).json.enabled, 1000, 20);
    expect(await runPartnersCli(['allow', '--partner', 'acme', '--ip', '192.0.2.10'], env, io)).toBe(1);
    expect(out.join('\n')).toMatch(/192\.0\.2\.10 is already enabled for ACME/);
    expect(await runPartnersCli(['check', '--partner', 'acme', '--ip', '192.0.2.10'], env, io)).toBe(0);
    expect(await runPartnersCli(['allow', '--partner', 'acme'], env, io)).toBe(2);
    const audit = await ui.get('/console/audit?action=partner.ip.enable');
    expect(audit.text).toContain('cli:');
    expect(audit.text).toContain('support:BOB');
    expect(
      JSON.parse(fs.readFileSync(partnersFile, 'utf8')).partners[0].testIps.some((t: { cidr: string }) => t.cidr === '192.0.2.10'),
    ).toBe(true);
  });

  it('answers certification enrollment links into the certification checkout, production into the live one', async () => {
    const q = '{ residentialPlans(zipCode: "75001", monthlyUsage: 1000) { headlessEnrollmentUrl } }';
    const cert = await a.post('certification', q);
    const live = await a.post('production', q);
    const certUrls = cert.json.data.residentialPlans.map((p: { headlessEnrollmentUrl: string }) => p.headlessEnrollmentUrl);
    const liveUrls = live.json.data.residentialPlans.map((p: { headlessEnrollmentUrl: string }) => p.headlessEnrollmentUrl);
    expect(certUrls.length).toBeGreaterThan(0);
    for (const u of certUrls) expect(u.startsWith(`${CERT_BASE}?`)).toBe(true);
    for (const u of liveUrls) expect(u.startsWith(`${LIVE_BASE}?`)).toBe(true);
  });
});

describe('request quota on the partner page', () => {
  const UTILITIES = '{ utilities(zipCode: "75001") { id } }';
  const policy = async (g: TestGateway) => (await g.post('production', UTILITIES)).headers.get('ratelimit-policy');

  it('sets a quota that every instance applies, shows its refusals, and refuses bad values', async () => {
    expect((await ui.get('/console/partners/ACME')).text).toMatch(
      /production<\/td><td data-label="Quota">50\/s, burst 200<\/td>\s*<td data-label="Set by">the default, <code>PARTNER_QUOTA_DEFAULT/,
    );
    const set = await ui.post('/console/partners/ACME/quota', { env: 'production', mode: 'rate', rate: '1', burst: '2' });
    expect(set.status).toBe(303);
    for (const g of [a, b]) await eventually(async () => (await policy(g)) === '"default";q=2;w=2', 2000, 20);
    const answers = await Promise.all(Array.from({ length: 6 }, () => a.post('production', UTILITIES)));
    expect(answers.some((r) => r.status === 429)).toBe(true);
    // Replay records are written behind the answers: the page counts them once they are.
    await eventually(async () => /id="quota-refusals">.*PARTNER_QUOTA/s.test((await ui.get('/console/partners/ACME')).text), 10_000, 200);
    const page = (await ui.get('/console/partners/ACME')).text;
    expect(page).toMatch(
      /production<\/td><td data-label="Quota">1\/s, burst 2<\/td>\s*<td data-label="Set by">its partner record<\/td><td class="num" data-label="Refused \(7 days\)"><a href="[^"]*code=RATE_LIMITED[^"]*">[1-9]/,
    );

    for (const [form, message] of [
      [{ rate: '0', burst: '2' }, /at least 1/],
      [{ rate: 'lots', burst: '2' }, /whole number from 1 to 10,000, not &quot;lots&quot;/],
      [{ rate: '5', burst: '9999999' }, /burst is at most 100,000/],
    ] as const) {
      const bad = await ui.post('/console/partners/ACME/quota', { env: 'production', mode: 'rate', ...form });
      expect(bad.status).toBe(400);
      expect(bad.text).toMatch(message);
      expect(bad.text).toContain(`value="${form.rate}"`);
    }
    expect((await ui.post('/console/partners/ACME/quota', { env: 'staging', mode: 'unlimited' })).status).toBe(400);
    expect((await ui.post('/console/partners/ACME/quota', { env: 'production', mode: 'default' })).status).toBe(303);
    for (const g of [a, b]) await eventually(async () => (await policy(g)) === '"default";q=200;w=4', 2000, 20);
    expect((await ui.get('/console/audit?action=partner.quota')).text).toContain('support:BOB');
  });
});
