// The whole gateway (Mesh sources, mapping, resolvers, listener) over upstreams faked with nock:
// the feeds' sample payloads give exact answers; malformed payloads are reported per feed and
// never crash a resolver.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchGateway as startGateway } from '../../start/launch.js';
import type { GatewayHandle } from '../../start/app.js';
import { fetchTransport } from '../../sources/upstream/transport.js';

const FEEDS = 'http://feeds.test';

/** EIA API v2 answers as EIA documents them: rows under response.data, numbers as strings, latest year first. */
function eiaAnswer(command: string, data: object[]) {
  return {
    response: { total: String(data.length), dateFormat: 'YYYY', frequency: 'annual', data, description: 'x' },
    request: { command, params: { frequency: 'annual' } },
    apiVersion: '2.1.8',
  };
}
function eiaRetailSales(state: string) {
  const row = (period: string, sectorid: string, price: string) => ({
    period,
    stateid: state,
    stateDescription: 'Texas',
    sectorid,
    sectorName: sectorid === 'RES' ? 'residential' : 'commercial',
    price,
    'price-units': 'cents per kilowatt-hour',
  });
  return eiaAnswer('/v2/electricity/retail-sales/data/', [
    row('2025', 'RES', '15.41'),
    row('2025', 'COM', '9.18'),
    row('2024', 'RES', '15.27'),
    row('2024', 'COM', '9.12'),
  ]);
}
function eiaGeneration(state: string) {
  const row = (period: string, fueltypeid: string, generation: string | null) => ({
    period,
    location: state,
    stateDescription: 'Texas',
    sectorid: '99',
    sectorDescription: 'All Sectors',
    fueltypeid,
    fuelTypeDescription: fueltypeid,
    generation,
    'generation-units': 'thousand megawatthours',
  });
  return eiaAnswer('/v2/electricity/electric-power-operational-data/data/', [
    row('2025', 'NG', '250000'),
    row('2025', 'AOR', '150000.5'),
    row('2025', 'COW', '60000'),
    row('2025', 'NUC', '39999.5'),
    row('2025', 'PET', null),
    row('2024', 'NG', '1'),
  ]);
}
const ROOT = path.resolve(import.meta.dirname, '../..');
const sample = (feed: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'sources', feed, 'sample.json'), 'utf8'));

let g: GatewayHandle;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-nock-'));
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1/);
  g = await startGateway({
    env: {
      PATH: process.env.PATH,
      UPSTREAM_URL: FEEDS,
      ENVIRONMENTS: 'playground',
      PLAYGROUND_PORT: '0',
      OPS_PORT: '0',
      PLAYGROUND_ALLOWANCE: '1000',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      CACHE_ENABLED: 'false',
      UPSTREAM_RETRIES: '0',
      UPSTREAM_BREAKER: 'false',
      STALE_IF_ERROR_SECONDS: '0',
      UPSTREAM_DEDUP: 'false',
    },
    // nock intercepts Node's global fetch, not undici's own client.
    upstreamTransport: fetchTransport((url, init) => fetch(url, init)),
  });
});

afterEach(() => nock.cleanAll());

afterAll(async () => {
  await g?.close();
  nock.enableNetConnect();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function query(q: string) {
  const res = await fetch(g.urls.playground!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: q }),
  });
  return { status: res.status, json: (await res.json()) as any };
}

const territories = () => nock(FEEDS).get('/territories/v1/zip/75001').reply(200, sample('territories'));
const PLANS =
  '{ residentialPlans(zipCode: "75001") { id title price supplier { name } rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd } } }';

describe('through the Mesh with nock upstreams', () => {
  it('maps both supplier feeds onto plans with exact tiers', async () => {
    territories();
    nock(FEEDS).get('/voltify/api/v2/offers').query({ zip: '75001', class: 'residential' }).reply(200, sample('voltify'));
    nock(FEEDS).get('/brightgrid/v1/plans/75001').query({ segment: 'RES' }).reply(200, sample('brightgrid'));
    const r = await query(PLANS);
    expect(r.json.errors).toBeUndefined();
    const plans = r.json.data.residentialPlans;
    const residential = (feedOffers: { customerClass?: string; segment?: string }[]) =>
      feedOffers.filter((o) => o.customerClass === 'Residential' || o.segment === 'RES').length;
    const expected = residential(sample('voltify').offers) + residential(sample('brightgrid').data.plans);
    expect(plans.length).toBe(expected);
    // The first Voltify sample offer: 16.5 cents flat (a $100 bill-credit plan funds its credit), plus Oncor's delivery charges.
    const bluebonnet = plans.find((p: { title: string }) => p.title === sample('voltify').offers[0].productName);
    expect(sample('voltify').offers[0].energyChargeCentsPerKwh).toEqual([{ fromKwh: 0, toKwh: null, cents: 16.5 }]);
    expect(bluebonnet.price).toBe(0.165);
    for (const p of plans)
      for (const t of p.rates) expect(Math.round(t.usageKwh * t.allInRateUsdPerKwh * 10) / 10).toBe(t.avgMonthlyBillUsd);
    expect(nock.isDone()).toBe(true);
  });

  it('reports a feed answering null, garbage or a server error, and keeps the other feed', async () => {
    for (const reply of [
      (s: nock.Interceptor) => s.reply(200, 'null', { 'content-type': 'application/json' }),
      (s: nock.Interceptor) => s.reply(200, '<html>oops</html>', { 'content-type': 'text/html' }),
      (s: nock.Interceptor) => s.reply(500, { error: 'boom' }),
      (s: nock.Interceptor) => s.reply(200, { data: { plans: 'not a list' } }),
    ]) {
      territories();
      nock(FEEDS).get('/voltify/api/v2/offers').query(true).reply(200, sample('voltify'));
      reply(nock(FEEDS).get('/brightgrid/v1/plans/75001').query(true));
      const r = await query(PLANS);
      expect(r.status).toBe(200);
      expect(r.json.data.residentialPlans.length).toBeGreaterThan(0);
      expect(r.json.errors).toEqual([
        expect.objectContaining({ path: ['residentialPlans'], extensions: { code: 'UPSTREAM_UNAVAILABLE', feed: 'Brightgrid' } }),
      ]);
      expect(JSON.stringify(r.json)).not.toContain('feeds.test');
      nock.cleanAll();
    }
  });

  it('skips offers with wrong types or missing fields and keeps the good ones', async () => {
    const good = sample('voltify').offers.filter((o: { customerClass: string }) => o.customerClass === 'Residential');
    const bad = [
      { ...good[0], offerId: 'BAD-1', termMonths: 'twelve' },
      { ...good[0], offerId: 'BAD-2', energyChargeCentsPerKwh: [] },
      { ...good[0], offerId: 'BAD-3', rateStructure: 'Mystery' },
      (({ supplierName: _s, ...rest }) => ({ ...rest, offerId: 'BAD-4' }))(good[0]),
    ];
    territories();
    nock(FEEDS)
      .get('/voltify/api/v2/offers')
      .query(true)
      .reply(200, { offers: [...good, ...bad] });
    nock(FEEDS)
      .get('/brightgrid/v1/plans/75001')
      .query(true)
      .reply(200, { data: { zip: '75001', plans: [] } });
    const r = await query(PLANS);
    expect(r.status).toBe(200);
    const titles = r.json.data.residentialPlans.map((p: { title: string }) => p.title);
    expect(r.json.errors).toBeUndefined();
    expect(titles.length).toBe(good.length);
  });

  it('fails utilities with an error naming the territories feed when its payload is unusable', async () => {
    nock(FEEDS).get('/territories/v1/zip/75001').reply(200, { zip: '75001' });
    const r = await query('{ utilities(zipCode: "75001") { id } }');
    expect(r.json.errors[0].extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', feed: 'Territories' });
    expect(r.json.data).toBeNull();
  });

  it("answers state statistics from EIA API v2 answers in EIA's documented shape", async () => {
    nock(FEEDS)
      .get(/^\/v2\/electricity\/retail-sales\/data\/?$/)
      .query(true)
      .reply(200, eiaRetailSales('TX'));
    nock(FEEDS)
      .get(/^\/v2\/electricity\/electric-power-operational-data\/data\/?$/)
      .query(true)
      .reply(200, eiaGeneration('TX'));
    const s = await query(
      '{ energyInfoByState(state: "tx") { state name dataYear averageResidentialRateUsdPerKwh averageCommercialRateUsdPerKwh ' +
        'generationMix { source percent } } }',
    );
    expect(s.json.errors, JSON.stringify(s.json.errors)).toBeUndefined();
    expect(s.json.data.energyInfoByState).toMatchObject({
      state: 'TX',
      name: 'Texas',
      dataYear: 2025,
      averageResidentialRateUsdPerKwh: 0.1541,
      averageCommercialRateUsdPerKwh: 0.0918,
    });
    // 250,000 of 500,000 thousand MWh natural gas; the 2024 rows are not used.
    expect(s.json.data.energyInfoByState.generationMix[0]).toEqual({ source: 'NATURAL_GAS', percent: 50 });
    const tenths = s.json.data.energyInfoByState.generationMix.reduce(
      (a: number, m: { percent: number }) => a + Math.round(m.percent * 10),
      0,
    );
    expect(tenths).toBe(1000);
  });
});

describe('EIA API v2 by configuration', () => {
  let eiaGateway: GatewayHandle;
  let eiaDir: string;
  beforeAll(async () => {
    eiaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-nock-eia-'));
    eiaGateway = await startGateway({
      env: {
        PATH: process.env.PATH,
        UPSTREAM_URL: FEEDS,
        // No EIA_URL: with a key the Eia source goes to EIA itself.
        EIA_API_KEY: 'test-eia-key-0123456789',
        ENVIRONMENTS: 'playground',
        PLAYGROUND_PORT: '0',
        OPS_PORT: '0',
        PLAYGROUND_ALLOWANCE: '1000',
        DATA_DIR: eiaDir,
        LOG_LEVEL: 'silent',
        CACHE_ENABLED: 'false',
        UPSTREAM_RETRIES: '0',
        UPSTREAM_BREAKER: 'false',
        STALE_IF_ERROR_SECONDS: '0',
        UPSTREAM_DEDUP: 'false',
      },
      upstreamTransport: fetchTransport((url, init) => fetch(url, init)),
    });
  });
  afterAll(async () => {
    await eiaGateway?.close();
    fs.rmSync(eiaDir, { recursive: true, force: true });
  });

  it('calls https://api.eia.gov with api_key, the state, sectors and fuel types as facets, latest year first', async () => {
    const seen: Record<string, unknown>[] = [];
    const capture = (q: Record<string, unknown>) => (seen.push(q), q.api_key === 'test-eia-key-0123456789' && q.frequency === 'annual');
    nock('https://api.eia.gov')
      .get(/^\/v2\/electricity\/retail-sales\/data\/?$/)
      .query(capture)
      .reply(200, eiaRetailSales('TX'));
    nock('https://api.eia.gov')
      .get(/^\/v2\/electricity\/electric-power-operational-data\/data\/?$/)
      .query(capture)
      .reply(200, eiaGeneration('TX'));
    const res = await fetch(eiaGateway.urls.playground!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ energyInfoByState(state: "TX") { dataYear averageResidentialRateUsdPerKwh source estimated } }' }),
    });
    const json = (await res.json()) as any;
    expect(json.errors).toBeUndefined();
    // EIA's own figures: labelled as EIA's, not estimated.
    expect(json.data.energyInfoByState).toEqual({
      dataYear: 2025,
      averageResidentialRateUsdPerKwh: 0.1541,
      source: 'EIA API v2',
      estimated: false,
    });
    const sales = seen.find((q) => q['data[0]'] === 'price')!;
    expect(sales).toMatchObject({ 'facets[stateid][]': 'TX', 'facets[sectorid][]': ['RES', 'COM'], 'sort[0][direction]': 'desc' });
    const gen = seen.find((q) => q['data[0]'] === 'generation')!;
    expect(gen).toMatchObject({ 'facets[location][]': 'TX', 'facets[sectorid][]': '99' });
    expect(gen['facets[fueltypeid][]']).toEqual(['COW', 'PET', 'NG', 'OOG', 'NUC', 'HYC', 'AOR', 'HPS', 'OTH']);
  });
});
