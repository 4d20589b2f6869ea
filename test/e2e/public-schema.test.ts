// The six public queries over real HTTP against the reference upstream: realistic answers for the
// ZIPs the spec names, the tier relation on every plan of every served ZIP, stable ids and URLs,
// clear input errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ PLAYGROUND_ALLOWANCE: '1000' });
});
afterAll(async () => t?.close());

const PLAN_FIELDS = `id title price term rateType supplier { name } utilityId renewablePercent
  rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd }
  fees { cancellationUsd enrollmentUsd baseMonthlyUsd minimumUsageFeeUsd minimumUsageKwh usageCredits { minKwh creditUsd } }
  headlessEnrollmentUrl`;

/** Exact decimal text -> integer scaled by 10^scale, no float arithmetic. */
function scaled(n: number, scale: number): bigint {
  const [int, frac = ''] = String(n).split('.');
  if (String(n).includes('e')) throw new Error(`unexpected exponent form ${n}`);
  if (frac.length > scale) throw new Error(`${n} has more than ${scale} decimals`);
  return BigInt(int + frac.padEnd(scale, '0'));
}

/** The spec's relation, checked exactly and as a float-using partner would. */
function expectTierRelation(tier: { usageKwh: number; allInRateUsdPerKwh: number; avgMonthlyBillUsd: number }) {
  const product = BigInt(tier.usageKwh) * scaled(tier.allInRateUsdPerKwh, 6); // micro-dollars
  const remainder = product % 100000n;
  expect(remainder).not.toBe(50000n); // never a tie: every rounding convention agrees
  const tenths = product / 100000n + (remainder >= 50000n ? 1n : 0n);
  expect(scaled(tier.avgMonthlyBillUsd, 1)).toBe(tenths);
  expect(Math.round(tier.usageKwh * tier.allInRateUsdPerKwh * 10) / 10).toBe(tier.avgMonthlyBillUsd);
}

describe('utilities', () => {
  it.each([
    ['75001', 'ONCOR'],
    ['77002', 'CENTERPOINT'],
    ['19103', 'PECO'],
    ['60601', 'COMED'],
    ['43215', 'AEP_OHIO'],
  ])('%s is served by %s', async (zip, id) => {
    const r = await t.post(
      'production',
      `{ utilities(zipCode: "${zip}") { id name state market ownership timeZone deliveryCharges { fixedMonthlyUsd perKwhUsd } } }`,
    );
    expect(r.status).toBe(200);
    expect(r.json.errors).toBeUndefined();
    expect(r.json.data.utilities.map((u: { id: string }) => u.id)).toContain(id);
  });

  it('returns several utilities where territories overlap, and Oncor public delivery charges', async () => {
    const r = await t.post(
      'production',
      '{ utilities(zipCode: "75067") { id name market deliveryCharges(onDate: "2025-10-01") { fixedMonthlyUsd perKwhUsd } } }',
    );
    const ids = r.json.data.utilities.map((u: { id: string }) => u.id);
    expect(ids).toEqual(expect.arrayContaining(['ONCOR', 'TNMP']));
    const oncor = r.json.data.utilities.find((u: { id: string }) => u.id === 'ONCOR');
    // The tariff period in effect on the date asked for (Oncor's 2025-09-01 period).
    expect(oncor.deliveryCharges).toEqual({ fixedMonthlyUsd: 4.23, perKwhUsd: 0.055833 });
  });

  it('answers an empty list for an unknown but well-formed ZIP', async () => {
    const r = await t.post('production', '{ utilities(zipCode: "99501") { id } }');
    expect(r.json).toEqual({ data: { utilities: [] } });
  });

  it.each(['7500', '750011', 'ABCDE', ' 75001', '00000', '7500١'])('rejects zipCode %j with BAD_USER_INPUT and a path', async (zip) => {
    const r = await t.post('production', 'query Q($z: String!) { utilities(zipCode: $z) { id } }', { z: zip });
    expect(r.status).toBe(200);
    expect(r.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(r.json.errors[0].path).toEqual(['utilities']);
    expect(r.json.errors[0].message).toMatch(/zip/i);
  });
});

describe('residentialPlans', () => {
  const DEREGULATED = [
    '75001',
    '75201',
    '77002',
    '78401',
    '79601',
    '77590',
    '75067',
    '19103',
    '15222',
    '18101',
    '43215',
    '45202',
    '44308',
    '60601',
    '75901',
    '03101',
    '10001',
    '13202',
    '07102',
    '08401',
    '21202',
    '20814',
    '02108',
    '01608',
  ];

  it('holds avgMonthlyBillUsd == round(usageKwh * allInRateUsdPerKwh, 1) for every plan of every served ZIP', async () => {
    let plans = 0;
    for (const [i, zip] of DEREGULATED.entries()) {
      const usage = [undefined, 1, 777, 1000, 1499, 2500, 100000][i % 7];
      const args = usage === undefined ? `zipCode: "${zip}"` : `zipCode: "${zip}", monthlyUsage: ${usage}`;
      const r = await t.post('production', `{ residentialPlans(${args}) { id rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd } } }`);
      expect(r.json.errors, zip).toBeUndefined();
      expect(r.json.data.residentialPlans.length, zip).toBeGreaterThan(5);
      for (const plan of r.json.data.residentialPlans) {
        const usages = plan.rates.map((x: { usageKwh: number }) => x.usageKwh);
        const expected = [...new Set([500, 1000, 2000, ...(usage ? [usage] : [])])].sort((a, b) => a - b);
        expect(usages).toEqual(expected);
        plan.rates.forEach(expectTierRelation);
        plans++;
      }
    }
    expect(plans).toBeGreaterThan(200);
  });

  it('returns every Plan field of the spec with realistic values, cheapest at the asked usage first', async () => {
    const r = await t.post('production', `{ residentialPlans(zipCode: "75001", monthlyUsage: 1200) { ${PLAN_FIELDS} } }`);
    expect(r.json.errors).toBeUndefined();
    const plans = r.json.data.residentialPlans;
    const suppliers = new Set(plans.map((p: { supplier: { name: string } }) => p.supplier.name));
    expect(suppliers.size).toBeGreaterThanOrEqual(3);
    expect(plans.some((p: { rateType: string }) => p.rateType === 'FIXED')).toBe(true);
    const at1200 = plans.map(
      (p: { rates: { usageKwh: number; allInRateUsdPerKwh: number }[] }) => p.rates.find((x) => x.usageKwh === 1200)!.allInRateUsdPerKwh,
    );
    expect([...at1200].sort((a, b) => a - b)).toEqual(at1200);
    for (const p of plans) {
      expect(p.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(p.price).toBeGreaterThan(0.03);
      expect(p.price).toBeLessThan(0.3);
      expect(Number.isInteger(p.term)).toBe(true);
      expect(p.utilityId).toBe('ONCOR');
      // The all-in rate varies with usage (fixed charges and credits spread differently).
      expect(new Set(p.rates.map((x: { allInRateUsdPerKwh: number }) => x.allInRateUsdPerKwh)).size).toBeGreaterThan(1);
      const url = new URL(p.headlessEnrollmentUrl);
      expect(url.protocol).toBe('https:');
      expect(url.searchParams.get('utm_medium')).toBe('api');
      expect(url.searchParams.get('utm_campaign')).toBe('headless_enrollment');
      expect(url.searchParams.get('utm_source')).toBeTruthy();
      expect(url.searchParams.get('flow')).toBe('RESIDENTIAL_PARTNER');
      expect(url.searchParams.get('plan_id')).toBe(p.id);
      expect(url.searchParams.get('zip_code')).toBe('75001');
      expect(url.searchParams.get('ref')).toBe('PARTNER_CODE');
    }
  });

  it('keeps plan ids stable across calls and environments', async () => {
    const q = '{ residentialPlans(zipCode: "19103") { id title } }';
    const a = await t.post('production', q);
    const b = await t.post('certification', q);
    const c = await t.post('playground', q);
    expect(a.json.data.residentialPlans.length).toBeGreaterThan(0);
    expect(b.json).toEqual(a.json);
    expect(c.json).toEqual(a.json);
  });

  it('narrows by utilityId and rejects a utility that does not serve the ZIP', async () => {
    const both = await t.post('production', '{ residentialPlans(zipCode: "75067") { utilityId } }');
    const ids = new Set(both.json.data.residentialPlans.map((p: { utilityId: string }) => p.utilityId));
    expect(ids).toEqual(new Set(['ONCOR', 'TNMP']));
    const tnmp = await t.post('production', '{ residentialPlans(zipCode: "75067", utilityId: "TNMP") { utilityId } }');
    expect(new Set(tnmp.json.data.residentialPlans.map((p: { utilityId: string }) => p.utilityId))).toEqual(new Set(['TNMP']));
    const wrong = await t.post('production', '{ residentialPlans(zipCode: "75001", utilityId: "PECO") { id } }');
    expect(wrong.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(wrong.json.errors[0].message).toMatch(/PECO/);
  });

  it('answers an empty list in regulated territories and unknown ZIPs', async () => {
    for (const zip of ['78701', '78205', '94102', '99501']) {
      const r = await t.post('production', `{ residentialPlans(zipCode: "${zip}") { id } }`);
      expect(r.json, zip).toEqual({ data: { residentialPlans: [] } });
    }
  });

  it.each([0, -5, 100001, 2147483647])('rejects monthlyUsage %d', async (usage) => {
    const r = await t.post('production', `{ residentialPlans(zipCode: "75001", monthlyUsage: ${usage}) { id } }`);
    expect(r.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(r.json.errors[0].path).toEqual(['residentialPlans']);
  });

  it('reports an unknown field as a GraphQL error with HTTP 200 and locations', async () => {
    const r = await t.post('production', '{ residentialPlans(zipCode: "75001") { id nonsense } }');
    expect(r.status).toBe(200);
    expect(r.json.errors[0].message).toMatch(/nonsense/);
    expect(r.json.errors[0].locations[0]).toEqual({ line: 1, column: 43 });
    expect(r.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('reports a missing required argument as a GraphQL error', async () => {
    const r = await t.post('production', '{ residentialPlans { id } }');
    expect(r.status).toBe(200);
    expect(r.json.errors[0].message).toMatch(/zipCode/);
  });
});

describe('businessPlans', () => {
  it('prices commercial offers for an annual usage, cheapest first, with the tier relation', async () => {
    const r = await t.post(
      'production',
      '{ businessPlans(zipCode: "60601", annualUsage: 150000) { id title price term rateType supplier { name } annualUsageKwh ' +
        'estimatedAnnualCostUsd rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd } } }',
    );
    expect(r.json.errors).toBeUndefined();
    const plans = r.json.data.businessPlans;
    expect(plans.length).toBeGreaterThan(3);
    const costs = plans.map((p: { estimatedAnnualCostUsd: number }) => p.estimatedAnnualCostUsd);
    expect([...costs].sort((a, b) => a - b)).toEqual(costs);
    for (const p of plans) {
      expect(p.annualUsageKwh).toBe(150000);
      expect(p.estimatedAnnualCostUsd).toBeGreaterThan(150000 * 0.04);
      expect(p.rates.map((x: { usageKwh: number }) => x.usageKwh)).toContain(12500);
      p.rates.forEach(expectTierRelation);
    }
  });

  it('requires annualUsage and rejects out-of-range values', async () => {
    const missing = await t.post('production', '{ businessPlans(zipCode: "60601") { id } }');
    expect(missing.json.errors[0].message).toMatch(/annualUsage/);
    const zero = await t.post('production', '{ businessPlans(zipCode: "60601", annualUsage: 0) { id } }');
    expect(zero.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('nextStartDate', () => {
  it('gives an ISO date in the territory time zone, never in the past', async () => {
    const r = await t.post(
      'production',
      '{ nextStartDate(zipCode: "77002") { date utilityId timeZone leadBusinessDays rule meterReadDate } }',
    );
    const s = r.json.data.nextStartDate;
    expect(s.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(s.utilityId).toBe('CENTERPOINT');
    expect(s.rule).toBe('OFF_CYCLE');
    expect(s.meterReadDate).toBeNull();
    expect(s.timeZone).toBe('America/Chicago');
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: s.timeZone }).format(new Date());
    expect(s.date > today).toBe(true);
    const day = new Date(`${s.date}T12:00:00Z`).getUTCDay();
    expect(day).toBeGreaterThanOrEqual(1);
    expect(day).toBeLessThanOrEqual(5);
  });

  it('is null where no retail choice exists', async () => {
    const r = await t.post('production', '{ nextStartDate(zipCode: "78701") { date } }');
    expect(r.json).toEqual({ data: { nextStartDate: null } });
  });
});

describe('energyInfoByState', () => {
  it('covers all 50 states and DC with a mix summing to exactly 100', async () => {
    const states = (
      'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT ' +
      'VT VA WA WV WI WY'
    ).split(' ');
    expect(states).toHaveLength(51);
    for (const state of states) {
      const r = await t.post(
        'production',
        `{ energyInfoByState(state: "${state.toLowerCase()}") { state name dataYear averageResidentialRateUsdPerKwh ` +
          `averageCommercialRateUsdPerKwh generationMix { source eiaCategory percent } } }`,
      );
      expect(r.json.errors, state).toBeUndefined();
      const info = r.json.data.energyInfoByState;
      expect(info.state).toBe(state);
      expect(info.averageResidentialRateUsdPerKwh).toBeGreaterThan(0.05);
      const tenths = info.generationMix.reduce((sum: number, g: { percent: number }) => sum + Math.round(g.percent * 10), 0);
      expect(tenths, state).toBe(1000);
      // EIA's nine categories as EIA names them; wind and solar are inside Other Renewables.
      expect(info.generationMix.map((g: { eiaCategory: string }) => g.eiaCategory).sort(), state).toEqual([
        'Coal',
        'Hydroelectric Conventional',
        'Natural Gas',
        'Nuclear',
        'Other',
        'Other Gases',
        'Other Renewables',
        'Petroleum',
        'Pumped Storage',
      ]);
    }
  });

  it.each(['XX', 'Texas', '', 'T'])('rejects state %j', async (state) => {
    const r = await t.post('production', 'query Q($s: String!) { energyInfoByState(state: $s) { state } }', { s: state });
    expect(r.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(r.json.errors[0].path).toEqual(['energyInfoByState']);
  });
});

describe('utilityAccounts', () => {
  it.each([
    ['1500 Marilla St', '75201', 'ONCOR', 'ESIID'],
    ['901 BAGBY ST', '77002', 'CENTERPOINT', 'ESIID'],
    ['1400 JFK Blvd', '19103', 'PECO', 'ACCOUNT_NUMBER'],
    ['121 N LaSalle St', '60602', 'COMED', 'ACCOUNT_NUMBER'],
    ['90 W Broad St', '43215', 'AEP_OHIO', 'ACCOUNT_NUMBER'],
  ])('finds the account at %s %s', async (address, zip, utility, idType) => {
    const r = await t.post(
      'production',
      'query A($a: String!, $z: String!) { utilityAccounts(address: $a, zipCode: $z) { accountId idType serviceAddress { line1 city state zip ' +
        '} utilityId meterType status } }',
      { a: address, z: zip },
    );
    expect(r.json.errors).toBeUndefined();
    const [account] = r.json.data.utilityAccounts;
    expect(account.utilityId).toBe(utility);
    expect(account.idType).toBe(idType);
    if (idType === 'ESIID') expect(account.accountId).toMatch(/^\d{17}$/);
  });

  it.each(['', '   ', 'x'.repeat(201), '1500 Marilla\u0000St'])('rejects address %j', async (address) => {
    const r = await t.post('production', 'query A($a: String!) { utilityAccounts(address: $a, zipCode: "75201") { accountId } }', {
      a: address,
    });
    expect(r.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('is not on the playground', async () => {
    const r = await t.post('playground', '{ utilityAccounts(address: "1500 Marilla St", zipCode: "75201") { accountId } }');
    expect(r.status).toBe(200);
    expect(r.json.errors[0].message).toMatch(/utilityAccounts/);
    expect(r.json.data).toBeUndefined();
  });
});

describe('request shape', () => {
  it('answers one member per requested query field', async () => {
    const r = await t.post('production', '{ utilities(zipCode: "75001") { id } energyInfoByState(state: "TX") { state } }');
    expect(Object.keys(r.json.data)).toEqual(['utilities', 'energyInfoByState']);
  });

  it('answers 400 with a GraphQL-shaped body for invalid JSON and a missing Content-Type', async () => {
    const bad = await fetch(t.g.urls.production!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.keys.production },
      body: '{"query": ',
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors[0].extensions.code).toBe('BAD_REQUEST');
    const noType = await fetch(t.g.urls.production!, {
      method: 'POST',
      headers: { 'x-api-key': t.keys.production },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(noType.status).toBe(400);
    expect((await noType.json()).errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('answers 403 without a key, checked before the body', async () => {
    const r = await fetch(t.g.urls.production!, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'garbage' });
    expect(r.status).toBe(403);
    expect((await r.json()).errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('never shows a stack trace or upstream URL', async () => {
    const r = await t.post('production', '{ residentialPlans(zipCode: "75001", monthlyUsage: -1) { id } utilities(zipCode: "1") { id } }');
    expect(r.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(r.text).not.toContain(t.g.upstreamUrl);
  });
});
