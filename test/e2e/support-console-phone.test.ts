// The support console on a phone: at 375 px no page scrolls sideways (search, a record with a
// failed feed, a partner with keys, the audit log, the allowance, a feed incident, a rerun diff),
// measured in Debian chromium (playwright-core): the page's scrollWidth is at most its clientWidth.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from '../../start/config.js';
import { KeyStore, issueKey } from '../../stores/key-store.js';
import { PartnerStore } from '../../stores/partners.js';
import { createReplayStore, type ReplayStore } from '../../stores/replay-store.js';
import { createUnmasker } from '../../support/console/masking.js';
import type { AdminServer } from '../../support/admin-server.js';
import { startConsoleFixture } from '../support/console-fixture.js';
import { allowanceAdmin } from '../../support/allowance-admin.js';
import { launchChromium } from '../../scripts/harness/browser.js';
import { testRecord } from '../support/replay-records.js';

let dir: string;
let keys: KeyStore;
let partners: PartnerStore;
let replay: ReplayStore;
let admin: AdminServer;
let browser: Browser;
let page: Page;
let token: string;

const LONG_ID = `req-${'0123456789abcdef'.repeat(7)}`;
const BODY = JSON.stringify({
  data: {
    residentialPlans: [{ id: 'plan-with-a-rather-long-identifier-0001', title: 'Twelve month fixed rate with a long name', price: 0.1234 }],
  },
});

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-console-phone-'));
  const config = loadConfig({ DATA_DIR: dir });
  keys = await KeyStore.open(path.join(dir, 'keys.json'), { reloadMs: 50 });
  token = (await issueKey(keys.file, { environment: 'support', partnerCode: 'SUPPORT_JANE', roles: ['viewer', 'partners'] })).key;
  for (const environment of ['production', 'certification'] as const)
    await issueKey(keys.file, { environment, partnerCode: 'BOLT_ENERGY_HOLDINGS' });
  await keys.reload();
  partners = await PartnerStore.open(path.join(dir, 'partners.json'));
  replay = createReplayStore({ redis: null, dataDir: dir, settings: config.cacheReplay.replay });
  replay.enqueue(
    testRecord({
      id: LONG_ID,
      partnerCode: 'BOLT_ENERGY_HOLDINGS',
      operationName: 'ResidentialPlansWithAVeryLongOperationName',
      query: '{ residentialPlans(zipCode: "75001") { id title price } }',
      responseBody: BODY,
      upstreamCalls: [
        {
          feed: 'Brightgrid',
          url: `http://upstream.example.test/offers/${'x'.repeat(120)}`,
          status: null,
          durationMs: 51,
          error: 'network error',
        },
      ],
    }),
  );
  await replay.flush();
  ({ admin } = await startConsoleFixture({
    dir,
    keys,
    replay,
    partners,
    rerun: async () => ({ status: 200, body: BODY.replace('0.1234', '0.1299'), requestId: `rerun.${'f'.repeat(36)}` }),
    unmasker: createUnmasker({ piiKey: null }),
    allowance: allowanceAdmin({ redis: null, dataDir: dir, limit: 50 }),
  }));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 375, height: 800 }, isMobile: true });
  await page.goto(`${admin.url}/console`);
  await page.getByLabel('Personal support token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/console\/search/);
});

afterAll(async () => {
  await browser?.close();
  await admin?.close();
  keys?.close();
  partners?.close();
  await replay?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** How far the page scrolls sideways (0: it fits). */
const overflow = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The elements wider than the screen, for the failure message. */
const widest = (p: Page) =>
  p.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter(
        (e) =>
          e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 ||
          e.scrollWidth > document.documentElement.clientWidth + 1,
      )
      .slice(0, 5)
      .map(
        (e) =>
          `${e.tagName}.${e.className}#${e.id} ${Math.round(e.getBoundingClientRect().right)} ${e.scrollWidth} ${getComputedStyle(e).position}`,
      ),
  );

describe('the console at 375 px', () => {
  it('no page scrolls sideways: search, record, partner with keys, audit, allowance, incident, rerun diff', async () => {
    const widths: Record<string, number> = {};
    const visit = async (name: string, url: string) => {
      await page.goto(`${admin.url}${url}`);
      widths[name] = await overflow(page);
      if (widths[name]) console.log(name, await widest(page));
    };
    await visit('search', '/console/search?range=1d');
    // The filters fold behind one control: the first result is on the first screen.
    expect(await page.locator('details#more-filters').getAttribute('open')).toBeNull();
    await visit('record', `/console/records/${LONG_ID}`);
    await visit('partner', '/console/partners/BOLT_ENERGY_HOLDINGS');
    await visit('partners', '/console/partners');
    await visit('allowance', '/console/allowance?ip=2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff');
    await page.goto(`${admin.url}/console/records/${LONG_ID}`);
    // One link from the record (followed by its address: the timeline is below the fold).
    await visit('incident', (await page.locator('a.incident').getAttribute('href'))!);
    await page.goto(`${admin.url}/console/records/${LONG_ID}`);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: /Rerun/ }).first().click()]);
    // The rerun's diff is on the record's own page.
    expect(await page.locator('#rerun #verdict').count()).toBe(1);
    widths.diff = await overflow(page);
    if (widths.diff) console.log('diff', await widest(page));
    await visit('audit', '/console/audit?from=2026-01-01%2000:00');
    expect(await page.locator('table#audit td[data-label="Who"]').count()).toBeGreaterThan(0);
    expect(widths).toEqual({ search: 0, record: 0, partner: 0, partners: 0, allowance: 0, incident: 0, diff: 0, audit: 0 });
  });

  it("draws the partner page's chart labels at 12 px or more", async () => {
    await page.goto(`${admin.url}/console/partners/BOLT_ENERGY_HOLDINGS`);
    const sizes = await page
      .locator('#charts svg text')
      .evaluateAll((texts) =>
        texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * ((t as SVGGraphicsElement).getScreenCTM()?.a ?? 0)),
      );
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(12);
  });
});
