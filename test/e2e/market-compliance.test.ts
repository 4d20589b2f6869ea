// Market rules end to end: a supplier feed that sends offers the law bars (a Texas indexed plan, an
// Illinois cancellation fee above the cap, a Maryland green plan without its approved price...) gets
// them dropped by the gateway and listed by feeds:check.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { feedsCheck } from '../support/feeds-check-cli.js';
import { ROOT, writeMeshDir } from '../support/mesh-dir.js';

function voltifyOffer(offerId: string, utilityCode: string, rateStructure: string, cancellationFeeUsd: number, over: object = {}) {
  return {
    offerId,
    supplierName: 'Rogue Retail Power',
    productName: `Rogue ${offerId}`,
    customerClass: 'Residential',
    utilityCode,
    rateStructure,
    termMonths: 12,
    energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 11.5 }],
    baseChargeUsdPerMonth: 0,
    usageCredits: [],
    minimumUsage: null,
    renewablePercent: 0,
    cancellationFeeUsd,
    enrollmentFeeUsd: 0,
    ...over,
  };
}

const OFFERS: Record<string, unknown[]> = {
  ONCOR: [voltifyOffer('TX-FIXED', 'ONCOR', 'Fixed', 150), voltifyOffer('TX-INDEX', 'ONCOR', 'Indexed', 0)],
  COMED: [voltifyOffer('IL-FEE-200', 'COMED', 'Fixed', 200), voltifyOffer('IL-FEE-50', 'COMED', 'Fixed', 50)],
  // Connecticut: no residential cancellation fee, no variable or indexed price.
  EVERSOURCE_CT: [
    voltifyOffer('CT-FEE', 'EVERSOURCE_CT', 'Fixed', 100),
    voltifyOffer('CT-INDEX', 'EVERSOURCE_CT', 'Indexed', 0),
    voltifyOffer('CT-OK', 'EVERSOURCE_CT', 'Fixed', 0),
  ],
  // Maryland (BGE's trailing SOS average is about 11.4 cents): a 24-month term, a price above it, one that complies;
  // green power at its approved price (above the SOS average), above it, and without one.
  BGE: [
    voltifyOffer('MD-24', 'BGE', 'Fixed', 0, { termMonths: 24, energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 10 }] }),
    voltifyOffer('MD-PRICEY', 'BGE', 'Fixed', 0, { energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 13 }] }),
    voltifyOffer('MD-OK', 'BGE', 'Fixed', 0, { energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 10 }] }),
    voltifyOffer('MD-GREEN-OK', 'BGE', 'Fixed', 0, {
      renewablePercent: 100,
      energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 12.6233 }],
      approvedPriceCentsPerKwh: 12.6233,
    }),
    voltifyOffer('MD-GREEN-HIGH', 'BGE', 'Fixed', 0, {
      renewablePercent: 100,
      energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 12.7233 }],
      approvedPriceCentsPerKwh: 12.6233,
    }),
    voltifyOffer('MD-GREEN-NOPRICE', 'BGE', 'Fixed', 0, {
      renewablePercent: 100,
      energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 10 }],
    }),
  ],
  // New York (ConEd's trailing supply price is about 12.4 cents): variable without guaranteed savings, fixed too far above, renewable.
  CONED: [
    voltifyOffer('NY-VAR', 'CONED', 'Variable', 0, { energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 9 }] }),
    voltifyOffer('NY-HIGH', 'CONED', 'Fixed', 0, { energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 15 }] }),
    voltifyOffer('NY-GREEN', 'CONED', 'Variable', 0, {
      renewablePercent: 100,
      energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 15 }],
    }),
    voltifyOffer('NY-OK', 'CONED', 'Fixed', 0, { energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents: 11 }] }),
  ],
};
const BY_ZIP: Record<string, string> = { '60601': 'COMED', '06103': 'EVERSOURCE_CT', '21201': 'BGE', '10001': 'CONED' };

/** Small business offers. New York (ConEd's small commercial average is about 11.9 cents, residential 12.4): the Reset order holds them too. */
const businessOffer = (offerId: string, rateStructure: string, cents: number, over: object = {}) =>
  voltifyOffer(offerId, 'CONED', rateStructure, 0, {
    customerClass: 'Commercial',
    energyChargeCentsPerKwh: [{ fromKwh: 0, toKwh: null, cents }],
    ...over,
  });
const BUSINESS_OFFERS: Record<string, unknown[]> = {
  CONED: [
    businessOffer('NY-BIZ-VAR', 'Variable', 9),
    // Within 5% of the residential average, not of the small commercial one.
    businessOffer('NY-BIZ-HIGH', 'Fixed', 12.8),
    businessOffer('NY-BIZ-OK', 'Fixed', 11.5),
    businessOffer('NY-BIZ-GREEN', 'Variable', 15, { renewablePercent: 100 }),
  ],
};

let server: http.Server;
let voltifyUrl: string;
let t: TestGateway;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    const utility = BY_ZIP[query.get('zip') ?? ''] ?? 'ONCOR';
    const offers = query.get('class') === 'commercial' ? (BUSINESS_OFFERS[utility] ?? []) : OFFERS[utility];
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ offers }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  voltifyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startTestGateway({ CACHE_ENABLED: 'false', VOLTIFY_URL: voltifyUrl });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const titles = async (zip: string, field = 'residentialPlans', args = '') => {
  const r = await t.post('production', `{ ${field}(zipCode: "${zip}"${args}) { title supplier { name } } }`);
  expect(r.json.errors).toBeUndefined();
  return (r.json.data[field] as { title: string; supplier: { name: string } }[])
    .filter((p) => p.supplier.name === 'Rogue Retail Power')
    .map((p) => p.title)
    .sort();
};

/** The repo's .meshrc.yaml with Voltify's sample ZIP changed, `./` paths made absolute. */
/** The checkout's configuration with Voltify's feeds:check sample ZIP changed (its paths made absolute). */
const configWithSampleZip = (sampleZip: string) =>
  writeMeshDir((config) => {
    config.sources.find((s) => s.name === 'Voltify').transforms[0][path.join(ROOT, 'transforms/feed-mapping.ts')].sampleZip = sampleZip;
  });

describe('offers that break a market rule', () => {
  it('Texas: the indexed plan is dropped, the fixed one served', async () => {
    expect(await titles('75001')).toEqual(['Rogue TX-FIXED']);
  });

  it('Illinois: the $200 cancellation fee offer is dropped, the $50 one served', async () => {
    expect(await titles('60601')).toEqual(['Rogue IL-FEE-50']);
  });

  it('Connecticut: the offers with a cancellation fee or an indexed price are dropped', async () => {
    expect(await titles('06103')).toEqual(['Rogue CT-OK']);
  });

  it('Maryland: the 24-month term, the price above the trailing SOS average and green power above or without its approved price are dropped', async () => {
    expect(await titles('21201')).toEqual(['Rogue MD-GREEN-OK', 'Rogue MD-OK']);
  });

  it('New York: only the fixed price within 5% of the trailing supply price and the renewable product are served', async () => {
    expect(await titles('10001')).toEqual(['Rogue NY-GREEN', 'Rogue NY-OK']);
  });

  it("New York small businesses: the same three products, priced against their own class's trailing supply price", async () => {
    expect(await titles('10001', 'businessPlans', ', annualUsage: 30000')).toEqual(['Rogue NY-BIZ-GREEN', 'Rogue NY-BIZ-OK']);
  });

  it('feeds:check names a Maryland green plan without its approved price: "no PSC-approved price"', async () => {
    const dir = configWithSampleZip('21201');
    try {
      const r = await feedsCheck(['--dir', dir, '--json'], { VOLTIFY_URL: voltifyUrl });
      const voltify = JSON.parse(r.stdout).feeds.find((f: { feed: string }) => f.feed === 'Voltify');
      const byOffer = Object.fromEntries(voltify.noncompliant.map((n: { offerId: string; rule: string }) => [n.offerId, n]));
      expect(Object.keys(byOffer).sort()).toEqual(['MD-24', 'MD-GREEN-HIGH', 'MD-GREEN-NOPRICE', 'MD-PRICEY']);
      expect(byOffer['MD-GREEN-NOPRICE']).toMatchObject({
        rule: 'MD_GREEN_NO_APPROVED_PRICE',
        reason: expect.stringMatching(/no PSC-approved price/),
      });
      expect(byOffer['MD-GREEN-HIGH']).toMatchObject({ rule: 'MD_GREEN_PRICE_CAP', source: expect.stringContaining('§7-707') });
      expect(voltify.warnings.join('\n')).toMatch(
        /offer MD-GREEN-NOPRICE dropped by market rule MD_GREEN_NO_APPROVED_PRICE: no PSC-approved price/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('feeds:check lists the dropped offer with its rule and source', async () => {
    const r = await feedsCheck(['--json'], { VOLTIFY_URL: voltifyUrl });
    const report = JSON.parse(r.stdout);
    const voltify = report.feeds.find((f: { feed: string }) => f.feed === 'Voltify');
    // One entry per sample call (feeds:check asks each customer class the feed's arguments take).
    expect(voltify.noncompliant.length).toBeGreaterThan(0);
    for (const n of voltify.noncompliant)
      expect(n).toEqual({
        offerId: 'TX-INDEX',
        rule: 'TX_WHOLESALE_INDEXED',
        source: expect.stringContaining('§39.110'),
        reason: expect.any(String),
      });
    expect(voltify.warnings.join('\n')).toMatch(/offer TX-INDEX dropped by market rule TX_WHOLESALE_INDEXED/);
    // The reference feeds comply.
    const brightgrid = report.feeds.find((f: { feed: string }) => f.feed === 'Brightgrid');
    expect(brightgrid.noncompliant).toEqual([]);
  }, 60_000);
});
