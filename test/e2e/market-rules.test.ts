// Market rules over real HTTP against the reference upstream, with the gateway's clock injected:
// switching rules by market, calendars for any year, Price to Compare and savings, delivery per
// customer class, bundled rates, and the corrected reference data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';

let t: TestGateway;
let clock = new Date('2026-11-25T16:00:00Z');

beforeAll(async () => {
  // Answers depend on the injected clock: nothing may come from the response cache.
  t = await startTestGateway({ CACHE_ENABLED: 'false' }, { now: () => clock });
});
afterAll(async () => t?.close());

async function data(query: string) {
  const r = await t.post('production', query);
  expect(r.status).toBe(200);
  expect(r.json.errors, JSON.stringify(r.json.errors)).toBeUndefined();
  return r.json.data;
}

async function start(zip: string, at: string, extra = '') {
  clock = new Date(at);
  return (await data(`{ nextStartDate(zipCode: "${zip}"${extra}) { date rule meterReadDate requestedDate utilityId leadBusinessDays } }`))
    .nextStartDate;
}

describe('nextStartDate: switching rules and calendars', () => {
  it('counts holidays after 2027 (point 1): PECO on 2028-01-14T23:30Z skips MLK Day 2028-01-17', async () => {
    // Fri 18:30 EST, after PECO's 16:00 cut-off: the request day is Tue 01-18 (Mon is MLK Day);
    // accelerated switching, 3 business days -> Fri 01-21. Before: 01-24 with MLK Day a business day.
    expect(await start('19103', '2028-01-14T23:30:00Z')).toEqual({
      date: '2028-01-21',
      rule: 'ACCELERATED',
      meterReadDate: null,
      requestedDate: null,
      utilityId: 'PECO',
      leadBusinessDays: 3,
    });
  });

  it("Texas switches on ERCOT business days (point 2): MLK Day, Presidents' Day and Juneteenth are business days", async () => {
    // Fri 2028-01-14 17:30 CST after the 17:00 cut-off -> request day Mon 01-17 (ERCOT works MLK Day), +2.
    expect(await start('75001', '2028-01-14T23:30:00Z')).toMatchObject({ date: '2028-01-19', rule: 'OFF_CYCLE', utilityId: 'ONCOR' });
    // Wed 2026-06-17 10:00 CDT, +2 business days: Fri 06-19 (Juneteenth) counts. Before: Mon 06-22.
    expect(await start('75001', '2026-06-17T15:00:00Z')).toMatchObject({ date: '2026-06-19' });
    // Thu 2027-02-11 10:00 CST, +2: Mon 02-15 (Presidents' Day) counts.
    expect(await start('75001', '2027-02-11T16:00:00Z')).toMatchObject({ date: '2027-02-15' });
    // ERCOT closes Thanksgiving and the day after: Wed 2026-11-25 +2 business days -> Mon 11-30, Tue 12-01.
    expect(await start('75001', '2026-11-25T16:00:00Z')).toMatchObject({ date: '2026-12-01' });
  });

  it('Texas takes a requested date (off-cycle), never earlier than the earliest possible start', async () => {
    expect(await start('75001', '2026-06-17T15:00:00Z', ', requestedDate: "2026-07-04"')).toMatchObject({
      date: '2026-07-06',
      rule: 'OFF_CYCLE',
      requestedDate: '2026-07-04', // Sat -> Mon (07-03 observed holiday is Friday)
    });
    expect(await start('75001', '2026-06-17T15:00:00Z', ', requestedDate: "2026-06-18"')).toMatchObject({ date: '2026-06-19' });
    // A requested date means nothing to a meter-read market.
    const comed = await start('60601', '2026-06-17T15:00:00Z', ', requestedDate: "2026-12-01"');
    expect(comed.rule).toBe('METER_READ');
    expect(comed.date < '2026-08-01').toBe(true);
  });

  it('rejects a malformed or far requested date with a clear error', async () => {
    clock = new Date('2026-06-17T15:00:00Z');
    for (const bad of [
      '"2026-02-30"',
      '"17/06/2026"',
      '"2026-6-1"',
      '""',
      '"2026-06-17T00:00:00Z"',
      '"9999-01-01"',
      `"${'9'.repeat(5000)}"`,
      '"2028-01-01"',
    ]) {
      const r = await t.post('production', `{ nextStartDate(zipCode: "75001", requestedDate: ${bad}) { date } }`);
      expect(r.status).toBe(200);
      expect(r.json.errors[0].extensions.code, bad.slice(0, 20)).toBe('BAD_USER_INPUT');
      expect(r.json.errors[0].message).toMatch(/requestedDate/);
      expect(r.text).not.toMatch(/at .*\.ts:\d+/);
    }
  });

  it('meter-read markets start on the next scheduled read at least the enrollment lead time away', async () => {
    for (const [zip, id] of [
      ['60601', 'COMED'],
      ['43215', 'AEP_OHIO'],
      ['10001', 'CONED'],
      ['07102', 'PSEG'],
      ['21202', 'BGE'],
      ['02108', 'EVERSOURCE_MA'],
      ['06103', 'EVERSOURCE_CT'],
      ['03101', 'EVERSOURCE_NH'],
    ] as const) {
      const s = await start(zip, '2026-11-25T16:00:00Z');
      expect(s, zip).toMatchObject({ rule: 'METER_READ', utilityId: id });
      expect(s.meterReadDate).toBe(s.date);
      expect(s.date > '2026-11-25').toBe(true);
      expect(s.date < '2027-01-31').toBe(true);
      const wd = new Date(`${s.date}T00:00:00Z`).getUTCDay();
      expect(wd >= 1 && wd <= 5, zip).toBe(true);
    }
  });

  it("a meter-read start moves with the account's read schedule, not with the request day", async () => {
    // Two requests a business day apart before the same read of the account's cycle get the same date.
    const a = await start('43215', '2026-03-02T15:00:00Z', ', meterReadCycle: "07"');
    const b = await start('43215', '2026-03-03T15:00:00Z', ', meterReadCycle: "07"');
    expect(a.date).toBe(b.date);
  });

  it('still returns null where no utility has retail choice', async () => {
    clock = new Date('2026-11-25T16:00:00Z');
    expect((await data('{ nextStartDate(zipCode: "62701") { date } }')).nextStartDate).toBeNull();
    expect((await data('{ nextStartDate(zipCode: "85001") { date } }')).nextStartDate).toBeNull();
  });
});

const UTILITY_FIELDS = `id name state market ownership
  deliveryCharges { customerClass fixedMonthlyUsd perKwhUsd effectiveDate }
  commercial: deliveryCharges(customerClass: COMMERCIAL) { customerClass fixedMonthlyUsd perKwhUsd effectiveDate }
  bundledRate { fixedMonthlyUsd perKwhUsd effectiveDate }
  priceToCompare { usdPerKwh effectiveDate expiryDate }`;

const utilities = async (zip: string) => (await data(`{ utilities(zipCode: "${zip}") { ${UTILITY_FIELDS} } }`)).utilities;

describe('reference data (point 4)', () => {
  it('62701 is City Water, Light & Power: municipal, no retail choice, no plans', async () => {
    expect((await utilities('62701')).map((u: { id: string; ownership: string; market: string }) => [u.id, u.ownership, u.market])).toEqual(
      [['CWLP', 'MUNICIPAL', 'REGULATED']],
    );
    expect((await data('{ residentialPlans(zipCode: "62701") { id } }')).residentialPlans).toEqual([]);
  });

  it('75901 (Lufkin) is Oncor with plans; 03101 (Manchester) is Eversource NH with choice; 85001 (Phoenix) is APS, regulated', async () => {
    expect((await utilities('75901')).map((u: { id: string }) => u.id)).toEqual(['ONCOR']);
    expect((await data('{ residentialPlans(zipCode: "75901") { id } }')).residentialPlans.length).toBeGreaterThan(5);
    const [nh] = await utilities('03101');
    expect(nh).toMatchObject({ id: 'EVERSOURCE_NH', state: 'NH', market: 'DEREGULATED' });
    expect((await data('{ residentialPlans(zipCode: "03101") { id } }')).residentialPlans.length).toBeGreaterThan(5);
    const [aps] = await utilities('85001');
    expect(aps).toMatchObject({
      id: 'APS',
      state: 'AZ',
      market: 'REGULATED',
      deliveryCharges: null,
      commercial: null,
      priceToCompare: null,
    });
    expect(aps.bundledRate).toMatchObject({ perKwhUsd: expect.any(Number), effectiveDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
  });

  it('44113 includes Cleveland Public Power next to CEI', async () => {
    expect((await utilities('44113')).map((u: { id: string }) => u.id)).toEqual(['CEI', 'CLEVELAND_PUBLIC_POWER']);
  });
});

describe('delivery charges per customer class, bundled rates (point 6)', () => {
  it('Oncor: residential and commercial delivery with their effective date; no bundled rate, no Price to Compare', async () => {
    const [oncor] = await utilities('75001');
    // In effect on the start date (2026-12-01): the 2026-09-01 tariff period.
    expect(oncor.deliveryCharges).toEqual({
      customerClass: 'RESIDENTIAL',
      fixedMonthlyUsd: 4.23,
      perKwhUsd: 0.058362,
      effectiveDate: '2026-09-01',
    });
    expect(oncor.commercial).toMatchObject({ customerClass: 'COMMERCIAL', effectiveDate: '2026-09-01' });
    expect(oncor.commercial).not.toEqual({ ...oncor.deliveryCharges, customerClass: 'COMMERCIAL' });
    expect(oncor.bundledRate).toBeNull();
    expect(oncor.priceToCompare).toBeNull(); // Texas has no default service
  });

  it('regulated utilities answer a bundled rate instead of delivery charges', async () => {
    for (const zip of ['94102', '33101', '78701', '62701']) {
      for (const u of await utilities(zip)) {
        expect(u.market, zip).toBe('REGULATED');
        expect(u.deliveryCharges, zip).toBeNull();
        expect(u.bundledRate, zip).not.toBeNull();
      }
    }
  });

  it('business plans are priced with commercial delivery charges', async () => {
    clock = new Date('2026-11-25T16:00:00Z');
    const [oncor] = await utilities('75001');
    const d = await data(
      `{ businessPlans(zipCode: "75001", annualUsage: 120000) { fees { baseMonthlyUsd usageCredits { minKwh } minimumUsageKwh } rates { ` +
        `usageKwh avgMonthlyBillUsd } price } }`,
    );
    // A single-block plan without fees or credits: bill = base + delivery fixed + usage x (energy + delivery per kWh).
    const plain = d.businessPlans.find(
      (p: { fees: { usageCredits: unknown[]; minimumUsageKwh: number | null } }) =>
        p.fees.usageCredits.length === 0 && p.fees.minimumUsageKwh === null,
    );
    expect(plain).toBeDefined();
    const tier = plain.rates.find((r: { usageKwh: number }) => r.usageKwh === 10000);
    const expected = (c: { fixedMonthlyUsd: number; perKwhUsd: number }) =>
      Math.round((plain.fees.baseMonthlyUsd + c.fixedMonthlyUsd + 10000 * (plain.price + c.perKwhUsd)) * 10) / 10;
    // Tiered plans would differ from `price` above the first block; a plain one matches commercial delivery only.
    if (tier.avgMonthlyBillUsd === expected(oncor.commercial)) expect(tier.avgMonthlyBillUsd).not.toBe(expected(oncor.deliveryCharges));
    else
      expect.fail(
        `business bill ${tier.avgMonthlyBillUsd} does not match commercial delivery (${expected(oncor.commercial)}); residential would give ` +
          `${expected(oncor.deliveryCharges)}`,
      );
  });
});

describe('Price to Compare (point 3)', () => {
  it('PECO publishes one; residential tiers carry savings against it, exact to the cent', async () => {
    clock = new Date('2026-11-25T16:00:00Z');
    const [peco] = await utilities('19103');
    // PECO's quarterly PtC: the request on 2026-11-25 starts 2026-12-01, in the December-February period.
    expect(peco.priceToCompare).toEqual({ usdPerKwh: 0.10896, effectiveDate: '2026-12-01', expiryDate: '2027-02-28' });
    const plans = (
      await data(
        '{ residentialPlans(zipCode: "19103") { fees { usageCredits { minKwh } } rates { usageKwh avgMonthlyBillUsd estimatedMonthlySavingsUsd } } }',
      )
    ).residentialPlans;
    expect(plans.length).toBeGreaterThan(5);
    let positive = 0;
    for (const p of plans) {
      for (const r of p.rates) {
        // savings = usage x PtC + delivery - plan bill; the published bill is rounded to 0.1 USD.
        const defaultBill =
          r.usageKwh * peco.priceToCompare.usdPerKwh + peco.deliveryCharges.fixedMonthlyUsd + r.usageKwh * peco.deliveryCharges.perKwhUsd;
        expect(Math.abs(r.estimatedMonthlySavingsUsd - (defaultBill - r.avgMonthlyBillUsd))).toBeLessThanOrEqual(0.051);
        expect(Math.round(r.estimatedMonthlySavingsUsd * 100)).toBeCloseTo(r.estimatedMonthlySavingsUsd * 100, 6);
        if (r.estimatedMonthlySavingsUsd > 0) positive++;
      }
    }
    expect(positive).toBeGreaterThan(0);
  });

  it('is null in Texas, on business plans, and once the Price to Compare has expired', async () => {
    clock = new Date('2026-11-25T16:00:00Z');
    const tx = (await data('{ residentialPlans(zipCode: "75001") { rates { estimatedMonthlySavingsUsd } } }')).residentialPlans;
    expect(
      tx
        .flatMap((p: { rates: { estimatedMonthlySavingsUsd: unknown }[] }) => p.rates.map((r) => r.estimatedMonthlySavingsUsd))
        .every((s: unknown) => s === null),
    ).toBe(true);
    const biz = (await data('{ businessPlans(zipCode: "19103", annualUsage: 60000) { rates { estimatedMonthlySavingsUsd } } }'))
      .businessPlans;
    expect(
      biz
        .flatMap((p: { rates: { estimatedMonthlySavingsUsd: unknown }[] }) => p.rates.map((r) => r.estimatedMonthlySavingsUsd))
        .every((s: unknown) => s === null),
    ).toBe(true);
    // PECO's last published period ends 2027-02-28: a plan starting 2027-03-01 claims no savings.
    clock = new Date('2027-02-24T15:00:00Z'); // Wed 10:00 EST: +3 business days -> Mon 03-01
    const after = (await data('{ residentialPlans(zipCode: "19103") { rates { estimatedMonthlySavingsUsd } } }')).residentialPlans;
    expect(after[0].rates.every((r: { estimatedMonthlySavingsUsd: unknown }) => r.estimatedMonthlySavingsUsd === null)).toBe(true);
    clock = new Date('2027-02-23T15:00:00Z'); // Tue 10:00 EST: -> Fri 02-26, still in effect
    const before = (await data('{ residentialPlans(zipCode: "19103") { rates { estimatedMonthlySavingsUsd } } }')).residentialPlans;
    expect(before[0].rates.every((r: { estimatedMonthlySavingsUsd: unknown }) => typeof r.estimatedMonthlySavingsUsd === 'number')).toBe(
      true,
    );
  });
});
