// The reference upstream against its own contracts: the EIA feeds (and EIA API v2's routes),
// premises, determinism, query validation, caching headers and fault injection. The service and the
// territories and supplier feeds: reference-upstream.test.ts.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startReferenceUpstream } from '../sources/reference-upstream/server.js';
import { SAMPLE_REQUESTS, samplePath } from '../sources/reference-upstream/samples.js';
import { expectValid, get, startsReferenceUpstream, upstream, type Json } from './support/reference-upstream-contracts.js';

startsReferenceUpstream();

describe('reference upstream: eia', () => {
  const CODES = (
    'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT ' +
    'VT VA WA WV WI WY'
  ).split(' ');

  it('serves all 50 states and DC, valid against the contract', async () => {
    expect(CODES).toHaveLength(51);
    for (const code of CODES) {
      const res = await get(`/eia/v1/states/${code}`);
      expect(res.status, code).toBe(200);
      expectValid('eia', res.body);
      expect(res.body.state).toBe(code);
      expect(res.body.year).toBe(2024);
    }
  });

  it('has plausible prices and generation mixes', async () => {
    const stats = async (code: string) => (await get(`/eia/v1/states/${code}`)).body;
    const largest = (s: Json) => Object.entries(s.generationMwh as Record<string, number>).sort((a, b) => b[1] - a[1])[0]![0];
    const tx = await stats('TX');
    expect(tx.averageRetailPrice.residentialCentsPerKwh).toBe(15.27);
    expect((await stats('HI')).averageRetailPrice.residentialCentsPerKwh).toBeGreaterThan(35);
    expect(largest(await stats('WA'))).toBe('hydroelectricConventional');
    expect(largest(await stats('WV'))).toBe('coal');
    expect(largest(tx)).toBe('naturalGas');
    const vt = (await stats('VT')).generationMwh;
    const vtTotal = Object.values(vt as Record<string, number>).reduce((a, b) => a + b, 0);
    expect((vt.coal + vt.naturalGas + vt.petroleum) / vtTotal).toBeLessThan(0.01);
    const dcTotal = Object.values((await stats('DC')).generationMwh as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(dcTotal).toBeLessThan(1_000_000);
  });

  it("reports EIA's nine categories, net pumped storage zero or negative, shares of exactly 100.0", async () => {
    for (const code of CODES) {
      const { generationMwh } = (await get(`/eia/v1/states/${code}`)).body;
      expect(Object.keys(generationMwh).sort(), code).toEqual([
        'coal',
        'hydroelectricConventional',
        'naturalGas',
        'nuclear',
        'other',
        'otherGases',
        'otherRenewables',
        'petroleum',
        'pumpedStorage',
      ]);
      expect(generationMwh.pumpedStorage, code).toBeLessThanOrEqual(0);
      const total = Object.values(generationMwh as Record<string, number>).reduce((a, b) => a + b, 0);
      // Every category is a whole tenth of a percent of the total: the table's own shares, unscaled.
      for (const [k, mwh] of Object.entries(generationMwh as Record<string, number>))
        expect((((mwh * 1000) % total) + total) % total, `${code} ${k}`).toBe(0);
    }
    const tx = (await get('/eia/v1/states/TX')).body.generationMwh;
    expect(tx.naturalGas / Object.values(tx as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(0.499);
  });

  it('answers an unknown state with 404 { error: "unknown state" }', async () => {
    const res = await get('/eia/v1/states/ZZ');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'unknown state' });
  });
});

describe('reference upstream: monthly residential sales', () => {
  it('serves twelve months for the choice states, summer-peaked in Texas', async () => {
    for (const code of ['TX', 'PA', 'OH', 'IL', 'NY', 'NJ', 'MD', 'MA', 'CT']) {
      const res = await get(`/eia/v1/states/${code}/residential-sales/monthly`);
      expect(res.status, code).toBe(200);
      expectValid('eia-monthly-sales', res.body);
      const [series] = res.body.series;
      expect(
        series.data.map((m: Json) => m.month),
        code,
      ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    }
    const tx = (await get('/eia/v1/states/tx/residential-sales/monthly')).body.series[0].data.map((m: Json) => m.salesThousandMwh);
    expect(Math.max(...tx)).toBe(tx[7]);
  });

  it('answers a state without figures with an empty series, an unknown one with 404', async () => {
    expect((await get('/eia/v1/states/NH/residential-sales/monthly')).body).toEqual({ state: 'NH', series: [] });
    expect((await get('/eia/v1/states/ZZ/residential-sales/monthly')).status).toBe(404);
  });
});

describe('reference upstream: premises', () => {
  const LANDMARKS: [string, string, string, string, string][] = [
    ['75201', '1500 MARILLA ST', 'DALLAS', 'ONCOR', 'ESIID'],
    ['77002', '901 BAGBY ST', 'HOUSTON', 'CENTERPOINT', 'ESIID'],
    ['19103', '1400 JFK BLVD', 'PHILADELPHIA', 'PECO', 'ACCOUNT_NUMBER'],
    ['60602', '121 N LASALLE ST', 'CHICAGO', 'COMED', 'ACCOUNT_NUMBER'],
    ['43215', '90 W BROAD ST', 'COLUMBUS', 'AEP_OHIO', 'ACCOUNT_NUMBER'],
  ];

  it('finds the landmark premises, valid against the contract', async () => {
    for (const [zip, line1, city, utilityId, idType] of LANDMARKS) {
      const res = await get(`/premises/v1/search?zip=${zip}&address=${encodeURIComponent(line1)}`);
      expect(res.status).toBe(200);
      expectValid('premises', res.body);
      expect(res.body.matches, line1).toHaveLength(1);
      const [m] = res.body.matches;
      expect(m).toMatchObject({ idType, utilityId, serviceAddress: { line1, city, zip } });
      if (idType === 'ESIID') expect(m.accountId).toMatch(/^\d{17}$/);
      else expect(m.accountId).toMatch(/^\d{8,15}$/);
      expect(m.serviceAddress.state).toMatch(/^[A-Z]{2}$/);
    }
    const [oncor] = (await get('/premises/v1/search?zip=75201&address=1500%20MARILLA%20ST')).body.matches;
    expect(oncor.accountId.startsWith('10443720')).toBe(true);
    const [cnp] = (await get('/premises/v1/search?zip=77002&address=901%20BAGBY%20ST')).body.matches;
    expect(cnp.accountId.startsWith('1008901')).toBe(true);
  });

  it('matches case-insensitively, collapsing whitespace, by house number and street prefix', async () => {
    for (const q of ['1500 marilla st', '  1500   Marilla  ', '1500 MARILLA', '1500 Marilla Street']) {
      const { body } = await get(`/premises/v1/search?zip=75201&address=${encodeURIComponent(q)}`);
      expect(
        body.matches.map((m: Json) => m.serviceAddress.line1),
        q,
      ).toEqual(['1500 MARILLA ST']);
    }
    expect((await get('/premises/v1/search?zip=75201&address=1 NOWHERE WAY')).body).toEqual({ matches: [] });
    expect((await get('/premises/v1/search?zip=99501&address=1500 MARILLA ST')).body).toEqual({ matches: [] });
  });

  it('has a handful of accounts in served ZIPs, split across utilities of shared ZIPs', async () => {
    // Every address starts with a house number, so searching each digit lists the whole ZIP.
    const byId = new Map<string, Json>();
    for (const digit of '0123456789') {
      const { body } = await get(`/premises/v1/search?zip=75067&address=${digit}`);
      expectValid('premises', body);
      for (const m of body.matches) byId.set(m.accountId, m);
    }
    const all = [...byId.values()];
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(new Set(all.map((m) => m.utilityId))).toEqual(new Set(['ONCOR', 'TNMP']));
    for (const m of all) {
      expect(m.idType).toBe('ESIID');
      expect(m.accountId).toMatch(m.utilityId === 'TNMP' ? /^10400511\d{9}$/ : /^10443720\d{9}$/);
    }
  });

  it('rejects a missing zip or address with a JSON 400', async () => {
    for (const q of ['zip=75201', 'address=1500%20MARILLA%20ST', 'zip=75201&address=%20%20', 'zip=7520&address=1500']) {
      const res = await get(`/premises/v1/search?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error, q).toBeTypeOf('string');
    }
  });
});

describe('reference upstream: determinism', () => {
  it('serves identical payloads on repeated requests', async () => {
    for (const path of Object.values(SAMPLE_REQUESTS).concat([
      '/voltify/api/v2/offers?zip=10001&class=commercial',
      '/brightgrid/v1/plans/60601',
    ])) {
      const a = await get(path);
      const b = await get(path);
      expect(b.body, path).toEqual(a.body);
    }
  });

  it('matches the sample payloads written by another process', async () => {
    for (const [feed, path] of Object.entries(SAMPLE_REQUESTS)) {
      const sample = JSON.parse(readFileSync(samplePath(feed), 'utf8'));
      expectValid(feed, sample);
      expect((await get(path)).body, feed).toEqual(sample);
    }
  });
});

describe('reference upstream: faults', () => {
  it('status: answers with the injected status on that feed only', async () => {
    upstream.setFault('eia', { kind: 'status', status: 503 });
    const res = await get('/eia/v1/states/TX');
    expect(res.status).toBe(503);
    expect(res.body.error).toBeTypeOf('string');
    expect((await get('/territories/v1/zip/75001')).status).toBe(200);
    upstream.setFault('eia', null);
    expect((await get('/eia/v1/states/TX')).status).toBe(200);
  });

  it('null: answers 200 with a JSON null body', async () => {
    upstream.setFault('territories', { kind: 'null' });
    const res = await fetch(`${upstream.url}/territories/v1/zip/75001`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('null');
  });

  it('garbage: answers 200 with a body that is not JSON', async () => {
    upstream.setFault('voltify', { kind: 'garbage' });
    const res = await fetch(`${upstream.url}/voltify/api/v2/offers?zip=75001&class=residential`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(() => JSON.parse(text)).toThrow();
  });

  it('slow: delays, then answers normally', async () => {
    upstream.setFault('premises', { kind: 'slow', ms: 300 });
    const started = Date.now();
    const res = await get('/premises/v1/search?zip=75201&address=1500%20MARILLA%20ST');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(res.status).toBe(200);
    expect(res.body.matches).toHaveLength(1);
  });

  it('down: drops the connection without a response', async () => {
    upstream.setFault('brightgrid', { kind: 'down' });
    await expect(fetch(`${upstream.url}/brightgrid/v1/plans/75001`)).rejects.toThrow();
    upstream.setFault('brightgrid', null);
    expect((await get('/brightgrid/v1/plans/75001')).status).toBe(200);
  });

  it('can be set from another process through POST /__faults/{feed}', async () => {
    const post = (feed: string, body: string) =>
      fetch(`${upstream.url}/__faults/${feed}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post('eia', JSON.stringify({ kind: 'status', status: 500 }))).status).toBe(200);
    expect((await get('/eia/v1/states/TX')).status).toBe(500);
    expect((await post('eia', 'null')).status).toBe(200);
    expect((await get('/eia/v1/states/TX')).status).toBe(200);
    expect((await post('eia', '{"kind":"meltdown"}')).status).toBe(400);
    expect((await post('eia', '{not json')).status).toBe(400);
    expect((await post('weather', 'null')).status).toBe(404);
  });

  it('rejects unknown feeds and malformed faults in setFault', () => {
    expect(() => upstream.setFault('weather', { kind: 'down' })).toThrow(/unknown feed/);
    expect(() => upstream.setFault('eia', { kind: 'slow', ms: -1 })).toThrow();
  });

  it('close() ends promptly even with a slow request in flight', async () => {
    const other = await startReferenceUpstream({ port: 0 });
    other.setFault('eia', { kind: 'slow', ms: 60_000 });
    const pending = fetch(`${other.url}/eia/v1/states/TX`).then(
      () => 'answered',
      () => 'dropped',
    );
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await other.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await pending).toBe('dropped');
  });
});

describe('reference upstream: EIA API v2 routes', () => {
  it("answers retail prices and generation in EIA v2's shape, numbers as text, filtered by facets, latest year first", async () => {
    const sales = await get(
      '/v2/electricity/retail-sales/data/?frequency=annual&data[0]=price&facets[stateid][]=TX&facets[sectorid][]=RES' +
        '&sort[0][column]=period&sort[0][direction]=desc&api_key=x',
    );
    expect(sales.status).toBe(200);
    expect(sales.body.response.data.map((r: Json) => [r.period, r.stateid, r.sectorid])).toEqual([
      ['2025', 'TX', 'RES'],
      ['2024', 'TX', 'RES'],
    ]);
    expect(sales.body.response.data[1].price).toBe('15.27'); // the 2024 table of eia.ts
    expect(sales.body.response.data[0].price).toMatch(/^\d+\.\d\d$/);
    expect(sales.body.request.params.api_key).toBeUndefined();
    const gen = await get(
      '/v2/electricity/electric-power-operational-data/data?frequency=annual&data[0]=generation&facets[location][]=TX' +
        '&facets[fueltypeid][]=NG&facets[fueltypeid][]=HPS',
    );
    expect(gen.body.response.data.map((r: Json) => `${r.period} ${r.fueltypeid}`).sort()).toEqual([
      '2024 HPS',
      '2024 NG',
      '2025 HPS',
      '2025 NG',
    ]);
    expect(gen.body.response.data.find((r: Json) => r.period === '2024' && r.fueltypeid === 'NG').generation).toBe('259529.900');
    expect((await get('/v2/electricity/retail-sales/data/?frequency=monthly')).status).toBe(400);
    expect((await get('/v2/electricity/retail-sales/data/?data[0]=revenue')).status).toBe(400);
  });
});
