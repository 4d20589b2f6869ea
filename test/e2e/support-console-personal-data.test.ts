// The support console in Chromium against a whole gateway holding REPLAY_PII_KEY: a viewer sees a
// `utilityAccounts` record masked by value (operation, shape, real size) with Rerun disabled and
// saying why; an unmask session reruns it as sent (the sealed operation, opened in the server);
// the page asked for comes back after signing in; 375 px wide pages fit; the diff shows the
// changed lines with context and the full side-by-side one click away; no favicon warnings. The
// ticket is typed once per record (unmask, then rerun, each audited with it), every action ends
// on the record's own URL, and once the address is shown "Why this answer" stops saying it needs
// the unmask role.
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { launchChromium } from '../../scripts/harness/browser.js';
import { startOfferProxy, type OfferProxy } from '../../scripts/harness/offer-proxy.js';
import { startReferenceUpstream, type ReferenceUpstream } from '../../sources/reference-upstream/server.js';
import { issueKey } from '../../stores/key-store.js';

const ADMIN_TOKEN = 'admin-token-for-console-tests-0123456789';
const PII_KEY = 'c3'.repeat(32);
const LOOKUP = '{ utilityAccounts(address: "901 Bagby St", zipCode: "77002") { accountId } }';
const PLANS = 'query Plans($zip: String!) { residentialPlans(zipCode: $zip, monthlyUsage: 1000) { id title price } }';
const NO_MATCH = '{ utilityAccounts(address: "12 Nowhere Lane", zipCode: "77002") { accountId } }';

let upstream: ReferenceUpstream;
let proxy: OfferProxy;
let t: TestGateway;
let admin: string;
let browser: Browser;
const tokens: Record<string, string> = {};
const warnings: string[] = [];
let lookupId: string;
let lookupBytes: number;
let plansId: string;
let noMatchId: string;

async function signIn(p: Page, token: string): Promise<void> {
  await p.getByLabel('Personal support token').fill(token);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

async function session(token: string, width = 1280): Promise<Page> {
  const p = await (await browser.newContext({ viewport: { width, height: 800 } })).newPage();
  await eventually(
    async () => {
      await p.goto(`${admin}/console/sign-in`);
      await signIn(p, token);
      return p.url().endsWith('/console/search');
    },
    10_000,
    300,
  );
  return p;
}

beforeAll(async () => {
  upstream = await startReferenceUpstream({ port: 0 });
  proxy = await startOfferProxy(upstream.url);
  const port = await freePort();
  admin = `http://127.0.0.1:${port}`;
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l && JSON.parse(l).level >= 40) warnings.push(JSON.parse(l).msg);
      cb();
    },
  });
  t = await startTestGateway(
    { UPSTREAM_URL: proxy.url, ADMIN_TOKEN, ADMIN_PORT: String(port), CACHE_ENABLED: 'false', REPLAY_PII_KEY: PII_KEY },
    { logger: pino({ level: 'warn' }, sink) },
  );
  const file = path.join(t.dataDir, 'keys.json');
  tokens.viewer = (await issueKey(file, { environment: 'support', partnerCode: 'vic' })).key;
  tokens.unmask = (await issueKey(file, { environment: 'support', partnerCode: 'una', roles: ['viewer', 'unmask'] })).key;
  const lookup = await t.post('production', LOOKUP);
  expect(lookup.status).toBe(200);
  lookupId = lookup.headers.get('x-request-id')!;
  lookupBytes = Buffer.byteLength(lookup.text);
  const plans = await t.post('production', PLANS, { zip: '75001' });
  plansId = plans.headers.get('x-request-id')!;
  const noMatch = await t.post('production', NO_MATCH);
  expect(noMatch.json).toEqual({ data: { utilityAccounts: [] } });
  noMatchId = noMatch.headers.get('x-request-id')!;
  for (const id of [lookupId, plansId, noMatchId])
    await eventually(async () => (await fetch(`${admin}/replay/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).ok);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await proxy?.close();
  await upstream?.close();
});

describe('personal data in the console', () => {
  it('a viewer sees the lookup masked by value, Unmask and Rerun disabled with the reason shown', async () => {
    const p = await session(tokens.viewer!);
    await p.goto(`${admin}/console/records/${lookupId}`);
    expect(await p.locator('#query').textContent()).toContain('utilityAccounts(address: "••••", zipCode: "77002")');
    expect(await p.locator('#meta').textContent()).toContain('(utilityAccounts)');
    expect(await p.locator('#response-size').textContent()).toContain(`${lookupBytes} bytes as sent; shown masked`);
    expect(await p.content()).not.toContain('901 Bagby St');
    const rerun = p.getByRole('button', { name: /Rerun/ });
    expect(await rerun.isDisabled()).toBe(true);
    // It looks disabled (greyed, not the primary blue) and says why next to it.
    const look = await rerun.evaluate((b) => ({ bg: getComputedStyle(b).backgroundColor, cursor: getComputedStyle(b).cursor }));
    expect(look.bg).not.toBe('rgb(11, 87, 208)');
    expect(look.cursor).toBe('not-allowed');
    expect(await p.locator('#rerun-why').textContent()).toMatch(/needs the unmask role/);
    expect(await p.locator('#rerun-why').isVisible()).toBe(true);
    await p.context().close();
  });

  it('an unmask session reruns it as it was sent: the real lookup answers, no parse failure', async () => {
    const p = await session(tokens.unmask!);
    await p.goto(`${admin}/console/records/${lookupId}`);
    await p.getByLabel('Ticket id for the rerun').fill('TICKET-7');
    await Promise.all([p.waitForEvent('load'), p.getByRole('button', { name: /Rerun/ }).click()]);
    expect(p.url()).not.toMatch(/\/rerun(\?|$)/);
    const verdict = await p.locator('#verdict').textContent();
    expect(verdict).toMatch(/identical/);
    expect(await p.content()).not.toContain('GRAPHQL_PARSE_FAILED');
    await p.context().close();
  });
});

describe('one ticket per record, actions ending on the record', () => {
  it('unmask with a ticket, then rerun without typing it again: both audited with it, the URL the record’s', async () => {
    const p = await session(tokens.unmask!);
    // Found by its id, the record opens at its own URL (id, environment, partner, time).
    await p.goto(`${admin}/console/search?id=${noMatchId}`);
    const recordUrl = p.url();
    expect(recordUrl).toMatch(/\/console\/records\/[^/?]+\?env=production&partner=ACME&at=/);
    // Masked: the Why box says how to read the address (this session may show it).
    expect(await p.locator('#why').textContent()).toMatch(/Show personal data \(above\) to read the address/);
    expect(await p.getByLabel('Ticket id for the rerun').inputValue()).toBe('');
    await p.getByLabel('Reason (ticket id)').fill('TICKET-41');
    await Promise.all([p.waitForEvent('load'), p.getByRole('button', { name: 'Show personal data (logged)' }).click()]);
    expect(p.url()).toBe(recordUrl);
    expect(await p.locator('#query').textContent()).toContain('12 Nowhere Lane');
    const why = (await p.locator('#why').textContent())!;
    expect(why).toContain('No match: utilityAccounts answered an empty list');
    expect(why).not.toMatch(/needs the unmask role|Show personal data/);
    expect(why).toMatch(/shown in the query below/);
    // The ticket is kept for this record: the rerun's field is filled in.
    expect(await p.getByLabel('Ticket id for the rerun').inputValue()).toBe('TICKET-41');
    await Promise.all([p.waitForEvent('load'), p.getByRole('button', { name: /Rerun/ }).click()]);
    expect(p.url()).toBe(recordUrl);
    expect(await p.locator('#verdict').textContent()).toMatch(/identical/);
    // A reload repeats neither action (no form is posted again).
    await p.reload();
    expect(p.url()).toBe(recordUrl);
    await p.goto(`${admin}/console/audit?actor=support:UNA&action=record`);
    const rows = await p.locator('#audit tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        what: tr.querySelector('td[data-label="What"]')?.textContent?.trim(),
        target: tr.querySelector('td[data-label="Target"]')?.textContent ?? '',
        details: tr.querySelector('td[data-label="Details"]')?.textContent ?? '',
      })),
    );
    const of = (action: string) => rows.filter((r) => r.what === action && r.target.includes(noMatchId));
    expect(of('record.unmask')).toHaveLength(1);
    expect(of('record.rerun')).toHaveLength(1);
    for (const r of [...of('record.unmask'), ...of('record.rerun')]) expect(r.details).toContain('TICKET-41');
    await p.context().close();
  });

  it('a viewer is told the address needs the unmask role', async () => {
    const p = await session(tokens.viewer!);
    await p.goto(`${admin}/console/records/${noMatchId}`);
    expect(await p.locator('#why').textContent()).toMatch(/reading the address needs the unmask role/);
    await p.context().close();
  });
});

describe('console pages in Chromium', () => {
  it('returns to the page asked for after the session ended', async () => {
    const p = await (await browser.newContext()).newPage();
    await p.goto(`${admin}/console/records/${plansId}`);
    expect(p.url()).toContain('/console/sign-in?next=');
    await eventually(
      async () => {
        await signIn(p, tokens.viewer!);
        return p.url().endsWith(`/console/records/${plansId}`);
      },
      10_000,
      300,
    );
    await p.getByRole('button', { name: 'Sign out' }).click();
    expect(await p.getByRole('status').textContent()).toContain('You signed out.');
    await p.context().close();
  });

  it('fits 375 px: the search has no sideways scroll and each request id is on screen', async () => {
    const p = await session(tokens.viewer!, 375);
    await p.goto(`${admin}/console/search?range=1h`);
    const wider = () =>
      p.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > 376)
          .map((e) => `${e.tagName}#${e.id}.${e.className}:${Math.round(e.getBoundingClientRect().right)}`)
          .slice(0, 5),
      );
    expect(await wider()).toEqual([]);
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const link = p.getByRole('link', { name: plansId });
    const box = (await link.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    await link.click();
    await p.waitForURL(/\/console\/records\//);
    expect(await wider()).toEqual([]);
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await p.context().close();
  });

  it('the diff shows the changed lines with a few lines of context; the full side-by-side is one click away', async () => {
    const p = await session(tokens.viewer!);
    proxy.bump = true;
    try {
      await p.goto(`${admin}/console/records/${plansId}`);
      await Promise.all([p.waitForEvent('load'), p.getByRole('button', { name: /Rerun/ }).click()]);
      expect(p.url()).not.toMatch(/\/rerun(\?|$)/);
      expect(await p.locator('#verdict').textContent()).toMatch(/different/);
      // The count matches the listed items.
      const count = Number(/(\d+) change/.exec((await p.locator('#verdict').textContent())!)![1]);
      expect(await p.locator('#changes > li').count()).toBe(count);
      const context = await p.locator('#context-diff tr.chg').count();
      const full = await p.locator('#side-by-side tbody tr').count();
      expect(context).toBeGreaterThan(0);
      expect(await p.locator('#context-diff tbody tr').count()).toBeLessThan(full);
      expect(await p.locator('#side-by-side').isVisible()).toBe(false);
      await p.getByText(/Full side by side/).click();
      expect(await p.locator('#side-by-side').isVisible()).toBe(true);
    } finally {
      proxy.bump = false;
      await p.context().close();
    }
  });

  it('page loads log no admin authentication warning (the favicon is the console’s own)', async () => {
    const p = await session(tokens.viewer!);
    const icon: number[] = [];
    p.on('response', (r) => {
      if (/favicon/.test(r.url())) icon.push(r.status());
    });
    for (let i = 0; i < 3; i++) await p.goto(`${admin}/console/search`);
    await p.goto(`${admin}/favicon.ico`).catch(() => null);
    expect(warnings.filter((w) => /authentication failed/.test(w))).toEqual([]);
    await p.context().close();
  });
});
