// Market dates, tariff periods and coverage over real HTTP against the reference upstream, with the
// gateway's clock injected: Texas request horizon, ERCOT's two Christmas holidays, the Illinois
// rescission window, meter-read cycles, Price to Compare and delivery periods by start date, and
// the utilities a market expert expects at a ZIP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';

let t: TestGateway;
let clock = new Date('2026-11-25T16:00:00Z');

beforeAll(async () => {
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
  return (
    await data(
      `{ nextStartDate(zipCode: "${zip}"${extra}) { date rule meterReadDate meterReadCycle meterReadBasis rescissionDays requestedDate utilityId } }`,
    )
  ).nextStartDate;
}

async function startError(zip: string, at: string, extra: string) {
  clock = new Date(at);
  const r = await t.post('production', `{ nextStartDate(zipCode: "${zip}"${extra}) { date } }`);
  expect(r.status).toBe(200);
  expect(r.text).not.toMatch(/at .*\.ts:\d+/);
  return r.json.errors[0];
}

describe('Texas dates', () => {
  it('refuses a requested date more than 90 days ahead with a clear error; 90 days is fine', async () => {
    // Wed 2026-06-17 10:00 CDT: day 90 is 2026-09-15.
    expect(await start('75001', '2026-06-17T15:00:00Z', ', requestedDate: "2026-09-15"')).toMatchObject({ date: '2026-09-15' });
    const err = await startError('75001', '2026-06-17T15:00:00Z', ', requestedDate: "2026-09-16"');
    expect(err.extensions.code).toBe('BAD_USER_INPUT');
    expect(err.message).toMatch(/requestedDate may be at most 90 days ahead: ERCOT/);
  });

  it('closes two ERCOT Christmas holidays every year, also when Christmas falls on a weekend or a Monday', async () => {
    // 2027: Dec 25 is a Saturday: ERCOT closes Thu 23 and Fri 24. Wed 22 10:00 CST +2 -> Mon 27, Tue 28.
    expect(await start('75001', '2027-12-22T16:00:00Z')).toMatchObject({ date: '2027-12-28' });
    // 2028: Dec 25 is a Monday: Mon 25 and Tue 26. Fri 22 +2 -> Wed 27, Thu 28.
    expect(await start('75001', '2028-12-22T16:00:00Z')).toMatchObject({ date: '2028-12-28' });
    // 2033: Dec 25 is a Sunday: Fri 23 and Mon 26. Thu 22 +2 -> Tue 27, Wed 28.
    expect(await start('75001', '2033-12-22T16:00:00Z')).toMatchObject({ date: '2033-12-28' });
  });
});

describe('meter-read switching', () => {
  it('Illinois and Ohio: the rescission window (10 and 7 days) comes before the start', async () => {
    // Tue 2026-03-03 10:00 CST. Cycle 07 reads 2026-03-13 and 2026-04-13 (04-12 is a Sunday).
    // Ohio: 7 calendar days to rescind after the utility's confirmation notice (OAC 4901:1-21-06),
    // which end before the 7-business-day lead does: +7 business days -> 03-12, read 03-13.
    expect(await start('43215', '2026-03-03T16:00:00Z', ', meterReadCycle: "07"')).toMatchObject({
      date: '2026-03-13',
      rescissionDays: 7,
    });
    // ComEd: +5 business days -> 03-10, but the window runs to 03-13 -> first business day after is
    // Mon 03-16, so the read is 04-13.
    expect(await start('60601', '2026-03-03T16:00:00Z', ', meterReadCycle: "07"')).toEqual({
      date: '2026-04-13',
      rule: 'METER_READ',
      meterReadDate: '2026-04-13',
      meterReadCycle: '07',
      meterReadBasis: 'ACCOUNT_CYCLE',
      rescissionDays: 10,
      requestedDate: null,
      utilityId: 'COMED',
    });
  });

  it("takes the account's cycle when given, otherwise the earliest cycle's read, and says which", async () => {
    const earliest = await start('43215', '2026-03-03T16:00:00Z');
    expect(earliest).toMatchObject({
      rule: 'METER_READ',
      meterReadBasis: 'EARLIEST_CYCLE',
      meterReadCycle: expect.stringMatching(/^\d\d$/),
    });
    for (const cycle of ['01', '07', '13', '20']) {
      const own = await start('43215', '2026-03-03T16:00:00Z', `, meterReadCycle: "${cycle}"`);
      expect(own.meterReadBasis).toBe('ACCOUNT_CYCLE');
      expect(own.date >= earliest.date).toBe(true);
    }
    // PA (accelerated) and TX (off-cycle) say nothing about reads.
    expect(await start('19103', '2026-03-03T16:00:00Z', ', meterReadCycle: "07"')).toMatchObject({
      meterReadCycle: null,
      meterReadBasis: null,
    });
  });

  it('an unknown or malformed cycle is a clear error', async () => {
    const unknown = await startError('43215', '2026-03-03T16:00:00Z', ', meterReadCycle: "99"');
    expect(unknown.extensions.code).toBe('BAD_USER_INPUT');
    expect(unknown.message).toMatch(/Meter-read cycle 99 is not one of AEP_OHIO's cycles \(01, 02/);
    const bad = await startError('43215', '2026-03-03T16:00:00Z', ', meterReadCycle: "07; DROP"');
    expect(bad.extensions.code).toBe('BAD_USER_INPUT');
    expect(bad.message).toMatch(/meterReadCycle/);
  });

  it('utilityAccounts answers the billing cycle of a meter-read account', async () => {
    const d = await data('{ utilityAccounts(address: "121 N LaSalle St", zipCode: "60602") { utilityId meterReadCycle } }');
    expect(d.utilityAccounts[0]).toEqual({ utilityId: 'COMED', meterReadCycle: expect.stringMatching(/^\d\d$/) });
    const tx = await data('{ utilityAccounts(address: "1500 Marilla St", zipCode: "75201") { meterReadCycle } }');
    expect(tx.utilityAccounts[0].meterReadCycle).toBeNull();
  });
});

const PTC = 'usdPerKwh effectiveDate expiryDate season customerClass';

describe('Price to Compare periods', () => {
  it('PECO: the period in effect and the next; plans compare with the one in effect on their start date', async () => {
    clock = new Date('2026-11-25T16:00:00Z'); // start date 2026-12-01
    const [peco] = (
      await data(
        `{ utilities(zipCode: "19103") { deliveryCharges { fixedMonthlyUsd perKwhUsd } priceToCompare { ${PTC} } pricesToCompare { ${PTC} } } }`,
      )
    ).utilities;
    expect(peco.pricesToCompare).toEqual([
      { usdPerKwh: 0.10713, effectiveDate: '2026-09-01', expiryDate: '2026-11-30', season: null, customerClass: 'RESIDENTIAL' },
      { usdPerKwh: 0.10896, effectiveDate: '2026-12-01', expiryDate: '2027-02-28', season: null, customerClass: 'RESIDENTIAL' },
    ]);
    expect(peco.priceToCompare.usdPerKwh).toBe(0.10896);
    const plans = (await data('{ residentialPlans(zipCode: "19103") { rates { usageKwh avgMonthlyBillUsd estimatedMonthlySavingsUsd } } }'))
      .residentialPlans;
    for (const r of plans[0].rates) {
      const defaultBill = r.usageKwh * (0.10896 + peco.deliveryCharges.perKwhUsd) + peco.deliveryCharges.fixedMonthlyUsd;
      expect(Math.abs(r.estimatedMonthlySavingsUsd - (defaultBill - r.avgMonthlyBillUsd))).toBeLessThanOrEqual(0.051);
    }
  });

  it('ComEd: summer and non-summer prices, residential and small commercial', async () => {
    clock = new Date('2026-08-03T15:00:00Z');
    const [comed] = (await data(`{ utilities(zipCode: "60601") { pricesToCompare { ${PTC} } } }`)).utilities;
    expect(comed.pricesToCompare.map((p: { season: string; customerClass: string }) => `${p.customerClass} ${p.season}`)).toEqual([
      'RESIDENTIAL SUMMER',
      'COMMERCIAL SUMMER',
      'RESIDENTIAL NON_SUMMER',
      'COMMERCIAL NON_SUMMER',
    ]);
  });

  it('the three FirstEnergy Ohio companies have their own Price to Compare; Duke is above AES', async () => {
    clock = new Date('2026-11-25T16:00:00Z');
    const ptc = async (zip: string) => (await data(`{ utilities(zipCode: "${zip}") { id priceToCompare { usdPerKwh } } }`)).utilities[0];
    const fe = await Promise.all(['44301', '43604', '44113'].map(ptc));
    expect(new Set(fe.map((u) => u.priceToCompare.usdPerKwh)).size).toBe(3);
    const [duke, aes] = await Promise.all(['45202', '45402'].map(ptc));
    expect(duke.id).toBe('DUKE_ENERGY_OHIO');
    expect(aes.id).toBe('AES_OHIO');
    expect(duke.priceToCompare.usdPerKwh).toBeGreaterThan(aes.priceToCompare.usdPerKwh);
  });
});

describe('delivery charges by tariff period', () => {
  it("CenterPoint: answers the period in effect on the start date, or on onDate; plans are priced with the start date's", async () => {
    // Thu 2026-02-26 10:00 CST: start date Mon 03-02, when the 2026-03-01 period is in effect.
    clock = new Date('2026-02-26T16:00:00Z');
    const [cnp] = (
      await data(`{ utilities(zipCode: "77002") {
        deliveryCharges { fixedMonthlyUsd perKwhUsd effectiveDate }
        today: deliveryCharges(onDate: "2026-02-26") { perKwhUsd effectiveDate }
        old: deliveryCharges(onDate: "2025-01-15") { perKwhUsd effectiveDate } } }`)
    ).utilities;
    expect(cnp.deliveryCharges).toEqual({ fixedMonthlyUsd: 4.39, perKwhUsd: 0.058764, effectiveDate: '2026-03-01' });
    expect(cnp.today).toEqual({ perKwhUsd: 0.057893, effectiveDate: '2025-09-01' });
    expect(cnp.old).toEqual({ perKwhUsd: 0.054697, effectiveDate: '2024-09-01' });
    const plans = (
      await data(
        '{ residentialPlans(zipCode: "77002") { price fees { baseMonthlyUsd usageCredits { minKwh } minimumUsageKwh } rates { usageKwh avgMonthlyBillUsd } } }',
      )
    ).residentialPlans as {
      price: number;
      fees: { baseMonthlyUsd: number; usageCredits: unknown[]; minimumUsageKwh: number | null };
      rates: { usageKwh: number; avgMonthlyBillUsd: number }[];
    }[];
    const plain = plans.filter((p) => p.fees.usageCredits.length === 0 && p.fees.minimumUsageKwh === null);
    const bill = (p: (typeof plain)[number], perKwh: number) =>
      Math.round((p.fees.baseMonthlyUsd + 4.39 + 500 * (p.price + perKwh)) * 10) / 10;
    // Tiered plans differ from `price` above 500 kWh; at 500 kWh every plain plan matches the start date's charges.
    const at500 = (p: (typeof plain)[number]) => p.rates.find((r) => r.usageKwh === 500)!.avgMonthlyBillUsd;
    expect(plain.length).toBeGreaterThan(3);
    expect(plain.filter((p) => at500(p) === bill(p, 0.058764)).length).toBeGreaterThan(plain.length / 2);
    expect(plain.filter((p) => at500(p) === bill(p, 0.057893))).toEqual([]);
  });
});

describe('coverage', () => {
  const utilities = async (zip: string) =>
    (
      await data(
        `{ utilities(zipCode: "${zip}") { id market ownership state retailChoiceCapPercent bundledRate { fixedMonthlyUsd perKwhUsd } } }`,
      )
    ).utilities;

  it('Lubbock Power & Light: municipal, in ERCOT retail choice since 2024, with plans', async () => {
    clock = new Date('2026-11-25T16:00:00Z');
    expect(await utilities('79401')).toMatchObject([{ id: 'LUBBOCK_PL', market: 'DEREGULATED', ownership: 'MUNICIPAL', state: 'TX' }]);
    expect((await data('{ residentialPlans(zipCode: "79401") { id } }')).residentialPlans.length).toBeGreaterThan(5);
  });

  it('SMECO: a co-op inside Maryland choice, with plans and a Price to Compare', async () => {
    expect(await utilities('20601')).toMatchObject([{ id: 'SMECO', market: 'DEREGULATED', ownership: 'COOP' }]);
    expect((await data('{ residentialPlans(zipCode: "20601") { id } }')).residentialPlans.length).toBeGreaterThan(5);
    expect((await data('{ utilities(zipCode: "20601") { priceToCompare { usdPerKwh } } }')).utilities[0].priceToCompare).not.toBeNull();
  });

  it('Maryland: green power plans are served, each at most its PSC-approved price (above the SOS average the others keep to)', async () => {
    for (const zip of ['20601', '21201']) {
      const plans = (await data(`{ residentialPlans(zipCode: "${zip}") { renewablePercent pricing { energyBlocks { usdPerKwh } } } }`))
        .residentialPlans as { renewablePercent: number; pricing: { energyBlocks: { usdPerKwh: number }[] } }[];
      const highest = (p: (typeof plans)[number]) => Math.max(...p.pricing.energyBlocks.map((b) => b.usdPerKwh));
      const green = plans.filter((p) => p.renewablePercent >= 51);
      expect(green.length, zip).toBeGreaterThan(0);
      // The reference approved price: the trailing SOS average plus a 1.2-cent adder (SMECO 0.110733, BGE 0.114233).
      const approved = zip === '20601' ? 0.122733 : 0.126233;
      for (const p of green) expect(highest(p), zip).toBeLessThanOrEqual(approved);
      for (const p of plans.filter((x) => x.renewablePercent < 51)) expect(highest(p), zip).toBeLessThanOrEqual(approved - 0.012);
    }
  });

  it('DTE Electric: Michigan capped choice, marked so; Xcel Energy Colorado: regulated', async () => {
    expect(await utilities('48201')).toMatchObject([{ id: 'DTE_ELECTRIC', market: 'REGULATED', retailChoiceCapPercent: 10, state: 'MI' }]);
    expect((await data('{ residentialPlans(zipCode: "48201") { id } }')).residentialPlans).toEqual([]);
    expect(await utilities('80202')).toMatchObject([
      { id: 'XCEL_COLORADO', market: 'REGULATED', retailChoiceCapPercent: null, state: 'CO' },
    ]);
  });

  it('five-digit ZIPs where the three-digit prefix is wrong: Concord NH, Waltham MA, Plattsburgh NY', async () => {
    expect((await utilities('03301')).map((u: { id: string }) => u.id)).toEqual(['UNITIL_NH']);
    expect((await utilities('02451')).map((u: { id: string }) => u.id)).toEqual(['NATIONAL_GRID_MA']);
    expect(await utilities('12901')).toMatchObject([{ id: 'PLATTSBURGH_MLD', market: 'REGULATED', ownership: 'MUNICIPAL' }]);
    // Neighbours keep their prefix's utility.
    expect((await utilities('03101')).map((u: { id: string }) => u.id)).toEqual(['EVERSOURCE_NH']);
    expect((await utilities('02108')).map((u: { id: string }) => u.id)).toEqual(['EVERSOURCE_MA']);
  });

  it('municipal and co-op bundled rates are realistic: Austin Energy about 12-13 cents all-in at 1,000 kWh', async () => {
    const allIn = async (zip: string) => {
      const [u] = await utilities(zip);
      return (u.bundledRate.fixedMonthlyUsd + 1000 * u.bundledRate.perKwhUsd) / 1000;
    };
    const austin = await allIn('78701');
    expect(austin).toBeGreaterThanOrEqual(0.12);
    expect(austin).toBeLessThanOrEqual(0.13);
    for (const zip of ['78205', '78620', '79901']) {
      const rate = await allIn(zip);
      expect(rate, zip).toBeGreaterThan(0.1);
      expect(rate, zip).toBeLessThan(0.16);
    }
  });
});

describe('energyInfoByState from the EIA API v2 routes', () => {
  it('answers the latest annual figures the routes serve (2025 from the reference upstream)', async () => {
    const d = await data(
      '{ energyInfoByState(state: "TX") { state name dataYear averageResidentialRateUsdPerKwh generationMix { source percent } } }',
    );
    expect(d.energyInfoByState).toMatchObject({ state: 'TX', name: 'Texas', dataYear: 2025, averageResidentialRateUsdPerKwh: 0.16 });
    expect(d.energyInfoByState.generationMix[0]).toEqual({ source: 'NATURAL_GAS', percent: 49.9 });
  });

  it('labels the reference figures as such, and their derived 2025 as estimated', async () => {
    const d = await data('{ energyInfoByState(state: "TX") { dataYear source estimated } }');
    expect(d.energyInfoByState).toEqual({ dataYear: 2025, source: 'reference data', estimated: true });
  });
});

describe('delivery charges not yet approved', () => {
  it("Oncor's 2026 periods are estimates, its 2025 ones approved tariff sheets", async () => {
    const q = (onDate: string) => `{ utilities(zipCode: "75001") { deliveryCharges(onDate: "${onDate}") { effectiveDate estimated } } }`;
    expect((await data(q('2026-10-01'))).utilities[0].deliveryCharges).toEqual({ effectiveDate: '2026-09-01', estimated: true });
    expect((await data(q('2025-10-01'))).utilities[0].deliveryCharges).toEqual({ effectiveDate: '2025-09-01', estimated: false });
  });
});
