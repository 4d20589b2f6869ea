// A household's year through the public API: a usage profile or an annual total spread by the
// state's shape, each plan's annual cost and rate spread, the ranking they give, bad input, and
// what a profile costs upstream (counted by a proxy in front of the reference upstream).
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startReferenceUpstream, type ReferenceUpstream } from '../../sources/reference-upstream/server.js';
import { listen } from '../../server/http/listen.js';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';

let upstream: ReferenceUpstream;
let proxy: { url: string; close(): Promise<void> };
/** Upstream request paths since the last reset. */
let calls: string[] = [];
let t: TestGateway;
beforeAll(async () => {
  upstream = await startReferenceUpstream({ port: 0, host: '127.0.0.1' });
  const server = http.createServer(async (req, res) => {
    calls.push(req.url ?? '');
    const r = await fetch(`${upstream.url}${req.url}`, { headers: { accept: 'application/json' } });
    res.writeHead(r.status, { 'content-type': 'application/json', 'cache-control': r.headers.get('cache-control') ?? 'no-store' });
    res.end(await r.text());
  });
  proxy = await listen(server, 0, '127.0.0.1');
  t = await startTestGateway({ PLAYGROUND_ALLOWANCE: '1000', UPSTREAM_URL: proxy.url, START_REFERENCE_UPSTREAM: 'false' });
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await upstream?.close();
});
beforeEach(() => {
  calls = [];
});

const PLANS = `query Plans($zip: String!, $usage: Int, $profile: [Int!], $annual: Int) {
  residentialPlans(zipCode: $zip, monthlyUsage: $usage, usageProfile: $profile, annualUsageKwh: $annual) {
    id title utilityId
    rates { usageKwh avgMonthlyBillUsd allInRateUsdPerKwh }
    term rateType fees { enrollmentUsd }
    annualCost { totalUsd averageRateUsdPerKwh oneTimeFeesUsd priceFixedMonths months { month usageKwh billUsd } }
    rateSpread { minRateUsdPerKwh minAtKwh maxRateUsdPerKwh maxAtKwh creditThresholdKwh }
  }
}`;

/** A Texas household: mild winters, 2,100 kWh in an August of air conditioning. */
const SUMMER_HEAVY = [800, 800, 750, 800, 1100, 1600, 2000, 2100, 1700, 1100, 800, 800];

interface Plan {
  id: string;
  title: string;
  rates: { usageKwh: number; avgMonthlyBillUsd: number }[];
  term: number;
  rateType: string;
  fees: { enrollmentUsd: number };
  annualCost: {
    totalUsd: number;
    oneTimeFeesUsd: number;
    priceFixedMonths: number;
    averageRateUsdPerKwh: number | null;
    months: { month: number; usageKwh: number; billUsd: number }[];
  } | null;
  rateSpread: { minRateUsdPerKwh: number; minAtKwh: number; maxRateUsdPerKwh: number; maxAtKwh: number; creditThresholdKwh: number | null };
}

async function plans(variables: Record<string, unknown>): Promise<Plan[]> {
  const r = await t.post('production', PLANS, { zip: '75001', ...variables });
  expect(r.json.errors).toBeUndefined();
  return r.json.data.residentialPlans;
}

async function errorOf(variables: Record<string, unknown>) {
  const r = await t.post('production', PLANS, { zip: '75001', ...variables });
  expect(r.status).toBe(200);
  expect(r.json.errors).toHaveLength(1);
  return r.json.errors[0] as { message: string; extensions: { code: string; argument: string } };
}

describe('annual cost over a usage profile', () => {
  it('prices each month at the bill `rates` gives and ranks by the year', async () => {
    const list = await plans({ profile: SUMMER_HEAVY, usage: 2100 });
    expect(list.length).toBeGreaterThan(3);
    for (const p of list) {
      expect(p.annualCost!.months.map((m) => m.usageKwh)).toEqual(SUMMER_HEAVY);
      expect(p.annualCost!.months.map((m) => m.month)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      // August's bill is the 2,100 kWh tier's bill (that one is published to 0.1 USD).
      const tier = p.rates.find((r) => r.usageKwh === 2100)!;
      expect(Math.abs(p.annualCost!.months[7]!.billUsd - tier.avgMonthlyBillUsd)).toBeLessThanOrEqual(0.05 + 2100e-6);
      // The total is the rounded exact sum of the months and the one-time (enrollment) fee: within
      // half a cent per month of the rounded bills' sum plus the fee.
      expect(p.annualCost!.oneTimeFeesUsd).toBe(p.fees.enrollmentUsd);
      expect(p.annualCost!.priceFixedMonths).toBe(p.rateType === 'FIXED' ? Math.min(p.term, 12) : 0);
      const cents = p.annualCost!.months.reduce((a, m) => a + Math.round(m.billUsd * 100), Math.round(p.annualCost!.oneTimeFeesUsd * 100));
      expect(Math.abs(Math.round(p.annualCost!.totalUsd * 100) - cents)).toBeLessThanOrEqual(6);
    }
    const keys = list.map((p) => [Math.round(p.annualCost!.totalUsd * 100), p.id] as const);
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    expect(keys).toEqual(sorted);
  });

  it('moves a credit-at-1000-kWh plan down the ranking it has at monthlyUsage: 1000', async () => {
    const at1000 = await plans({ usage: 1000 });
    const year = await plans({ profile: SUMMER_HEAVY });
    const title = 'Lone Star Saver 36';
    const rankAt1000 = at1000.findIndex((p) => p.title === title);
    const rankYear = year.findIndex((p) => p.title === title);
    expect(rankAt1000).toBeGreaterThanOrEqual(0);
    expect(rankYear).toBeGreaterThan(rankAt1000);
    const saver = year[rankYear]!;
    expect(saver.rateSpread.creditThresholdKwh).toBe(1000);
    expect(saver.rateSpread.minAtKwh).toBe(1000);
    expect(saver.rateSpread.maxRateUsdPerKwh).toBeGreaterThan(saver.rateSpread.minRateUsdPerKwh);
  });

  it('the playground answers the same year within its query limits', async () => {
    const r = await t.post('playground', PLANS, { zip: '75001', profile: SUMMER_HEAVY });
    expect(r.json.errors).toBeUndefined();
    expect(r.json.data.residentialPlans.map((p: Plan) => p.annualCost!.totalUsd)).toEqual(
      (await plans({ profile: SUMMER_HEAVY })).map((p) => p.annualCost!.totalUsd),
    );
  });

  it('without a profile: no annual cost, still ordered by the bill at 1000 kWh', async () => {
    const list = await plans({});
    expect(list.every((p) => p.annualCost === null)).toBe(true);
    expect(list.every((p) => p.rateSpread.minAtKwh >= 500 && p.rateSpread.maxAtKwh <= 2000)).toBe(true);
    const at1000 = list.map((p) => p.rates.find((r) => r.usageKwh === 1000)!.avgMonthlyBillUsd);
    expect(at1000).toEqual([...at1000].sort((a, b) => a - b));
  });

  it('spreads annualUsageKwh by the state shape, summer-heavy in Texas', async () => {
    const list = await plans({ annual: 14_000 });
    const months = list[0]!.annualCost!.months.map((m) => m.usageKwh);
    expect(months.reduce((a, b) => a + b, 0)).toBe(14_000);
    expect(Math.max(...months)).toBe(months[7]); // August
    const same = await plans({ profile: months });
    expect(same.map((p) => [p.id, p.annualCost!.totalUsd])).toEqual(list.map((p) => [p.id, p.annualCost!.totalUsd]));
  });
});

describe('bad input names the argument', () => {
  it.each([
    ['eleven months', { profile: SUMMER_HEAVY.slice(1) }, 'usageProfile', /exactly 12/],
    ['thirteen months', { profile: [...SUMMER_HEAVY, 900] }, 'usageProfile', /exactly 12/],
    ['a negative month', { profile: [-1, ...SUMMER_HEAVY.slice(1)] }, 'usageProfile', /usageProfile\[0\].*0 to 100000/],
    ['a month over 100000', { profile: [...SUMMER_HEAVY.slice(0, 11), 100_001] }, 'usageProfile', /usageProfile\[11\]/],
    ['both arguments', { profile: SUMMER_HEAVY, annual: 12_000 }, 'usageProfile', /not both/],
    ['annual usage of 0', { annual: 0 }, 'annualUsageKwh', /1 to 1200000/],
  ])('%s', async (_what, variables, argument, message) => {
    const e = await errorOf(variables);
    expect(e.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    expect(e.message).toMatch(message);
  });

  it('any generated profile: a year, or BAD_USER_INPUT naming usageProfile, never a stack trace', async () => {
    const month = fc.oneof(fc.integer({ min: -5, max: 100_005 }), fc.constantFrom(0, 100_000, 2 ** 31 - 1, -(2 ** 31)));
    await fc.assert(
      fc.asyncProperty(fc.array(month, { minLength: 0, maxLength: 14 }), async (profile) => {
        const r = await t.post('production', PLANS, { zip: '75001', profile });
        expect(r.status).toBe(200);
        expect(r.text).not.toMatch(/at .*\.(ts|js):\d+|node_modules/);
        const valid = profile.length === 12 && profile.every((v) => v >= 0 && v <= 100_000);
        if (valid) expect(r.json.data.residentialPlans[0].annualCost.months).toHaveLength(12);
        else expect(r.json.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'usageProfile' });
      }),
      { numRuns: 40 },
    );
  });

  it('a state without a usage shape', async () => {
    const e = await errorOf({ zip: '03101', annual: 8000 });
    expect(e.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'annualUsageKwh' });
    expect(e.message).toMatch(/no typical monthly usage shape is available for NH/);
  });
});

describe('what a profile costs', () => {
  const Q =
    'query($zip: String!, $p: [Int!], $a: Int) { residentialPlans(zipCode: $zip, usageProfile: $p, annualUsageKwh: $a) { id annualCost { totalUsd } } }';
  const upstreamFor = async (variables: Record<string, unknown>) => {
    calls = [];
    const r = await t.post('production', Q, variables);
    expect(r.json.errors).toBeUndefined();
    return { cache: r.headers.get('x-cache'), calls: [...calls].sort(), body: r.json.data.residentialPlans };
  };

  it('a profile adds no upstream call; it is part of the cache key', async () => {
    const plain = await upstreamFor({ zip: '77002' });
    const profiled = await upstreamFor({ zip: '77002', p: SUMMER_HEAVY });
    expect(plain.cache).toBe('MISS');
    expect(profiled.cache).toBe('MISS');
    expect(profiled.calls).toEqual(plain.calls);
    expect(profiled.calls.some((c) => c.includes('residential-sales'))).toBe(false);
    const other = await upstreamFor({ zip: '77002', p: SUMMER_HEAVY.map((x) => x + 100) });
    expect(other.cache).toBe('MISS');
    expect(other.body.map((p: Plan) => p.annualCost!.totalUsd)).not.toEqual(profiled.body.map((p: Plan) => p.annualCost!.totalUsd));
    const again = await upstreamFor({ zip: '77002', p: SUMMER_HEAVY });
    expect(again).toMatchObject({ cache: 'HIT', calls: [], body: profiled.body });
  });

  it('annualUsageKwh adds one call for the state shape', async () => {
    const plain = await upstreamFor({ zip: '77003' });
    const annual = await upstreamFor({ zip: '77003', a: 12_000 });
    expect(annual.calls.filter((c) => !plain.calls.includes(c))).toEqual(['/eia/v1/states/TX/residential-sales/monthly']);
  });
});

describe('the docs example cannot drift', () => {
  it("docs/partners.md's 'Lone Star Saver 36' figures are those of a live run", async () => {
    const docs = (await import('node:fs')).readFileSync(new URL('../../docs/partners.md', import.meta.url), 'utf8');
    const from = docs.indexOf('With the reference data, "Lone Star Saver 36"');
    expect(from).toBeGreaterThan(0);
    const paragraph = docs.slice(from, docs.indexOf('\n\n', from)).replace(/\s+/g, ' ');
    const list = await plans({ profile: SUMMER_HEAVY });
    const at1000 = await plans({ usage: 1000 });
    const i = list.findIndex((p) => p.title === 'Lone Star Saver 36');
    const plan = list[i]!;
    const year = plan.annualCost!;
    const first = at1000[0]!;
    expect(first.title).toBe('Lone Star Saver 36');
    const tier = first.rates.find((r) => r.usageKwh === 1000) as { allInRateUsdPerKwh?: number } | undefined;
    const nth = (n: number) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
    expect(paragraph).toContain(`${nth(i + 1)} of ${list.length}`);
    expect(paragraph).toContain(`year costs ${year.totalUsd.toFixed(2)} USD`);
    if (tier?.allInRateUsdPerKwh !== undefined)
      expect(paragraph).toContain(`(${(tier.allInRateUsdPerKwh * 100).toFixed(4)} cents per kWh all-in)`);
    const s = plan.rateSpread;
    expect(paragraph).toContain(`reads ${s.minRateUsdPerKwh} at ${s.minAtKwh} kWh to ${s.maxRateUsdPerKwh} at ${s.maxAtKwh} kWh`);
    expect(paragraph).toContain(`(${((year.averageRateUsdPerKwh ?? 0) * 100).toFixed(4)} cents per kWh)`);
    const under = year.months.filter((m) => m.usageKwh < 1000).map((m) => m.billUsd);
    expect(paragraph).toContain(`pay ${Math.min(...under).toFixed(2)} to ${Math.max(...under).toFixed(2)} USD each`);
    const may = year.months[4]!;
    expect(paragraph).toContain(`May, at ${may.usageKwh} kWh, pays ${may.billUsd.toFixed(2)} USD`);
  });
});
