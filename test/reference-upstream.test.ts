// The reference upstream against its own contracts: the service, and the shapes (JSON Schema /
// OpenAPI) and notable ZIPs of the territories and supplier feeds. The EIA feeds, premises,
// determinism and fault injection: reference-upstream-feeds.test.ts.

import { request, Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { UTILITIES } from '../sources/reference-upstream/data/utilities.js';
import { referencedUtilityIds } from '../sources/reference-upstream/data/zips.js';
import {
  decimals,
  expectValid,
  get,
  ISO_DATE,
  openapi,
  startsReferenceUpstream,
  upstream,
  type Json,
} from './support/reference-upstream-contracts.js';

startsReferenceUpstream();

describe('reference upstream: service', () => {
  it('listens on a free port and answers /healthz', async () => {
    expect(upstream.port).toBeGreaterThan(0);
    expect(upstream.url).toBe(`http://127.0.0.1:${upstream.port}`);
    const res = await get('/healthz');
    expect(res.status).toBe(200);
  });

  it('answers unknown paths with a JSON 404', async () => {
    const res = await get('/nope/v9');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.error).toBeTypeOf('string');
  });

  it("sends each feed's cache policy", async () => {
    const cases: [string, string][] = [
      ['/territories/v1/zip/75001', 'max-age=86400'],
      ['/voltify/api/v2/offers?zip=75001&class=residential', 'max-age=900'],
      ['/brightgrid/v1/plans/75001', 'max-age=900'],
      ['/eia/v1/states/TX', 'max-age=86400'],
      ['/premises/v1/search?zip=75201&address=1500%20MARILLA%20ST', 'no-store'],
    ];
    for (const [path, policy] of cases) {
      const res = await get(path);
      expect(res.headers.get('cache-control'), path).toContain(policy);
    }
  });

  it('keeps connections alive between requests', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const once = () =>
      new Promise<boolean>((resolve, reject) => {
        const req = request(`${upstream.url}/healthz`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(req.reusedSocket));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await once()).toBe(false);
    expect(await once()).toBe(true);
    agent.destroy();
  });

  it('supports conditional GET with ETag', async () => {
    const first = await fetch(`${upstream.url}/eia/v1/states/TX`);
    await first.text();
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const second = await fetch(`${upstream.url}/eia/v1/states/TX`, { headers: { 'if-none-match': etag! } });
    expect(second.status).toBe(304);
  });
});

describe('reference upstream: territories', () => {
  // zip -> expected utility ids, in order
  const NOTABLE: Record<string, string[]> = {
    '75001': ['ONCOR'],
    '75201': ['ONCOR'],
    '76102': ['ONCOR'],
    '77002': ['CENTERPOINT'],
    '78401': ['AEP_TEXAS_CENTRAL'],
    '79601': ['AEP_TEXAS_NORTH'],
    '77590': ['TNMP'],
    '75067': ['ONCOR', 'TNMP'],
    '76226': ['ONCOR', 'COSERV'],
    '78664': ['ONCOR', 'PEDERNALES_EC'],
    '78701': ['AUSTIN_ENERGY'],
    '78205': ['CPS_ENERGY'],
    '78620': ['PEDERNALES_EC'],
    '19103': ['PECO'],
    '15222': ['DUQUESNE'],
    '18101': ['PPL'],
    '19601': ['MET_ED'],
    '16601': ['PENELEC'],
    '17042': ['PPL', 'MET_ED'],
    '43215': ['AEP_OHIO'],
    '45202': ['DUKE_ENERGY_OHIO'],
    '44308': ['FIRSTENERGY_OHIO_EDISON'],
    '43604': ['TOLEDO_EDISON'],
    '44113': ['CEI', 'CLEVELAND_PUBLIC_POWER'],
    '44114': ['CEI', 'CLEVELAND_PUBLIC_POWER'],
    '45402': ['AES_OHIO'],
    '60601': ['COMED'],
    '60602': ['COMED'],
    '61602': ['AMEREN_ILLINOIS'],
    '62701': ['CWLP'],
    '62707': ['AMEREN_ILLINOIS'],
    '75901': ['ONCOR'],
    '03101': ['EVERSOURCE_NH'],
    '85001': ['APS'],
    '10001': ['CONED'],
    '13202': ['NATIONAL_GRID_NY'],
    '14604': ['RG_E'],
    '13901': ['NYSEG'],
    '12601': ['CENTRAL_HUDSON'],
    '10956': ['ORANGE_ROCKLAND'],
    '10940': ['ORANGE_ROCKLAND', 'CENTRAL_HUDSON'],
    '07102': ['PSEG'],
    '07728': ['JCPL'],
    '08401': ['ACE'],
    '07430': ['ROCKLAND_ELECTRIC'],
    '21202': ['BGE'],
    '20814': ['PEPCO_MD'],
    '21801': ['DELMARVA_MD'],
    '21701': ['POTOMAC_EDISON'],
    '20707': ['BGE', 'PEPCO_MD'],
    '02108': ['EVERSOURCE_MA'],
    '01608': ['NATIONAL_GRID_MA'],
    '01420': ['UNITIL_MA'],
    '94102': ['PGE'],
    '33101': ['FPL'],
    '30303': ['GEORGIA_POWER'],
    '30043': ['GEORGIA_POWER', 'JACKSON_EMC'],
  };

  it('returns the incumbent utilities for notable ZIPs, valid against the contract', async () => {
    for (const [zip, ids] of Object.entries(NOTABLE)) {
      const res = await get(`/territories/v1/zip/${zip}`);
      expect(res.status, zip).toBe(200);
      expectValid('territories', res.body);
      expect(res.body.zip).toBe(zip);
      expect(
        res.body.utilities.map((u: Json) => u.utilityId),
        zip,
      ).toEqual(ids);
      // Formats the contract states in descriptions (not as patterns; see schema.json).
      for (const u of res.body.utilities) {
        expect(u.utilityId).toMatch(/^[A-Z][A-Z0-9_]*$/);
        expect(u.state).toMatch(/^[A-Z]{2}$/);
        // Deregulated: delivery per class; regulated: a bundled rate instead.
        const tariff = u.market === 'DEREGULATED' ? u.delivery : u.bundledRate;
        expect(tariff.effective, u.utilityId).toMatch(ISO_DATE);
        expect(u.market === 'DEREGULATED' ? u.bundledRate : u.delivery, u.utilityId).toBeUndefined();
        expect(u.switching.sameDayCutoff).toMatch(/^([01]\d|2[0-3]):[0-5]\d$/);
        expect(u.calendar.holidays.length).toBeGreaterThan(5);
        expect(u.holidays.every((d: string) => ISO_DATE.test(d))).toBe(true);
        expect(() => new Intl.DateTimeFormat('en-US', { timeZone: u.timeZone })).not.toThrow();
      }
    }
  });

  it("carries published TDU charges with their effective date, the off-cycle switching rule and ERCOT's calendar rules", async () => {
    const { body } = await get('/territories/v1/zip/75001');
    const oncor = body.utilities[0];
    expect(oncor).toMatchObject({
      name: 'Oncor Electric Delivery',
      state: 'TX',
      timeZone: 'America/Chicago',
      market: 'DEREGULATED',
      ownership: 'IOU',
      delivery: { effective: '2026-09-01', residential: { fixedMonthlyUsd: 4.23, perKwhUsd: 0.058362 } },
      switching: { kind: 'OFF_CYCLE', leadBusinessDays: 2, meterReadCycleDays: 30, sameDayCutoff: '17:00' },
      calendar: { name: 'ERCOT' },
    });
    expect(oncor.priceToCompare).toBeUndefined();
    // Rules, not a list of dates: good for any year. ERCOT works MLK Day, Presidents' Day and Juneteenth.
    const rules = oncor.calendar.holidays.map((h: Json) => h.rule);
    expect(rules).toEqual(expect.arrayContaining(['4th thursday in November', 'friday after 4th thursday in November']));
    expect(rules.filter((r: string) => r.startsWith('12-2'))).toHaveLength(2); // ERCOT's two Christmas holidays
    expect(rules).not.toEqual(expect.arrayContaining(['3rd monday in January']));
    expect(oncor.holidays).toEqual([]);
    // Commercial delivery differs from residential.
    expect(oncor.delivery.commercial).not.toEqual(oncor.delivery.residential);

    const cnp = (await get('/territories/v1/zip/77002')).body.utilities[0];
    expect(cnp.delivery.residential).toMatchObject({ fixedMonthlyUsd: 4.39, perKwhUsd: 0.059852 });
    // The history: every March 1 and September 1 reset, oldest first, the 2024-09-01 period included.
    expect(cnp.deliveryHistory.map((p: Json) => p.effective)).toEqual([
      '2024-09-01',
      '2025-03-01',
      '2025-09-01',
      '2026-03-01',
      '2026-09-01',
    ]);
    expect(cnp.deliveryHistory[0].residential).toEqual({ fixedMonthlyUsd: 4.39, perKwhUsd: 0.054697 });
  });

  it('marks municipal, co-op and regulated-state utilities REGULATED', async () => {
    const market = async (zip: string) =>
      (await get(`/territories/v1/zip/${zip}`)).body.utilities.map((u: Json) => [u.utilityId, u.ownership, u.market]);
    expect(await market('78701')).toEqual([['AUSTIN_ENERGY', 'MUNICIPAL', 'REGULATED']]);
    expect(await market('76226')).toEqual([
      ['ONCOR', 'IOU', 'DEREGULATED'],
      ['COSERV', 'COOP', 'REGULATED'],
    ]);
    expect(await market('94102')).toEqual([['PGE', 'IOU', 'REGULATED']]);
    expect(await market('33101')).toEqual([['FPL', 'IOU', 'REGULATED']]);
  });

  it("switches by each market's rule: Pennsylvania accelerated, meter-read states with a read schedule and lead time", async () => {
    const [peco] = (await get('/territories/v1/zip/19103')).body.utilities;
    expect(peco.switching).toMatchObject({ kind: 'ACCELERATED', leadBusinessDays: 3 });
    for (const zip of ['43215', '60601', '10001', '07102', '21202', '02108', '06103', '03101']) {
      const [u] = (await get(`/territories/v1/zip/${zip}`)).body.utilities;
      expect(u.switching.kind, zip).toBe('METER_READ');
      expect(u.switching.meterReadAnchorDate, zip).toMatch(ISO_DATE);
      expect(u.switching.leadBusinessDays, zip).toBeGreaterThanOrEqual(3);
      expect(u.switching.leadBusinessDays, zip).toBeLessThanOrEqual(15);
      expect(u.priceToCompare, zip).toMatchObject({
        usdPerKwh: expect.any(Number),
        effective: expect.stringMatching(ISO_DATE),
        expires: expect.stringMatching(ISO_DATE),
      });
    }
  });

  it('references only known utilities in the ZIP tables, and uses every utility', () => {
    const referenced = referencedUtilityIds();
    expect([...referenced].filter((id) => !UTILITIES.has(id))).toEqual([]);
    expect([...UTILITIES.keys()].filter((id) => !referenced.has(id))).toEqual([]);
  });

  it('answers an unknown well-formed ZIP with an empty list and a malformed one with 400', async () => {
    const unknown = await get('/territories/v1/zip/99501');
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ zip: '99501', utilities: [] });
    expectValid('territories', unknown.body);
    const bad = await get('/territories/v1/zip/7500A');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBeTypeOf('string');
  });
});

describe('reference upstream: voltify', () => {
  it('follows the OpenAPI contract', () => {
    const op = openapi.paths['/offers'].get;
    expect(openapi.openapi).toBe('3.0.3');
    expect(op.operationId).toBe('listOffers');
    const params = Object.fromEntries(op.parameters.map((p: Json) => [p.name, p]));
    expect(params.zip.required).toBe(true);
    expect(params.utility.required).toBe(false);
    expect(params.class.required).toBe(true);
    expect(openapi.components.schemas.VoltifyCustomerClassParam.enum).toEqual(['residential', 'commercial']);
    expect(openapi.components.schemas.VoltifyOffer).toBeDefined();
  });

  it('lists residential and commercial offers with stable ids and plausible prices', async () => {
    for (const [cls, label, letter] of [
      ['residential', 'Residential', 'R'],
      ['commercial', 'Commercial', 'C'],
    ] as const) {
      const { status, body } = await get(`/voltify/api/v2/offers?zip=75001&class=${cls}`);
      expect(status).toBe(200);
      expectValid('voltify', body);
      expect(body.offers.length).toBeGreaterThanOrEqual(5);
      const ids = body.offers.map((o: Json) => o.offerId);
      expect(new Set(ids).size).toBe(ids.length);
      for (const o of body.offers) {
        expect(o.offerId).toMatch(new RegExp(`^VOL-ONCOR-${letter}-\\d{4}$`));
        expect(o.customerClass).toBe(label);
        expect(o.utilityCode).toBe('ONCOR');
        expect([0, 1, 3, 6, 12, 18, 24, 36]).toContain(o.termMonths);
        // A bill credit is funded by the energy charge: at least 4 cents plus the credit per kWh it needs.
        const creditFloor = Math.max(0, ...o.usageCredits.map((c: Json) => 4 + (c.creditUsd * 100) / c.minKwh));
        for (const t of o.energyChargeCentsPerKwh) {
          expect(t.cents).toBeGreaterThanOrEqual(Math.max(cls === 'residential' ? 7 : 6, creditFloor));
          expect(t.cents).toBeLessThanOrEqual(Math.max(16, creditFloor + 0.1));
          expect(decimals(t.cents)).toBeLessThanOrEqual(4);
        }
        for (const usd of [o.baseChargeUsdPerMonth, o.cancellationFeeUsd, o.enrollmentFeeUsd]) expect(decimals(usd)).toBeLessThanOrEqual(2);
      }
    }
  });

  it('offers a realistic mix: mostly fixed, tiers, credits, minimum-usage fees, several suppliers', async () => {
    const offers: Json[] = [];
    for (const zip of ['75001', '77002', '78401', '79601', '77590']) {
      offers.push(...(await get(`/voltify/api/v2/offers?zip=${zip}&class=residential`)).body.offers);
    }
    const fixed = offers.filter((o) => o.rateStructure === 'Fixed').length;
    expect(fixed / offers.length).toBeGreaterThan(0.5);
    expect(offers.some((o) => o.rateStructure === 'Variable')).toBe(true);
    // No wholesale-indexed plans for Texas homes (PURA §39.110, HB 16).
    expect(offers.some((o) => o.rateStructure === 'Indexed')).toBe(false);
    expect(offers.some((o) => o.energyChargeCentsPerKwh.length > 1)).toBe(true);
    expect(offers.some((o) => o.usageCredits.some((c: Json) => c.minKwh === 1000 && c.creditUsd === 100))).toBe(true);
    expect(offers.some((o) => o.minimumUsage !== null)).toBe(true);
    expect(new Set(offers.map((o) => o.supplierName)).size).toBeGreaterThanOrEqual(3);
  });

  it('prices Northeast supply at 9-18 cents', async () => {
    for (const zip of ['19103', '10001', '02108', '07102']) {
      const { body } = await get(`/voltify/api/v2/offers?zip=${zip}&class=residential`);
      expect(body.offers.length, zip).toBeGreaterThan(0);
      for (const o of body.offers)
        for (const t of o.energyChargeCentsPerKwh) {
          expect(t.cents).toBeGreaterThanOrEqual(9);
          expect(t.cents).toBeLessThanOrEqual(18);
        }
    }
  });

  it('covers every utility of a shared ZIP and filters by utility', async () => {
    const all = (await get('/voltify/api/v2/offers?zip=75067&class=residential')).body.offers;
    expect(new Set(all.map((o: Json) => o.utilityCode))).toEqual(new Set(['ONCOR', 'TNMP']));
    const tnmp = await get('/voltify/api/v2/offers?zip=75067&class=residential&utility=TNMP');
    expect(tnmp.body.offers.length).toBeGreaterThan(0);
    expect(tnmp.body.offers.every((o: Json) => o.utilityCode === 'TNMP')).toBe(true);
    expect((await get('/voltify/api/v2/offers?zip=75067&class=residential&utility=CENTERPOINT')).body.offers).toEqual([]);
    // The IOU half of an IOU + co-op ZIP has offers; the co-op has none.
    const argyle = (await get('/voltify/api/v2/offers?zip=76226&class=residential')).body.offers;
    expect(new Set(argyle.map((o: Json) => o.utilityCode))).toEqual(new Set(['ONCOR']));
  });

  it('has no offers for regulated or unknown ZIPs', async () => {
    for (const zip of ['78701', '78205', '94102', '33101', '99501']) {
      const res = await get(`/voltify/api/v2/offers?zip=${zip}&class=residential`);
      expect(res.status, zip).toBe(200);
      expect(res.body, zip).toEqual({ offers: [] });
    }
  });

  it('rejects a missing or invalid class and a missing zip with a JSON 400', async () => {
    for (const q of [
      'zip=75001',
      'zip=75001&class=business',
      'zip=75001&class=Residential',
      'class=residential',
      'zip=750&class=residential',
    ]) {
      const res = await get(`/voltify/api/v2/offers?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error, q).toBeTypeOf('string');
    }
  });
});

describe('reference upstream: brightgrid', () => {
  it('returns both segments by default and filters by segment', async () => {
    const all = await get('/brightgrid/v1/plans/75001');
    expect(all.status).toBe(200);
    expectValid('brightgrid', all.body);
    expect(all.body.data.zip).toBe('75001');
    const res = await get('/brightgrid/v1/plans/75001?segment=RES');
    const smb = await get('/brightgrid/v1/plans/75001?segment=SMB');
    expectValid('brightgrid', res.body);
    expectValid('brightgrid', smb.body);
    expect(res.body.data.plans.every((p: Json) => p.segment === 'RES')).toBe(true);
    expect(smb.body.data.plans.every((p: Json) => p.segment === 'SMB')).toBe(true);
    expect(res.body.data.plans.length).toBeGreaterThan(0);
    expect(smb.body.data.plans.length).toBeGreaterThan(0);
    expect(all.body.data.plans).toEqual([...res.body.data.plans, ...smb.body.data.plans]);
  });

  it('prices in dollars with at most 6 decimals and uses its own brands', async () => {
    const { body } = await get('/brightgrid/v1/plans/19103');
    const plans: Json[] = body.data.plans;
    expect(plans.length).toBeGreaterThan(10);
    expect(plans.every((p) => p.territory === 'PECO')).toBe(true);
    expect(new Set(plans.map((p) => p.id)).size).toBe(plans.length);
    expect(plans.every((p) => /^bg-[0-9a-f]{12}$/.test(p.id))).toBe(true);
    for (const p of plans) {
      expect(p.provider.displayName).not.toMatch(/voltify/i);
      const energy = p.pricing.components.filter((c: Json) => c.kind === 'ENERGY');
      expect(energy.length).toBeGreaterThanOrEqual(1);
      for (const c of energy) {
        expect(c.amount).toBeGreaterThanOrEqual(p.segment === 'RES' ? 0.09 : 0.07);
        expect(c.amount).toBeLessThanOrEqual(0.18);
        expect(decimals(c.amount)).toBeLessThanOrEqual(6);
      }
    }
    const voltifySuppliers = new Set(
      (await get('/voltify/api/v2/offers?zip=19103&class=residential')).body.offers.map((o: Json) => o.supplierName),
    );
    expect(plans.some((p) => voltifySuppliers.has(p.provider.displayName))).toBe(false);
  });

  it('has no plans for regulated or unknown ZIPs and rejects bad input', async () => {
    for (const zip of ['78701', '94102', '99501']) {
      const res = await get(`/brightgrid/v1/plans/${zip}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { zip, plans: [] } });
    }
    expect((await get('/brightgrid/v1/plans/75001?segment=BIZ')).status).toBe(400);
    expect((await get('/brightgrid/v1/plans/ABCDE')).status).toBe(400);
  });
});

describe('reference upstream: gridwise (the feed of docs/adding-a-feed.md)', () => {
  const offersOf = (body: Json): Json[] => body.Envelope.Body.OfferList.Offer;
  const money = /^\d+\.\d{2}$/;

  it('serves XML-like nesting for a few TX and PA utilities, valid against the contract', async () => {
    for (const [zip, utilities] of [
      ['75001', ['ONCOR']],
      ['77002', ['CENTERPOINT']],
      ['19103', ['PECO']],
      ['18101', ['PPL']],
      ['17042', ['PPL']],
    ] as const) {
      const res = await get(`/gridwise/feed/${zip}`);
      expect(res.status, zip).toBe(200);
      expect(res.headers.get('cache-control')).toContain('max-age=900');
      expectValid('gridwise', res.body);
      const offers = offersOf(res.body);
      expect(res.body.Envelope.Header).toEqual({ Zip: zip, Currency: 'USD', Count: offers.length });
      expect(new Set(offers.map((o) => o.TDSP)), zip).toEqual(new Set(utilities));
      expect(offers.filter((o) => o.Class === 'res')).toHaveLength(4 * utilities.length);
      expect(offers.filter((o) => o.Class === 'com')).toHaveLength(2 * utilities.length);
      for (const o of offers) {
        expect(o['@id']).toMatch(/^GW-[A-Z_]+-[RC]-\d{2}$/);
        expect(Number.isInteger(o.Contract.Years * 12), o['@id']).toBe(true);
        expect(o.Renewable.Fraction).toBeGreaterThanOrEqual(0);
        expect(o.Renewable.Fraction).toBeLessThanOrEqual(1);
        for (const v of [o.Pricing.MonthlyFee, o.Fees.EarlyExit, o.Fees.Signup]) expect(v).toMatch(money);
        const blocks: Json[] = o.Pricing.Blocks.Block;
        expect(blocks[0].FromKWh).toBe(0);
        expect(blocks.at(-1).ToKWh).toBeUndefined(); // open-ended: the attribute is left out
        for (const b of blocks) {
          expect(b.PerMWh).toMatch(money);
          // dollars per MWh: 62-180 $/MWh is 6.2-18 cents per kWh
          expect(Number(b.PerMWh)).toBeGreaterThanOrEqual(62);
          expect(Number(b.PerMWh)).toBeLessThanOrEqual(180);
        }
      }
      const ids = offers.map((o) => o['@id']);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('has tiered, credit, minimum-usage, variable and fractional-year offers', async () => {
    const all: Json[] = [];
    for (const zip of ['75001', '77002', '19103', '18101']) all.push(...offersOf((await get(`/gridwise/feed/${zip}`)).body));
    expect(all.some((o) => o.Pricing.Blocks.Block.length > 1)).toBe(true);
    expect(all.some((o) => o.Pricing.Credits?.Credit.length)).toBe(true);
    expect(all.some((o) => o.Pricing.MinimumUsage)).toBe(true);
    expect(new Set(all.map((o) => o.Contract.Kind))).toEqual(new Set(['FixedRate', 'VariableRate', 'IndexRate']));
    expect(all.some((o) => o.Contract.Years === 1.5)).toBe(true);
    expect(all.filter((o) => o.Contract.Kind === 'VariableRate').every((o) => o.Contract.Years === 0)).toBe(true);
  });

  it('has no offers for other, regulated or unknown ZIPs and rejects a malformed ZIP', async () => {
    for (const zip of ['78701', '60601', '94102', '99501']) {
      const res = await get(`/gridwise/feed/${zip}`);
      expect(res.status, zip).toBe(200);
      expectValid('gridwise', res.body);
      expect(offersOf(res.body), zip).toEqual([]);
    }
    const bad = await get('/gridwise/feed/7500A');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBeTypeOf('string');
  });

  it('takes faults like the other feeds', async () => {
    upstream.setFault('gridwise', { kind: 'null' });
    expect(await (await fetch(`${upstream.url}/gridwise/feed/75001`)).text()).toBe('null');
    upstream.setFault('gridwise', { kind: 'garbage' });
    const text = await (await fetch(`${upstream.url}/gridwise/feed/75001`)).text();
    expect(() => JSON.parse(text)).toThrow();
    expect((await fetch(`${upstream.url}/__faults/gridwise`, { method: 'POST', body: '{"kind":"status","status":503}' })).status).toBe(200);
    expect((await get('/gridwise/feed/75001')).status).toBe(503);
    expect((await get('/brightgrid/v1/plans/75001')).status).toBe(200);
    upstream.setFault('gridwise', null);
    expectValid('gridwise', (await get('/gridwise/feed/75001')).body);
  });
});
