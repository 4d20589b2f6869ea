// Coverage over real HTTP against the reference upstream: municipal towns inside investor-owned ZIP
// prefixes answered as such (no plans), the gaps of round 3 filled (West Penn, Penn Power, Delmarva
// Delaware, Central Maine Power, Versant, PECO's 18901), and `coverage` telling an empty plan list's
// reasons apart, in production and in the playground (where it counts like any call).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway({ CACHE_ENABLED: 'false', PLAYGROUND_ALLOWANCE: '5' });
});
afterAll(async () => t?.close());

async function data(query: string, environment: 'production' | 'playground' = 'production') {
  const r = await t.post(environment, query);
  expect(r.status).toBe(200);
  expect(r.json.errors, JSON.stringify(r.json.errors)).toBeUndefined();
  return r.json.data;
}

const COVERAGE = (zip: string) =>
  `{ coverage(zipCode: "${zip}") { zipCode status utilities { id name state market ownership } }
     residentialPlans(zipCode: "${zip}") { id } }`;

const MUNICIPAL_TOWNS: [zip: string, utilityId: string, name: RegExp, state: string][] = [
  ['75040', 'GARLAND_PL', /Garland Power & Light/, 'TX'],
  ['76201', 'DENTON_ME', /Denton Municipal Electric/, 'TX'],
  ['75401', 'GEUS', /GEUS/, 'TX'],
  ['78520', 'BROWNSVILLE_PUB', /Brownsville Public Utilities Board/, 'TX'],
  ['60540', 'NAPERVILLE_ELECTRIC', /Naperville/, 'IL'],
  ['60134', 'GENEVA_IL', /Geneva/, 'IL'],
  ['02481', 'WELLESLEY_MLP', /Wellesley Municipal Light Plant/, 'MA'],
  ['01867', 'READING_MLD', /Reading Municipal Light Department/, 'MA'],
  ['02780', 'TAUNTON_MLP', /Taunton Municipal Lighting Plant/, 'MA'],
  ['01040', 'HOLYOKE_GE', /Holyoke Gas & Electric/, 'MA'],
  ['21601', 'EASTON_UTILITIES', /Easton Utilities/, 'MD'],
  ['06360', 'NORWICH_PU', /Norwich Public Utilities/, 'CT'],
  ['06492', 'WALLINGFORD_ELECTRIC', /Wallingford Electric/, 'CT'],
];

describe('municipal towns inside investor-owned prefixes', () => {
  it.each(MUNICIPAL_TOWNS)('%s: %s, MUNICIPAL, REGULATED, no plans', async (zip, id, name, state) => {
    const d = await data(COVERAGE(zip));
    expect(d.coverage.status).toBe('NO_CHOICE');
    expect(d.coverage.utilities).toEqual([{ id, name: expect.stringMatching(name), state, market: 'REGULATED', ownership: 'MUNICIPAL' }]);
    expect(d.residentialPlans).toEqual([]);
  });

  it('a regulated municipal utility carries its bundled rate, not delivery charges', async () => {
    const d = await data('{ utilities(zipCode: "75040") { deliveryCharges { perKwhUsd } bundledRate { fixedMonthlyUsd perKwhUsd } } }');
    expect(d.utilities[0].deliveryCharges).toBeNull();
    expect(d.utilities[0].bundledRate.perKwhUsd).toBeGreaterThan(0.05);
  });

  it('neighbouring ZIPs of the investor-owned utility are unchanged', async () => {
    expect((await data(COVERAGE('75001'))).coverage.utilities.map((u: { id: string }) => u.id)).toEqual(['ONCOR']);
    expect((await data(COVERAGE('60601'))).coverage.utilities.map((u: { id: string }) => u.id)).toEqual(['COMED']);
  });

  it('a split ZIP lists both utilities', async () => {
    const d = await data(COVERAGE('44113'));
    expect(d.coverage.status).toBe('RETAIL_CHOICE');
    expect(d.coverage.utilities.map((u: { id: string }) => u.id)).toEqual(['CEI', 'CLEVELAND_PUBLIC_POWER']);
  });
});

describe('the gaps of round 3, filled', () => {
  it.each([
    ['15601', 'WEST_PENN', 'PA'],
    ['16101', 'PENN_POWER', 'PA'],
    ['19801', 'DELMARVA_DE', 'DE'],
    ['04101', 'CMP', 'ME'],
    ['04401', 'VERSANT', 'ME'],
    ['18901', 'PECO', 'PA'],
  ])('%s: %s with retail choice, plans and a Price to Compare', async (zip, id, state) => {
    const d = await data(
      `{ coverage(zipCode: "${zip}") { status utilities { id state market priceToCompare { usdPerKwh } } }
         residentialPlans(zipCode: "${zip}") { id utilityId } }`,
    );
    expect(d.coverage.status).toBe('RETAIL_CHOICE');
    expect(d.coverage.utilities).toEqual([{ id, state, market: 'DEREGULATED', priceToCompare: { usdPerKwh: expect.any(Number) } }]);
    expect(d.residentialPlans.length).toBeGreaterThan(5);
    expect(new Set(d.residentialPlans.map((p: { utilityId: string }) => p.utilityId))).toEqual(new Set([id]));
  });
});

describe('coverage tells an empty list apart', () => {
  it('not a ZIP code: 00000 and 99999', async () => {
    for (const zip of ['00000', '99999']) {
      const d = await data(`{ coverage(zipCode: "${zip}") { zipCode status utilities { id } } }`);
      expect(d.coverage).toEqual({ zipCode: zip, status: 'NOT_A_ZIP', utilities: [] });
    }
  });

  it('a real ZIP no feed covers: Omaha 68102', async () => {
    expect((await data(COVERAGE('68102'))).coverage).toEqual({ zipCode: '68102', status: 'NOT_COVERED', utilities: [] });
  });

  it('served without choice (Austin Energy) and with choice (Oncor)', async () => {
    expect((await data(COVERAGE('78701'))).coverage.status).toBe('NO_CHOICE');
    expect((await data(COVERAGE('75001'))).coverage.status).toBe('RETAIL_CHOICE');
  });

  it.each(['7500', '750011', 'abcde', ' 75001', '7500\u0000', 'x'.repeat(10_000)])(
    'malformed ZIP %j: a clear error, no stack',
    async (zip) => {
      const r = await t.post('production', 'query ($z: String!) { coverage(zipCode: $z) { status } }', { z: zip });
      expect(r.status).toBe(200);
      expect(r.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(r.json.errors[0].message).toMatch(/zip/i);
      expect(r.text).not.toMatch(/at .*\.ts:\d+/);
    },
  );

  it('is on the playground and counts against its allowance like any call', async () => {
    const before = await t.post('playground', '{ utilities(zipCode: "75001") { id } }');
    const left = Number(before.headers.get('x-ratelimit-remaining'));
    const r = await t.post('playground', '{ coverage(zipCode: "00000") { status } }');
    expect(r.json).toEqual({ data: { coverage: { status: 'NOT_A_ZIP' } } });
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBe(left - 1);
  });
});

describe('regulated bundled rates', () => {
  it('PG&E carries its 2026 fixed charge (Base Services Charge, 24.15 USD a month)', async () => {
    const d = await data('{ utilities(zipCode: "94102") { id market bundledRate { fixedMonthlyUsd perKwhUsd effectiveDate } } }');
    expect(d.utilities).toEqual([
      { id: 'PGE', market: 'REGULATED', bundledRate: { fixedMonthlyUsd: 24.15, perKwhUsd: 0.2866, effectiveDate: '2026-03-01' } },
    ]);
  });
});
