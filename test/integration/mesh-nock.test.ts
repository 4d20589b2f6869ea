// The whole gateway (Mesh sources, mapping, resolvers, listener) over upstreams faked with nock:
// the feeds' sample payloads give exact answers; malformed payloads are reported per feed and
// never crash a resolver.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchGateway as startGateway } from '../../server/launch.js';
import type { GatewayHandle } from '../../server/app.js';
import { fetchTransport } from '../../sources/upstream/transport.js';

const FEEDS = 'http://feeds.test';
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

  it('answers state statistics and accounts from their feeds', async () => {
    nock(FEEDS)
      .get(/\/eia\/v1\/states\/[A-Z]{2}/)
      .reply(200, sample('eia'));
    const s = await query('{ energyInfoByState(state: "tx") { state generationMix { percent } } }');
    expect(s.json.errors).toBeUndefined();
    const tenths = s.json.data.energyInfoByState.generationMix.reduce(
      (a: number, m: { percent: number }) => a + Math.round(m.percent * 10),
      0,
    );
    expect(tenths).toBe(1000);
  });
});
