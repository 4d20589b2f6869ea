// `npm run docs:screenshots`: refreshes the support console screenshots in docs/images/ (search
// with outcome counts, record, a refused request's record, rerun diff, partner page) from a real
// gateway, reference upstream and Debian chromium. A changed offer (base charge +$5) makes the
// diff show price changes, as after a real price change.
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
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

const upstream = await startReferenceUpstream({ port: 0 });
const proxy = await startOfferProxy(upstream.url);
const port = await freePort();
const admin = `http://127.0.0.1:${port}`;
const t = await startTestGateway({ UPSTREAM_URL: proxy.url, ADMIN_TOKEN, ADMIN_PORT: String(port), CACHE_ENABLED: 'false' });
const browser = await launchChromium();
try {
  const { key } = await issueKey(path.join(t.dataDir, 'keys.json'), {
    environment: 'support',
    partnerCode: 'ALICE',
    roles: ['viewer', 'partners'],
  });
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
  await t.post('certification', '{ utilities(zipCode: "75001") { id name } }');
  // A GraphQL validation error and a certification key sent to production, as partners make them.
  await t.post('production', '{ residentialPlans(zipCode: "77002") { id planName } }');
  const refused = await t.post('production', '{ utilities(zipCode: "77002") { id } }', undefined, { key: t.keys.certification });
  const refusedId = refused.headers.get('x-request-id')!;
  await eventually(async () => (await fetch(`${admin}/replay/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).ok);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
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
  fs.mkdirSync(OUT, { recursive: true });
  await page.goto(`${admin}/console/search?partner=ACME&range=1h`);
  await page.screenshot({ path: path.join(OUT, 'console-search.png') });
  await eventually(async () => (await fetch(`${admin}/replay/${refusedId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).ok);
  await page.goto(`${admin}/console/records/${refusedId}`);
  await page.screenshot({ path: path.join(OUT, 'console-refused.png') });
  await page.goto(`${admin}/console/partners/ACME`);
  await page.screenshot({ path: path.join(OUT, 'console-partner.png'), fullPage: true });
  await page.goto(`${admin}/console/records/${id}`);
  await page.screenshot({ path: path.join(OUT, 'console-record.png') });
  proxy.bump = true;
  await page.getByRole('button', { name: /Rerun/ }).click();
  await page.waitForSelector('#verdict');
  await page.screenshot({ path: path.join(OUT, 'console-diff.png') });
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  await t.close();
  await proxy.close();
  await upstream.close();
}
