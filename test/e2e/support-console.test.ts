// The support console in a real browser (Debian chromium via playwright-core): sign in with a
// personal support token, search a partner's requests, open one (the response byte for byte),
// rerun it (identical; then a changed offer shows in the diff; the browser ends on the record's
// own URL), a partner's own `rerun.…` request id shown as its traffic, the partner page's quota
// under PARTNER_QUOTA_DEFAULT (and `npm run partners -- list`), chart labels of 12 px, CSRF
// refusals, the audit trail, and sign-out within seconds of revoking the token.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { launchChromium } from '../../scripts/harness/browser.js';
import { startOfferProxy, type OfferProxy } from '../../scripts/harness/offer-proxy.js';
import { startReferenceUpstream, type ReferenceUpstream } from '../../sources/reference-upstream/server.js';
import { issueKey, revokeKeys } from '../../stores/key-store.js';
import { savePartner } from '../../stores/partners.js';
import { runPartnersCli } from '../../cli/partners.js';

const ADMIN_TOKEN = 'admin-token-for-console-tests-0123456789';
const PLANS =
  'query Plans($zip: String!, $usage: Int) { residentialPlans(zipCode: $zip, monthlyUsage: $usage) { id title price rates { usageKwh allInRateUsdPerKwh } } }';

let upstream: ReferenceUpstream;
let proxy: OfferProxy;
let t: TestGateway;
let admin: string;
let browser: Browser;
let page: Page;
let supportKey: string;
let supportKeyId: string;
let requestId: string;
let partnerBody: string;
/** A partner's own request id that happens to start like a support rerun's. */
const OWN_RERUN_ID = 'rerun.acme-own-0001';
/** The gateways' default quota in this test (the built-in one is 50/s, burst 200). */
const QUOTA_DEFAULT = '400/900';
let partnerEnv: Record<string, string>;

async function signIn(p: Page, token: string): Promise<void> {
  await p.goto(`${admin}/console`);
  await p.getByLabel('Personal support token').fill(token);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

beforeAll(async () => {
  upstream = await startReferenceUpstream({ port: 0 });
  proxy = await startOfferProxy(upstream.url);
  const port = await freePort();
  admin = `http://127.0.0.1:${port}`;
  t = await startTestGateway({
    UPSTREAM_URL: proxy.url,
    ADMIN_TOKEN,
    ADMIN_PORT: String(port),
    CACHE_ENABLED: 'false',
    PARTNER_QUOTA_DEFAULT: QUOTA_DEFAULT,
  });
  // ACME's record sets a quota for certification only: production has the default.
  partnerEnv = { DATA_DIR: t.dataDir, KEYS_FILE: path.join(t.dataDir, 'keys.json'), PARTNER_QUOTA_DEFAULT: QUOTA_DEFAULT };
  await savePartner(path.join(t.dataDir, 'partners.json'), { code: 'ACME', name: 'Acme', contact: 'ops@acme.example' }, { actor: 'cli:t' });
  const quiet = { out: () => {}, err: () => {} };
  expect(
    await runPartnersCli(['quota', '--partner', 'ACME', '--env', 'certification', '--rate', '7', '--burst', '70'], partnerEnv, quiet),
  ).toBe(0);
  const issued = await issueKey(path.join(t.dataDir, 'keys.json'), { environment: 'support', partnerCode: 'alice' });
  supportKey = issued.key;
  supportKeyId = issued.record.id;
  const sent = await t.post('production', PLANS, { zip: '75001', usage: 1000 });
  expect(sent.status).toBe(200);
  requestId = sent.headers.get('x-request-id')!;
  partnerBody = sent.text;
  const own = await t.post('production', '{ utilities(zipCode: "75001") { id } }', undefined, {
    headers: { 'x-request-id': OWN_RERUN_ID },
  });
  expect(own.headers.get('x-request-id')).toBe(OWN_RERUN_ID);
  // The replay record is written in the background.
  for (const id of [requestId, OWN_RERUN_ID])
    await eventually(async () => (await fetch(`${admin}/replay/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).ok);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await proxy?.close();
  await upstream?.close();
});

describe('support console in a browser', () => {
  it('signs in with a personal support token (the keys file is reloaded, so poll)', async () => {
    await eventually(
      async () => {
        await signIn(page, supportKey);
        return page.url().endsWith('/console/search');
      },
      10_000,
      300,
    );
    await expect(page.getByText('Signed in as')).toBeTruthy();
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'epc_session')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Strict');
    expect(session.expires).toBeGreaterThan(Date.now() / 1000);
  });

  it('refuses a wrong token with a clear message', async () => {
    const other = await browser.newPage();
    await signIn(other, 'epk_supp_not-a-real-token');
    expect(await other.getByRole('alert').textContent()).toMatch(/not an active support token/);
    await other.close();
  });

  it("searches a partner's requests and opens one: the response is byte for byte what the partner got", async () => {
    await page.goto(`${admin}/console/search`);
    await page.getByLabel('Partner').fill('acme');
    await page.locator('#more-filters > summary').click();
    await page.getByLabel('Environment').selectOption('production');
    await page.getByLabel('Status').selectOption('2xx');
    await page.getByRole('button', { name: 'Search' }).click();
    const link = page.getByRole('link', { name: requestId });
    await link.click();
    await page.waitForURL(/\/console\/records\//);
    expect(await page.locator('#raw-response').textContent()).toBe(partnerBody);
    expect(await page.locator('#query').textContent()).toContain('residentialPlans(zipCode: $zip, monthlyUsage: $usage)');
    expect(await page.locator('#curl').textContent()).toContain('x-api-key: <API_KEY>');
    expect(await page.locator('#curl').textContent()).not.toContain(t.keys.production);
    expect(await page.locator('#upstream li').count()).toBeGreaterThan(0);
    expect(await page.locator('#headers').textContent()).toContain(requestId);
  });

  it('reruns the record: identical today; after an offer changes upstream, the diff shows the price change', async () => {
    await page.goto(`${admin}/console/search?id=${requestId}`);
    const recordUrl = page.url();
    expect(recordUrl).toContain(`/console/records/${requestId}?env=production&partner=ACME&at=`);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: /Rerun/ }).click()]);
    expect(await page.locator('#verdict').textContent()).toMatch(/identical/);
    // Post/Redirect/Get: the browser is on the record's own URL, and a reload reruns nothing.
    expect(page.url()).toBe(recordUrl);
    expect(await page.locator('#meta').textContent()).toContain(requestId);
    const reruns = async () => (await (await page.request.get(`${admin}/console/audit?action=record.rerun`)).text()).split('<tr>').length;
    const before = await reruns();
    await page.reload();
    expect(await page.locator('#verdict').textContent()).toMatch(/identical/);
    expect(await reruns()).toBe(before);

    proxy.bump = true;
    await page.goto(`${admin}/console/records/${requestId}`);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: /Rerun/ }).click()]);
    expect(await page.locator('#verdict').textContent()).toMatch(/different/);
    const priceChanges = await page.locator('#changes li.price').allTextContents();
    expect(priceChanges.join('\n')).toMatch(/price|allInRateUsdPerKwh/);
    expect(await page.locator('#side-by-side tr.chg').count()).toBeGreaterThan(0);
    proxy.bump = false;
  });

  it("shows a partner's own rerun.… request id as its ordinary traffic; the console's reruns stay apart", async () => {
    const rows = async (q: string) => {
      await page.goto(`${admin}/console/search?partner=ACME&range=1h${q}`);
      return page.locator('#results td[data-label="Request id"]').allTextContents();
    };
    const plain = await rows('');
    const own = plain.find((c) => c.includes(OWN_RERUN_ID));
    expect(own).toBeDefined();
    expect(own).not.toContain('support rerun');
    // The console's rerun (the test above) is marked by the gateway, not by its id: hidden, and listed under "only".
    expect(plain.filter((c) => c.includes('support rerun'))).toEqual([]);
    const only = await rows('&reruns=only');
    expect(only.length).toBeGreaterThan(0);
    expect(only.every((c) => c.includes('support rerun'))).toBe(true);
    expect(only.some((c) => c.includes(OWN_RERUN_ID))).toBe(false);
    await page.goto(`${admin}/console/search?id=${OWN_RERUN_ID}`);
    expect(await page.locator('#meta').textContent()).not.toContain('support rerun');
  });

  it("shows the quota that applies: the record's own, else PARTNER_QUOTA_DEFAULT; `partners list` says the same", async () => {
    await page.goto(`${admin}/console/partners/ACME`);
    const row = (env: string) => page.locator('#quota tbody tr', { hasText: env }).textContent();
    expect(await row('production')).toMatch(/400\/s, burst 900[\s\S]*PARTNER_QUOTA_DEFAULT/);
    expect(await row('certification')).toMatch(/7\/s, burst 70[\s\S]*its partner record/);
    expect(await page.locator('#quota-form').textContent()).toContain('the default (400/s, burst 900)');
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => {} };
    expect(await runPartnersCli(['list'], partnerEnv, io)).toBe(0);
    expect(out.join('\n')).toContain(
      'quota: production 400/s, burst 900 (default: PARTNER_QUOTA_DEFAULT); certification 7/s, burst 70 (its record)',
    );
    out.length = 0;
    expect(await runPartnersCli(['list', '--json'], partnerEnv, io)).toBe(0);
    expect(JSON.parse(out.join('\n'))[0].effectiveQuotas).toEqual({
      production: { quota: { requestsPerSecond: 400, burst: 900 }, source: 'default' },
      certification: { quota: { requestsPerSecond: 7, burst: 70 }, source: 'record' },
    });
  });

  it("draws the partner page's chart labels at 12 px or more", async () => {
    await page.goto(`${admin}/console/partners/ACME`);
    const sizes = await page
      .locator('#charts svg text')
      .evaluateAll((texts) =>
        texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * ((t as SVGGraphicsElement).getScreenCTM()?.a ?? 0)),
      );
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(12);
  });

  it('refuses a state-changing request without the CSRF token, or from another origin', async () => {
    const noToken = await page.request.post(`${admin}/console/records/${requestId}/rerun`, { form: { other: '1' }, maxRedirects: 0 });
    expect(noToken.status()).toBe(403);
    expect(await noToken.text()).toMatch(/CSRF check failed/);
    const html = await (await page.request.get(`${admin}/console/records/${requestId}`)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
    const foreign = await page.request.post(`${admin}/console/sign-out`, {
      form: { _csrf: csrf },
      headers: { origin: 'https://evil.example' },
      maxRedirects: 0,
    });
    expect(foreign.status()).toBe(403);
    const signOutWithout = await page.request.post(`${admin}/console/sign-out`, { form: {}, maxRedirects: 0 });
    expect(signOutWithout.status()).toBe(403);
    // Still signed in.
    expect((await page.request.get(`${admin}/console/session`)).status()).toBe(204);
  });

  it('serves pages with a strict CSP and every asset from the gateway', async () => {
    const res = await page.request.get(`${admin}/console/search`);
    expect(res.headers()['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'/);
    expect(res.headers()['x-frame-options']).toBe('DENY');
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(admin)) external.push(r.url());
    });
    await page.goto(`${admin}/console/search`);
    expect(external).toEqual([]);
  });

  it('is keyboard usable: the skip link and the search form are reachable with Tab', async () => {
    await page.goto(`${admin}/console/search`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('id');
    await page.keyboard.type(requestId);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/console\/records\//);
  });

  it('lists each step in the audit log, in the console and from the CLI', async () => {
    await page.goto(`${admin}/console/audit`);
    const text = await page.locator('#audit').textContent();
    for (const action of ['sign-in', 'search', 'record.view', 'record.rerun']) expect(text).toContain(action);
    expect(text).toContain('support:ALICE');
    const { runAuditCli } = await import('../../cli/audit.js');
    const out: string[] = [];
    const code = await runAuditCli(
      ['list', '--actor', 'support:ALICE', '--action', 'record.rerun', '--json'],
      { DATA_DIR: t.dataDir, KEYS_FILE: path.join(t.dataDir, 'keys.json') },
      { out: (l) => out.push(l), err: () => {} },
    );
    expect(code).toBe(0);
    expect(out.map((l) => JSON.parse(l).target)).toContain(`production/ACME/${requestId}`);
  });

  it('signs the user out within a few seconds once the support token is revoked', async () => {
    await page.goto(`${admin}/console/search`);
    await revokeKeys(path.join(t.dataDir, 'keys.json'), { id: supportKeyId });
    await page.waitForURL(/\/console\/sign-in/, { timeout: 10_000 });
    expect(await page.getByRole('alert').textContent()).toMatch(/session ended/);
    const res = await page.request.get(`${admin}/console/search`, { maxRedirects: 0 });
    expect(res.status()).toBe(303);
    await page.goto(`${admin}/console/audit`);
    expect(page.url()).toMatch(/sign-in/);
  });
});
