// A supplier feed asked per utility and in pages, added by YAML and contract
// files only (examples/sunpath-feed.yaml, sources/sunpath/schema.json), served by its own upstream
// (a real HTTP server started here) in a shape used nowhere else: prices in mills per kWh, fees and
// monthly charge in cents, terms in years, labels like "fixed-rate", offers that repeat neither the
// utility (a page-level field) nor the customer class (the request's). Plans for two ZIPs of two
// utilities are checked to the micro-dollar against a hand computation below (no gateway code).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchGateway } from '../../start/launch.js';
import type { GatewayHandle } from '../../start/app.js';
import { expectedTier, gatewayEnv, gql, issueKeyWithCli, scaled, writeConfigDir } from '../support/feed-config.js';
import { PAGES, startSunpath, SUPPLIER, type SunpathOffer, type Upstream } from '../support/sunpath-upstream.js';

// ------------------------------------------------------------------ hand computation (no gateway code)

/**
 * Delivery charges of the reference upstream's territories in effect on the start date of a plan
 * bought now (sources/reference-upstream/data/tariffs.ts: the 2026-09-01 periods), in micro-USD.
 */
const DELIVERY: Record<string, { fixedMicro: number; perKwhMicro: number }> = {
  ONCOR: { fixedMicro: 4_230_000, perKwhMicro: 58_362 },
  CENTERPOINT: { fixedMicro: 4_390_000, perKwhMicro: 59_852 },
};

const mills = (n: number) => scaled(String(n), 3); // mills per kWh with 3 decimals = micro-USD per kWh
const cents = (n = 0) => n * 10_000;

function billMicro(o: SunpathOffer, d: { fixedMicro: number; perKwhMicro: number }, kwh: number): number {
  let total = cents(o.monthlyCents) + d.fixedMicro + d.perKwhMicro * kwh;
  for (const t of o.tiers) total += Math.max(0, Math.min(kwh, t.endKwh ?? kwh) - t.startKwh) * mills(t.millsPerKwh);
  return total;
}

const RATE_TYPE = { 'fixed-rate': 'FIXED', 'variable-rate': 'VARIABLE', 'indexed-rate': 'INDEXED' } as const;

function expectedPlan(o: SunpathOffer, utilityId: string) {
  return {
    title: o.headline,
    supplier: { name: SUPPLIER },
    utilityId,
    term: (scaled(String(o.termYears), 1) * 12) / 10,
    rateType: RATE_TYPE[o.structure],
    price: mills(o.tiers[0]!.millsPerKwh) / 1e6,
    renewablePercent: o.greenPct ?? 0,
    fees: {
      cancellationUsd: cents(o.feesCents?.exit) / 1e6,
      enrollmentUsd: cents(o.feesCents?.signup) / 1e6,
      baseMonthlyUsd: cents(o.monthlyCents) / 1e6,
      minimumUsageFeeUsd: null,
      minimumUsageKwh: null,
      usageCredits: [],
    },
    rates: [500, 1000, 2000].map((kwh) => expectedTier(billMicro(o, DELIVERY[utilityId]!, kwh), kwh)),
  };
}

const PLAN_FIELDS = `title term rateType price renewablePercent utilityId supplier { name }
  fees { cancellationUsd enrollmentUsd baseMonthlyUsd minimumUsageFeeUsd minimumUsageKwh usageCredits { minKwh creditUsd } }
  rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd }`;

// ------------------------------------------------------------------------------------------- tests

describe('a utility-scoped, cursor-paginated supplier feed added by configuration (examples/sunpath-feed.yaml)', () => {
  let tmp: string;
  let key: string;
  let sunpath: Upstream;
  let g: GatewayHandle;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'utility-feed-'));
    sunpath = await startSunpath();
    key = await issueKeyWithCli(path.join(tmp, 'keys.json'));
    const dir = writeConfigDir(tmp, 'mesh', ['examples/sunpath-feed.yaml']);
    g = await launchGateway({ env: gatewayEnv(tmp, dir, { SUNPATH_URL: sunpath.url }) });
  }, 120_000);
  afterAll(async () => {
    await g?.close();
    await sunpath?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const sunpathPlans = async (zip: string) => {
    const { status, json } = await gql(g, key, `{ residentialPlans(zipCode: "${zip}") { ${PLAN_FIELDS} } }`);
    expect(status).toBe(200);
    expect(json.errors).toBeUndefined();
    return (json.data.residentialPlans as any[]).filter((p) => p.supplier.name === SUPPLIER);
  };

  it.each([
    ['75001', 'ONCOR'],
    ['77002', 'CENTERPOINT'],
  ])('residentialPlans(zipCode: "%s") has every %s offer of every page, priced to the micro-dollar', async (zip, utility) => {
    const plans = await sunpathPlans(zip);
    const offers = PAGES[utility]!.flat();
    expect(plans).toHaveLength(offers.length);
    for (const o of offers)
      expect(
        plans.find((p) => p.title === o.headline),
        o.sku,
      ).toEqual(expectedPlan(o, utility));
    // The gateway asked the feed for this utility only, with the request's segment, page by page.
    const pages = PAGES[utility]!.map((_, n) => `${utility} res ${n === 0 ? '-' : `${utility}-${n}`}`);
    for (const p of pages) expect(sunpath.seen).toContain(p);
    expect(sunpath.seen.every((s) => s.startsWith('ONCOR ') || s.startsWith('CENTERPOINT '))).toBe(true);
  });

  it('another ZIP of the same territory reuses the answer; concurrent asks share one call', async () => {
    const before = sunpath.seen.length;
    const [a, b] = await Promise.all([sunpathPlans('75002'), sunpathPlans('76101')]);
    expect(a.map((p) => p.title).sort()).toEqual(
      PAGES.ONCOR!.flat()
        .map((o) => o.headline)
        .sort(),
    );
    expect(b).toEqual(a);
    expect(sunpath.seen.slice(before)).toEqual([]);
  });

  it('a failing utility call names only that territory; the other territories keep their plans', async () => {
    sunpath.failing.add('AEP_TEXAS_CENTRAL');
    try {
      // A territory not asked before (nothing kept) fails with the territory named; the other feeds answer...
      const { json } = await gql(g, key, '{ residentialPlans(zipCode: "78401") { title supplier { name } } }');
      expect(json.data.residentialPlans.length).toBeGreaterThan(0);
      const sunpathErrors = (json.errors ?? []).filter((e: any) => e.extensions?.feed === 'Sunpath');
      expect(sunpathErrors).toHaveLength(1);
      expect(sunpathErrors[0]).toMatchObject({
        message: 'Upstream feed Sunpath is unavailable for utility AEP_TEXAS_CENTRAL: answered with an error.',
        extensions: { code: 'UPSTREAM_UNAVAILABLE', feed: 'Sunpath', utilityId: 'AEP_TEXAS_CENTRAL' },
      });
      expect(JSON.stringify(json.errors)).not.toMatch(/ONCOR|CENTERPOINT/);
      // ...while the other territories' ZIPs are untouched.
      expect(await sunpathPlans('75001')).toHaveLength(PAGES.ONCOR!.flat().length);
      expect(await sunpathPlans('77002')).toHaveLength(PAGES.CENTERPOINT!.flat().length);
    } finally {
      sunpath.failing.delete('AEP_TEXAS_CENTRAL');
    }
  });

  it('businessPlans asks the business segment', async () => {
    const { json } = await gql(g, key, '{ businessPlans(zipCode: "75001", annualUsage: 120000) { title supplier { name } } }');
    expect(json.errors).toBeUndefined();
    expect(json.data.businessPlans.filter((p: any) => p.supplier.name === SUPPLIER)).toEqual([]);
    expect(sunpath.seen).toContain('ONCOR biz -');
  });
});
