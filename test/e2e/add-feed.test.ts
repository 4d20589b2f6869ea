// Adding a supplier feed by configuration alone (docs/adding-a-feed.md): the repo's
// .meshrc.yaml with examples/gridwise-feed.yaml appended to its `sources:` list, written to
// a temporary config directory (MESH_DIR) with every `./` path pointing into the repo, so the same
// gateway code serves a feed in a new shape (XML-like nesting, dollars per MWh, years, fractions)
// with no code change. Also: mapping mistakes stop the start naming the feed and the key, and
// malformed Gridwise payloads are reported and skipped without taking the gateway down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import yaml from 'js-yaml';
import { launchGateway as startGateway } from '../../start/launch.js';
import {
  expectedTier,
  gatewayEnv,
  gql,
  issueKeyWithCli,
  mappingOf,
  pastedConfigText,
  ROOT,
  scaled,
  writeConfigDir,
  type Mapping,
} from '../support/feed-config.js';
import type { GatewayHandle } from '../../start/app.js';

const GRIDWISE_VENDORS = ['Gridwise Energy Services LLC', 'Pecan Hollow Power LLC', 'Ironbridge Electric Supply Inc.'];
const BLOCK = 'examples/gridwise-feed.yaml';

// ------------------------------------------------------------------------------------- configuration

/** The repo's .meshrc.yaml with the example block appended, as `cat … >> .meshrc.yaml` in docs/adding-a-feed.md. */
function pasted(): string {
  const cfg = fs.readFileSync(path.join(ROOT, '.meshrc.yaml'), 'utf8');
  // `sources:` must stay the last list of the file for the append to land in it.
  expect(cfg.slice(cfg.search(/^sources:/m)).search(/\n(?=[^\s#])/)).toBe(-1);
  return pastedConfigText(BLOCK);
}

/** Writes a config dir from the pasted config; `mutate` may edit the Gridwise feed-mapping block. */
function writeGridwiseDir(parent: string, name: string, mutate?: (mapping: Mapping) => void): string {
  pasted();
  return writeConfigDir(parent, name, [BLOCK], mutate && ((config) => mutate(mappingOf(config, 'Gridwise'))));
}

// ------------------------------------------------------------------------------------------- helpers

const PLAN_FIELDS = `title term rateType price renewablePercent utilityId supplier { name }
  fees { cancellationUsd enrollmentUsd baseMonthlyUsd minimumUsageFeeUsd minimumUsageKwh usageCredits { minKwh creditUsd } }
  rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd }`;

// --------------------------------------------------------------- independent pricing (no gateway code)

interface GridwiseOffer {
  '@id': string;
  Vendor: { LegalName: string };
  Label: string;
  Class: 'res' | 'com';
  TDSP: string;
  Pricing: {
    Blocks: { Block: { FromKWh: number; ToKWh?: number; PerMWh: string }[] };
    MonthlyFee: string;
    Credits?: { Credit: { ThresholdKWh: number; Amount: string }[] };
    MinimumUsage?: { BelowKWh: number; Charge: string };
  };
  Contract: { Years: number; Kind: 'FixedRate' | 'VariableRate' | 'IndexRate' };
  Renewable: { Fraction: number };
  Fees: { EarlyExit: string; Signup: string };
}

/** micro-USD for one month at `kwh`: energy by block ($/MWh / 1000 per kWh) + delivery + fees - credits. */
function billMicro(o: GridwiseOffer, delivery: { fixedMicro: number; perKwhMicro: number }, kwh: number): number {
  let total = scaled(o.Pricing.MonthlyFee, 6) + delivery.fixedMicro + delivery.perKwhMicro * kwh;
  for (const b of o.Pricing.Blocks.Block) {
    const used = Math.max(0, Math.min(kwh, b.ToKWh ?? kwh) - b.FromKWh);
    total += used * scaled(b.PerMWh, 3); // $/MWh with 3 decimals = micro-USD per kWh
  }
  const min = o.Pricing.MinimumUsage;
  if (min && kwh < min.BelowKWh) total += scaled(min.Charge, 6);
  for (const c of o.Pricing.Credits?.Credit ?? []) if (kwh >= c.ThresholdKWh) total -= scaled(c.Amount, 6);
  return Math.max(0, total);
}

const RATE_TYPE = { FixedRate: 'FIXED', VariableRate: 'VARIABLE', IndexRate: 'INDEXED' } as const;

function expectedPlan(o: GridwiseOffer, delivery: { fixedMicro: number; perKwhMicro: number }, usages: number[]) {
  const min = o.Pricing.MinimumUsage;
  return {
    title: o.Label,
    supplier: { name: o.Vendor.LegalName },
    utilityId: o.TDSP,
    term: (scaled(String(o.Contract.Years), 2) * 12) / 100,
    rateType: RATE_TYPE[o.Contract.Kind],
    price: Number((scaled(o.Pricing.Blocks.Block[0]!.PerMWh, 3) / 1e6).toFixed(6)),
    renewablePercent: scaled(String(o.Renewable.Fraction), 2),
    fees: {
      cancellationUsd: Number(o.Fees.EarlyExit),
      enrollmentUsd: Number(o.Fees.Signup),
      baseMonthlyUsd: Number(o.Pricing.MonthlyFee),
      minimumUsageFeeUsd: min ? Number(min.Charge) : null,
      minimumUsageKwh: min ? min.BelowKWh : null,
      usageCredits: (o.Pricing.Credits?.Credit ?? []).map((c) => ({ minKwh: c.ThresholdKWh, creditUsd: Number(c.Amount) })),
    },
    rates: usages.map((u) => expectedTier(billMicro(o, delivery, u), u)),
  };
}

// ------------------------------------------------------------------------------------------- tests

let tmp: string;
let key: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'add-feed-'));
  key = await issueKeyWithCli(path.join(tmp, 'keys.json'));
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a third supplier feed added by configuration (examples/gridwise-feed.yaml)', () => {
  let g: GatewayHandle;

  beforeAll(async () => {
    g = await startGateway({ env: gatewayEnv(tmp, writeGridwiseDir(tmp, 'mesh')) });
  });
  afterAll(async () => {
    await g?.close();
  });

  it('pastes into the sources list: one more source, nothing else changed', () => {
    const before = yaml.load(fs.readFileSync(path.join(ROOT, '.meshrc.yaml'), 'utf8')) as { sources: { name: string }[] };
    const after = yaml.load(pasted()) as typeof before;
    expect(after.sources.map((s) => s.name)).toEqual([...before.sources.map((s) => s.name), 'Gridwise']);
    expect({ ...after, sources: after.sources.slice(0, -1) }).toEqual(before);
    expect(g.mesh.feeds.byKind('offers').map((f) => f.source)).toEqual(['Voltify', 'Brightgrid', 'Gridwise']);
  });

  it.each([undefined, 1234])(
    'residentialPlans(zipCode: "75001", monthlyUsage: %s) has the Gridwise plans with exact all-in tiers',
    async (usage) => {
      const args = usage === undefined ? 'zipCode: "75001"' : `zipCode: "75001", monthlyUsage: ${usage}`;
      const { status, json } = await gql(
        g,
        key,
        `{
      utilities(zipCode: "75001") { id deliveryCharges { fixedMonthlyUsd perKwhUsd } }
      residentialPlans(${args}) { ${PLAN_FIELDS} } }`,
      );
      expect(status).toBe(200);
      expect(json.errors).toBeUndefined();

      const oncor = json.data.utilities.find((u: any) => u.id === 'ONCOR');
      const delivery = {
        fixedMicro: scaled(String(oncor.deliveryCharges.fixedMonthlyUsd), 6),
        perKwhMicro: scaled(String(oncor.deliveryCharges.perKwhUsd), 6),
      };
      const payload = await (await fetch(`${g.upstreamUrl}/gridwise/feed/75001`)).json();
      const offers = (payload.Envelope.Body.OfferList.Offer as GridwiseOffer[]).filter((o) => o.Class === 'res' && o.TDSP === 'ONCOR');
      expect(offers.length).toBeGreaterThanOrEqual(3);
      // The fixture covers the interesting shapes: several blocks, a credit, a minimum-usage charge.
      expect(offers.some((o) => o.Pricing.Blocks.Block.length > 1)).toBe(true);
      expect(offers.some((o) => o.Pricing.Credits && o.Pricing.MinimumUsage)).toBe(true);

      const plans: any[] = json.data.residentialPlans;
      const usages = [...new Set([500, 1000, 2000, ...(usage ? [usage] : [])])].sort((a, b) => a - b);
      const gridwise = plans.filter((p) => GRIDWISE_VENDORS.includes(p.supplier.name));
      expect(gridwise).toHaveLength(offers.length);
      for (const o of offers) {
        const plan = gridwise.find((p) => p.title === o.Label && p.supplier.name === o.Vendor.LegalName);
        expect(plan, o['@id']).toEqual(expectedPlan(o, delivery, usages));
        for (const t of plan.rates)
          expect(t.avgMonthlyBillUsd, `${o['@id']} @ ${t.usageKwh}`).toBe(Math.round(t.usageKwh * t.allInRateUsdPerKwh * 10) / 10);
      }

      // Merged with the other feeds' plans, cheapest at the requested usage first.
      expect(plans.length).toBeGreaterThan(gridwise.length + 10);
      const at = usage ?? 1000;
      const rates = plans.map((p) => p.rates.find((t: any) => t.usageKwh === at).allInRateUsdPerKwh);
      rates.forEach((r, i) => i > 0 && expect(r).toBeGreaterThanOrEqual(rates[i - 1] - 0.000001));
    },
  );

  it('businessPlans has the commercial Gridwise offers', async () => {
    const { json } = await gql(g, key, '{ businessPlans(zipCode: "75001", annualUsage: 120000) { title supplier { name } term } }');
    expect(json.errors).toBeUndefined();
    const payload = await (await fetch(`${g.upstreamUrl}/gridwise/feed/75001`)).json();
    const com = (payload.Envelope.Body.OfferList.Offer as GridwiseOffer[]).filter((o) => o.Class === 'com');
    const titles = json.data.businessPlans.filter((p: any) => GRIDWISE_VENDORS.includes(p.supplier.name)).map((p: any) => p.title);
    expect(titles.sort()).toEqual(com.map((o) => o.Label).sort());
  });

  it.each([
    ['garbage', 'a body that is not JSON'],
    ['null', 'a JSON null body'],
  ])('a Gridwise answer of %s (%s) is an error naming the feed; the other feeds still answer', async (kind) => {
    // With stale copies off (gatewayEnv) any ZIP will do: 75001 is the one every test asks.
    const zip = '75001';
    const fault = await fetch(`${g.upstreamUrl}/__faults/gridwise`, { method: 'POST', body: JSON.stringify({ kind }) });
    expect(fault.status).toBe(200);
    try {
      const { status, json } = await gql(g, key, `{ residentialPlans(zipCode: "${zip}") { title supplier { name } } }`);
      expect(status).toBe(200);
      expect(json.errors).toHaveLength(1);
      expect(json.errors[0]).toMatchObject({ path: ['residentialPlans'], extensions: { code: 'UPSTREAM_UNAVAILABLE', feed: 'Gridwise' } });
      expect(json.errors[0].message).toMatch(/^Upstream feed Gridwise is unavailable/);
      const suppliers = json.data.residentialPlans.map((p: any) => p.supplier.name);
      expect(suppliers.length).toBeGreaterThan(0);
      expect(suppliers.some((s: string) => GRIDWISE_VENDORS.includes(s))).toBe(false);
    } finally {
      await fetch(`${g.upstreamUrl}/__faults/gridwise`, { method: 'POST', body: 'null' });
    }
    const again = await gql(g, key, '{ utilities(zipCode: "75001") { id } }');
    expect(again.json).toEqual({ data: { utilities: [{ id: 'ONCOR' }] } });
  });
});

describe('mapping mistakes stop the start, naming the feed and the key', () => {
  const cases: [string, (m: Mapping) => void, RegExp][] = [
    [
      'an unknown path',
      (m) => void (m.fields.supplierName = 'Vendor.Name'),
      /feed Gridwise: fields\.supplierName: path Envelope\.Body\.OfferList\.Offer\.Vendor\.Name: Envelope\.Body\.OfferList\.Offer\.Vendor has no field "Name"/,
    ],
    [
      'a missing required canonical field',
      (m) => void delete m.fields.utilityId,
      /feed Gridwise: fields\.utilityId: required for kind offers/,
    ],
    [
      'an unknown unit',
      (m) => void (m.fields.energyBlocks.fields.price.unit = 'usd_per_gwh'),
      /feed Gridwise: fields\.energyBlocks\.fields\.price\.unit: unknown unit "usd_per_gwh"/,
    ],
    [
      'the feed\'s key "@id" instead of its GraphQL name',
      (m) => void (m.fields.offerId = '@id'),
      /feed Gridwise: fields\.offerId\.path: invalid path "@id"/,
    ],
  ];
  it.each(cases)('%s', async (_, mutate, message) => {
    const dir = writeGridwiseDir(tmp, `bad-${Math.random().toString(36).slice(2)}`, mutate);
    await expect(startGateway({ env: gatewayEnv(tmp, dir) })).rejects.toThrow(message);
  });
});

describe('malformed Gridwise payloads are reported and skipped, never crash the gateway', () => {
  let g: GatewayHandle;
  let server: http.Server;
  let body: unknown;

  const good = async (): Promise<any> => (await fetch(`${g.upstreamUrl}/gridwise/feed/75001`)).json();
  const query = '{ residentialPlans(zipCode: "75001") { title supplier { name } } }';

  beforeAll(async () => {
    server = http.createServer((_, res) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    g = await startGateway({ env: gatewayEnv(tmp, writeGridwiseDir(tmp, 'mesh-wrong'), { GRIDWISE_URL: url }) });
  });
  afterAll(async () => {
    await g?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('records of the wrong type or with missing fields are skipped; the others are served', async () => {
    const payload = await good();
    const offers: any[] = payload.Envelope.Body.OfferList.Offer;
    const res = offers.filter((o) => o.Class === 'res');
    expect(res.length).toBeGreaterThanOrEqual(4);
    const survivor = { ...structuredClone(res[0]), '@id': 'GW-ONCOR-R-99', Label: 'Gridwise Survivor 12' };
    const negative = { ...structuredClone(res[0]), '@id': 'GW-ONCOR-R-98', Label: 'Gridwise Negative 12' };
    negative.Pricing.Blocks.Block[0].PerMWh = '-1.00'; // a valid string, but no price is negative
    const duplicate = { ...structuredClone(survivor), Label: 'Gridwise Duplicate 12' }; // same @id again
    res[0].Pricing.MonthlyFee = { amount: 5 }; // an object for a decimal string
    res[1].Contract.Years = 'one'; // text for a number
    delete res[2].Label; // a required field missing
    delete res[3]['@id']; // the id missing
    offers.push(survivor, negative, duplicate);
    body = payload;

    const { status, json } = await gql(g, key, query);
    expect(status).toBe(200);
    for (const e of json.errors ?? []) expect(e.message).toContain('Gridwise');
    const titles = json.data.residentialPlans.filter((p: any) => GRIDWISE_VENDORS.includes(p.supplier.name)).map((p: any) => p.title);
    expect(titles).toEqual(['Gridwise Survivor 12']);
    expect(json.data.residentialPlans.length).toBeGreaterThan(10); // Voltify's and Brightgrid's
  });

  const header = { Zip: '75001', Currency: 'USD', Count: 1 };
  it.each([
    ['the offer list is not a list', { Envelope: { Header: header, Body: { OfferList: { Offer: 'none' } } } }, 'error'],
    ['the envelope is missing', {}, 'error'],
    ['the envelope is a list', { Envelope: [] }, 'error'],
    ['the body is a top-level list', [1, 2, 3], 'error'],
    // Every offer skipped: the answer says Gridwise's plans are missing (FEED_UNAVAILABLE).
    ['every offer is null or a number', { Envelope: { Header: header, Body: { OfferList: { Offer: [null, 42] } } } }, 'all dropped'],
  ] as const)('%s', async (_, payload, outcome) => {
    body = payload;
    const { status, json } = await gql(g, key, query);
    expect(status).toBe(200);
    const plans = json.data.residentialPlans;
    expect(plans.length).toBeGreaterThan(10);
    expect(plans.some((p: any) => GRIDWISE_VENDORS.includes(p.supplier.name))).toBe(false);
    if (outcome === 'all dropped') {
      expect(json.errors).toEqual([
        expect.objectContaining({
          path: ['residentialPlans'],
          extensions: expect.objectContaining({ code: 'FEED_UNAVAILABLE', feed: 'Gridwise' }),
        }),
      ]);
    } else {
      expect(json.errors).toHaveLength(1);
      expect(json.errors[0]).toMatchObject({ path: ['residentialPlans'], extensions: { code: 'UPSTREAM_UNAVAILABLE', feed: 'Gridwise' } });
      expect(json.errors[0].message).toMatch(/^Upstream feed Gridwise is unavailable/);
    }
  });

  it('parts the mapping does not read are not checked (a header of the wrong types)', async () => {
    const payload = await good();
    payload.Envelope.Header = { Zip: 75001, Currency: 'EUR', Count: 'x' };
    body = payload;
    const { json } = await gql(g, key, query);
    expect(json.errors).toBeUndefined();
    expect(json.data.residentialPlans.filter((p: any) => GRIDWISE_VENDORS.includes(p.supplier.name)).length).toBeGreaterThan(0);
  });

  it('still serves after all that', async () => {
    body = await good();
    const { json } = await gql(g, key, query);
    expect(json.errors).toBeUndefined();
    expect(json.data.residentialPlans.filter((p: any) => GRIDWISE_VENDORS.includes(p.supplier.name)).length).toBeGreaterThan(0);
  });
});
