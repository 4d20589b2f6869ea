// `npm run docs:screenshots`: refreshes the support console screenshots in docs/images/ from a real
// gateway, reference upstream and Debian chromium: search with outcome counts, record, a refused
// request's record naming its key, rerun diff, partner page, a key-only partner's page, a feed
// incident, and a playground allowance read, given back and its audit entry. The pages support.md
// shows at both widths are taken at 1280 px (`<name>.png`) and 375 px (`<name>-375.png`). A
// changed offer (base charge +$5) makes the diff show price changes, as after a real price change.
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway } from './harness/gateway.js';
import { freePort } from './harness/redis-server.js';
import { eventually } from './harness/eventually.js';
import { launchChromium } from './harness/browser.js';
import { startOfferProxy } from './harness/offer-proxy.js';
import { startReferenceUpstream } from '../sources/reference-upstream/server.js';
import { issueKey } from '../stores/key-store.js';
import { savePartner } from '../stores/partners.js';

const ADMIN_TOKEN = 'docs-screenshots-admin-token-0123456789';
const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'images');
const PLANS =
  'query Plans($zip: String!, $usage: Int) { residentialPlans(zipCode: $zip, monthlyUsage: $usage) { id title price rates { usageKwh allInRateUsdPerKwh } } }';
/** Playground calls per client address in this run: spent after a few, so a 429 is recorded. */
const ALLOWANCE = 3;

const upstream = await startReferenceUpstream({ port: 0 });
const proxy = await startOfferProxy(upstream.url);
const port = await freePort();
const admin = `http://127.0.0.1:${port}`;
const t = await startTestGateway({
  UPSTREAM_URL: proxy.url,
  ADMIN_TOKEN,
  ADMIN_PORT: String(port),
  CACHE_ENABLED: 'false',
  PLAYGROUND_ALLOWANCE: String(ALLOWANCE),
  // A failing feed reaches the partner as an error (no earlier copy served, no open breaker).
  STALE_IF_ERROR_SECONDS: '0',
  UPSTREAM_BREAKER: 'false',
});
const browser = await launchChromium();

const replayed = (id: string) =>
  eventually(async () => (await fetch(`${admin}/replay/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).ok);

/** A signed-in page of the given width. */
async function signedIn(b: Browser, key: string, width: number): Promise<Page> {
  const page = await (await b.newContext({ viewport: { width, height: width < 600 ? 812 : 800 } })).newPage();
  await eventually(
    async () => {
      await page.goto(`${admin}/console/sign-in`);
      await page.getByLabel('Personal support token').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      return page.url().endsWith('/console/search');
    },
    10_000,
    300,
  );
  return page;
}

try {
  const keysFile = path.join(t.dataDir, 'keys.json');
  const { key } = await issueKey(keysFile, { environment: 'support', partnerCode: 'ALICE', roles: ['viewer', 'partners'] });
  // BOLT has keys and traffic but no partner record (keys issued from the CLI only).
  const bolt = (await issueKey(keysFile, { environment: 'production', partnerCode: 'BOLT' })).key;
  await issueKey(keysFile, { environment: 'certification', partnerCode: 'BOLT' });
  await savePartner(
    path.join(t.dataDir, 'partners.json'),
    { code: 'ACME', name: 'Acme Energy Apps', contact: 'qa@acme.example' },
    { actor: 'cli:docs' },
  );
  let id = '';
  for (const [zip, usage] of [
    ['75001', 1000],
    ['75201', 500],
    ['77002', 2000],
  ] as const) {
    const r = await t.post('production', PLANS, { zip, usage });
    id ||= r.headers.get('x-request-id')!;
  }
  for (const usage of [600, 900]) await t.post('production', PLANS, { zip: '75001', usage }, { key: bolt });
  await t.post('certification', '{ utilities(zipCode: "75001") { id name } }');
  // A GraphQL validation error and a certification key sent to production, as partners make them.
  await t.post('production', '{ residentialPlans(zipCode: "77002") { id planName } }');
  const refused = await t.post('production', '{ utilities(zipCode: "77002") { id } }', undefined, { key: t.keys.certification });
  const refusedId = refused.headers.get('x-request-id')!;
  // A supplier feed answering 503 for a while: requests of both partners fail on it.
  await fetch(`${upstream.url}/__faults/brightgrid`, { method: 'POST', body: JSON.stringify({ kind: 'status', status: 503 }) });
  let failedId = '';
  try {
    for (const [usage, partnerKey] of [
      [700, t.keys.production],
      [710, bolt],
      [720, t.keys.production],
      [730, bolt],
    ] as const) {
      const r = await t.post('production', PLANS, { zip: '75001', usage }, { key: partnerKey });
      failedId ||= r.headers.get('x-request-id')!;
    }
  } finally {
    await fetch(`${upstream.url}/__faults`, { method: 'DELETE' });
  }
  // The playground allowance of this address, spent: the last call answers 429.
  let spent = '';
  for (let i = 0; i <= ALLOWANCE; i++)
    spent = (await t.post('playground', `{ utilities(zipCode: "7500${i}") { id } }`)).headers.get('x-request-id')!;
  for (const r of [id, refusedId, failedId, spent]) await replayed(r);

  fs.mkdirSync(OUT, { recursive: true });
  const desktop = await signedIn(browser, key, 1280);
  const phone = await signedIn(browser, key, 375);
  /** The page at both widths: `<name>.png` and `<name>-375.png`. */
  const both = async (name: string, url: string, fullPage = false) => {
    for (const [page, suffix] of [
      [desktop, ''],
      [phone, '-375'],
    ] as const) {
      await page.goto(`${admin}${url}`);
      await page.screenshot({ path: path.join(OUT, `${name}${suffix}.png`), fullPage });
    }
  };

  await desktop.goto(`${admin}/console/search?partner=ACME&range=1h`);
  await desktop.screenshot({ path: path.join(OUT, 'console-search.png') });
  await both('console-refused', `/console/records/${refusedId}`);
  await desktop.goto(`${admin}/console/partners/ACME`);
  await desktop.screenshot({ path: path.join(OUT, 'console-partner.png'), fullPage: true });
  await both('console-key-only-partner', '/console/partners/BOLT', true);
  // The incident list, one click from a record whose feed call failed.
  await desktop.goto(`${admin}/console/records/${failedId}`);
  const incident = (await desktop.locator('a.incident').first().getAttribute('href'))!;
  await both('console-incident', incident, true);
  // The allowance: read from the 429 record's link, given back with a ticket, and the audit entry.
  await desktop.goto(`${admin}/console/records/${spent}`);
  const allowance = (await desktop.locator('#allowance-link').getAttribute('href'))!;
  await both('console-allowance-read', allowance);
  await desktop.goto(`${admin}${allowance}`);
  await desktop.getByLabel('Ticket id').fill('SUP-1234');
  await desktop.getByRole('button', { name: 'Give the allowance back' }).click();
  await desktop.waitForSelector('[role="status"]');
  await both('console-allowance-reset', new URL(desktop.url()).pathname + new URL(desktop.url()).search);
  await both('console-allowance-audit', '/console/audit?action=allowance.reset');

  await desktop.goto(`${admin}/console/records/${id}`);
  await desktop.screenshot({ path: path.join(OUT, 'console-record.png') });
  proxy.bump = true;
  await Promise.all([desktop.waitForEvent('load'), desktop.getByRole('button', { name: /Rerun/ }).click()]);
  await desktop.waitForSelector('#verdict');
  await desktop.screenshot({ path: path.join(OUT, 'console-diff.png') });
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  await t.close();
  await proxy.close();
  await upstream.close();
}
