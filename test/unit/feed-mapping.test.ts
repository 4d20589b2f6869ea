// Feed mapping of the shipped feeds: the supplier feeds' offers, malformed payloads, and the other
// kinds (territories, state statistics, premises).
import { describe, expect, it } from 'vitest';
import { compileFeedMapping, FeedPayloadError, type FeedBinding } from '../../transforms/mapping/index.js';
import {
  bindings,
  brightgrid,
  brightgridPlan,
  expectedBrightgrid,
  expectedVoltify,
  feed,
  meshConfig,
  misfits,
  OFFER_SHAPE,
  voltify,
  voltifyOffer,
} from '../support/feed-mapping-fixtures.js';

describe('supplier feeds -> canonical offers', () => {
  it('maps the Voltify sample exactly', () => {
    const out = voltify.map({ offers: [voltifyOffer()] });
    expect(out).toEqual({ records: [expectedVoltify], rejected: [], doubts: [] });
  });

  it('maps the BrightGrid sample exactly', () => {
    const out = brightgrid.map({ data: { zip: '75001', plans: [brightgridPlan()] } });
    expect(out).toEqual({ records: [expectedBrightgrid], rejected: [], doubts: [] });
  });

  it('gives both feeds identical canonical shapes', () => {
    const [v] = voltify.map({ offers: [voltifyOffer()] }).records;
    const [b] = brightgrid.map({ data: { plans: [brightgridPlan()] } }).records;
    expect(misfits(v, OFFER_SHAPE)).toEqual([]);
    expect(misfits(b, OFFER_SHAPE)).toEqual([]);
    expect(Object.keys(b!)).toEqual(Object.keys(v!));
  });

  it('maps the same offer, told by either feed, to the same record', () => {
    const plan = brightgridPlan();
    plan.id = 'SAME-1';
    plan.provider.displayName = 'Same Energy';
    plan.name = 'Same 12';
    plan.contract = { lengthMonths: 12, type: 'fixed_rate' };
    plan.pricing.components = [
      { kind: 'BASE', amount: 9.95 },
      { kind: 'ENERGY', amount: 0.109, tierMinKwh: 1000, tierMaxKwh: null }, // out of order on purpose
      { kind: 'ENERGY', amount: 0.124, tierMinKwh: 0, tierMaxKwh: 1000 },
      { kind: 'CREDIT', amount: 100, thresholdKwh: 1000 },
      { kind: 'MIN_USAGE_FEE', amount: 9.95, thresholdKwh: 500 },
    ];
    plan.green = { percent: 100 };
    plan.fees = { earlyTermination: 150, enrollment: 0 };
    const offer = { ...voltifyOffer(), offerId: 'SAME-1', supplierName: 'Same Energy', productName: 'Same 12' };
    const [b] = brightgrid.map({ data: { plans: [plan] } }).records;
    const [v] = voltify.map({ offers: [offer] }).records;
    expect({ ...b, feed: 'x' }).toEqual({ ...v, feed: 'x' });
  });

  it('maps absent optional parts to their neutral values', () => {
    const o: Record<string, unknown> = { ...voltifyOffer(), minimumUsage: null };
    delete o.usageCredits;
    delete o.baseChargeUsdPerMonth;
    delete o.renewablePercent;
    const [v] = voltify.map({ offers: [o] }).records;
    expect(v).toMatchObject({ minimumUsageFee: null, credits: [], baseMonthlyMicro: 0, renewablePercent: 0 });

    const p = brightgridPlan();
    p.pricing.components = p.pricing.components.filter((c) => c.kind === 'ENERGY');
    p.green = null;
    const [b] = brightgrid.map({ data: { plans: [p] } }).records;
    expect(b).toMatchObject({ minimumUsageFee: null, credits: [], baseMonthlyMicro: 0, renewablePercent: 0 });
  });

  it("maps a green power offer's approved price from either feed, exactly; left out when the feed has none", () => {
    const offer = { ...voltifyOffer(), utilityCode: 'BGE', approvedPriceCentsPerKwh: 12.6233 };
    const [v] = voltify.map({ offers: [offer] }).records;
    expect(v!.approvedPriceMicroPerKwh).toBe(126_233);
    const plan = { ...brightgridPlan(), territory: 'BGE', green: { percent: 100, approvedPriceUsdPerKwh: 0.126233 } };
    const [b] = brightgrid.map({ data: { plans: [plan] } }).records;
    expect(b!.approvedPriceMicroPerKwh).toBe(126_233);
    const [none] = voltify.map({ offers: [{ ...voltifyOffer(), approvedPriceCentsPerKwh: null }] }).records;
    expect(none).toEqual(expectedVoltify);
    expect('approvedPriceMicroPerKwh' in none!).toBe(false);
  });

  it('selects and checks the union member that carries the records (resultType)', () => {
    expect(voltify.selectionSet.startsWith('{ __typename ... on VoltifyOffersResponse { offers { offerId ')).toBe(true);
    expect(voltify.map({ __typename: 'VoltifyOffersResponse', offers: [voltifyOffer()] }).records).toEqual([expectedVoltify]);
    expect(() => voltify.map({ __typename: 'VoltifyError', error: 'query parameter zip is required' })).toThrow(
      'feed Voltify: answered VoltifyError, not VoltifyOffersResponse: query parameter zip is required',
    );
    expect(() => voltify.map({ __typename: 'VoltifyError' })).toThrow(FeedPayloadError);
  });

  it('maps GraphQL execution results (null-prototype objects)', () => {
    const nullProto = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(nullProto)
        : v && typeof v === 'object'
          ? Object.assign(Object.create(null), Object.fromEntries(Object.entries(v).map(([k, x]) => [k, nullProto(x)])))
          : v;
    expect(voltify.map(nullProto({ offers: [voltifyOffer()] })).records).toEqual([expectedVoltify]);
  });
});

// ------------------------------------------------------------------------------------- robustness

describe('malformed payloads', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'offers'],
    ['a number', 42],
    ['a list', [voltifyOffer()]],
    ['no items', {}],
    ['items null', { offers: null }],
    ['items an object', { offers: voltifyOffer() }],
    ['items a string', { offers: 'none' }],
  ])('throws FeedPayloadError for %s', (_name, payload) => {
    expect(() => voltify.map(payload)).toThrow(FeedPayloadError);
    try {
      voltify.map(payload);
    } catch (e) {
      expect((e as FeedPayloadError).source).toBe('Voltify');
    }
  });

  it('throws FeedPayloadError when a nested items path is broken', () => {
    expect(() => brightgrid.map({ data: null })).toThrow(FeedPayloadError);
    expect(() => brightgrid.map({ data: { plans: 5 } })).toThrow(/items \(data\.plans\) is not a list/);
  });

  it('an empty list is no records, not an error', () => {
    expect(voltify.map({ offers: [] })).toEqual({ records: [], rejected: [], doubts: [] });
  });

  type Patch = (o: Record<string, any>) => void;
  const cases: [string, Patch, RegExp][] = [
    ['a record that is null', () => {}, /expected an object, got null/],
    [
      'a string where a number is mapped',
      (o) => (o.termMonths = '12'),
      /termMonths \(termMonths\): expected a number of months, got string "12"/,
    ],
    ['a non-numeric money string', (o) => (o.baseChargeUsdPerMonth = 'ten'), /baseMonthly/],
    ['money in exponent text', (o) => (o.baseChargeUsdPerMonth = '1e1'), /baseMonthly/],
    ['negative money', (o) => (o.cancellationFeeUsd = -150), /cancellationFee .*negative/],
    ['a negative price', (o) => (o.energyChargeCentsPerKwh[0].cents = -1), /energyBlocks\[0\]\.price .*negative/],
    ['an unknown enum value', (o) => (o.rateStructure = 'Prepaid Plus'), /rateType \(rateStructure\): unknown value string "Prepaid Plus"/],
    ['an unknown customer class', (o) => (o.customerClass = 'Industrial'), /customerClass/],
    ['a missing required field', (o) => delete o.offerId, /offerId \(offerId\): missing/],
    ['a null required field', (o) => (o.supplierName = null), /supplierName \(supplierName\): missing/],
    ['an empty id', (o) => (o.offerId = ''), /offerId \(offerId\): empty/],
    ['more than 6 decimals of dollars', (o) => (o.baseChargeUsdPerMonth = 9.9500001), /more than 6 decimal places/],
    [
      'more than 4 decimals of cents',
      (o) => (o.energyChargeCentsPerKwh[1].cents = 10.90001),
      /energyBlocks\[1\]\.price \(cents\): more than 4 decimal places of cents/,
    ],
    ['a fractional term', (o) => (o.termMonths = 12.5), /whole number of months/],
    ['a renewable share over 100', (o) => (o.renewablePercent = 120), /more than 100 percent/],
    ['a fractional kWh tier bound', (o) => (o.energyChargeCentsPerKwh[0].toKwh = 999.5), /whole number/],
    ['no energy price at all', (o) => (o.energyChargeCentsPerKwh = []), /energyBlocks .*at least 1/],
    ['energy blocks with a gap', (o) => (o.energyChargeCentsPerKwh[1].fromKwh = 1200), /gap or overlap at 1000 kWh/],
    ['energy blocks not starting at 0', (o) => (o.energyChargeCentsPerKwh[0].fromKwh = 10), /starts at 10 kWh, not 0/],
    ['an open block before the last', (o) => (o.energyChargeCentsPerKwh[0].toKwh = null), /open-ended but is not the last/],
    [
      'an energy list that is not a list',
      (o) => (o.energyChargeCentsPerKwh = { cents: 1 }),
      /energyBlocks \(energyChargeCentsPerKwh\): expected a list/,
    ],
    ['an energy block that is not an object', (o) => (o.energyChargeCentsPerKwh[1] = 10.9), /energyBlocks\[1\]: expected an object/],
    ['a minimum usage that is not an object', (o) => (o.minimumUsage = 'yes'), /minimumUsageFee \(minimumUsage\): expected an object/],
    ['a minimum usage without fee', (o) => delete o.minimumUsage.feeUsd, /minimumUsageFee\.amount \(feeUsd\): missing/],
    ['a boolean where text is mapped', (o) => (o.productName = true), /title \(productName\): expected text, got boolean true/],
    [
      'an object where text is mapped',
      (o) => (o.utilityCode = { code: 'ONCOR' }),
      /utilityId \(utilityCode\): expected text, got an object/,
    ],
    [
      'a huge nested list',
      (o) => (o.usageCredits = Array.from({ length: 5000 }, (_, i) => ({ minKwh: i, creditUsd: 1 }))),
      /credits .*5000 entries, more than 1000/,
    ],
  ];

  it.each(cases)('rejects %s with a reason, keeping the other records', (_name, patch, reason) => {
    const bad = voltifyOffer() as Record<string, any>;
    patch(bad);
    const payload = { offers: [voltifyOffer(), _name === 'a record that is null' ? null : bad, { ...voltifyOffer(), offerId: 'VOL-2' }] };
    const out = voltify.map(payload);
    expect(out.records.map((r) => r.offerId)).toEqual(['VOL-ONCOR-R-0001', 'VOL-2']);
    expect(out.rejected).toHaveLength(1);
    expect(out.rejected[0]!.index).toBe(1);
    expect(out.rejected[0]!.reason).toMatch(reason);
  });

  it('maps a payload the same however often its values were seen; a bad value is refused, with its label, every time', () => {
    // Each quantity field remembers its conversions (feed values repeat call after call): a value
    // seen before gives the same canonical number, a failure is never remembered.
    const first = voltify.map({ offers: [voltifyOffer()] }).records;
    for (let i = 0; i < 3; i++) expect(voltify.map({ offers: [voltifyOffer()] }).records).toEqual(first);
    const bad = voltifyOffer() as Record<string, any>;
    bad.baseChargeUsdPerMonth = 9.9512345;
    for (let i = 0; i < 2; i++) {
      const out = voltify.map({ offers: [voltifyOffer(), bad] });
      expect(out.records).toHaveLength(1);
      expect(out.rejected[0]!.reason).toMatch(/^baseMonthly \(baseChargeUsdPerMonth\): .*more than 6 decimal places/);
    }
    // The same text as a decimal string is its own value, converted (and remembered) exactly alike.
    const text = voltifyOffer() as Record<string, any>;
    text.baseChargeUsdPerMonth = '9.95';
    expect(voltify.map({ offers: [text] }).records[0]!.baseMonthlyMicro).toBe(first[0]!.baseMonthlyMicro);
  });

  it('accepts money as plain decimal strings (money units only)', () => {
    const o = voltifyOffer() as Record<string, any>;
    o.baseChargeUsdPerMonth = '9.95';
    o.energyChargeCentsPerKwh[0].cents = '12.4';
    const [r] = voltify.map({ offers: [o] }).records;
    expect(r!.baseMonthlyMicro).toBe(9_950_000);
    expect(r!.energyBlocks[0]!.microUsdPerKwh).toBe(124_000);
  });

  it('rejects a duplicate offerId (the first one wins)', () => {
    const out = voltify.map({ offers: [voltifyOffer(), { ...voltifyOffer(), productName: 'Copy' }] });
    expect(out.records).toHaveLength(1);
    expect(out.records[0]!.title).toBe('Lone Star Saver 12');
    expect(out.rejected).toEqual([{ index: 1, reason: 'offerId: duplicate "VOL-ONCOR-R-0001" (first at index 0)' }]);
  });

  it('rejects every kind of junk record without throwing', () => {
    const junk = [null, undefined, 0, 'x', true, [], [voltifyOffer()], {}, { offers: [] }, Object.create(null), new Date(0)];
    const out = voltify.map({ offers: junk });
    expect(out.records).toEqual([]);
    expect(out.rejected.map((r) => r.index)).toEqual(junk.map((_, i) => i));
  });

  it('handles huge arrays: maps up to maxItems, reports the rest in one rejection, and never reads past maxItems', () => {
    // The work is bounded by maxItems, not by the feed's size: records past it are never touched.
    let readPastMax = 0;
    const untouchable = new Proxy({}, { get: () => void readPastMax++, ownKeys: () => void readPastMax++ as never });
    const offers = Array.from({ length: 25_000 }, (_, i) => (i < 10_000 ? { ...voltifyOffer(), offerId: `VOL-${i}` } : untouchable));
    const out = voltify.map({ offers });
    expect(out.records).toHaveLength(10_000);
    expect(out.rejected).toEqual([
      { index: 10_000, reason: 'records 10000..24999 not mapped: the feed sent 25000, more than maxItems (10000)' },
    ]);
    expect(readPastMax).toBe(0);
  });

  it('maxItems is configurable', () => {
    const b = compileFeedMapping('Voltify', { ...transformOf('Voltify'), maxItems: 2 });
    const out = b.map({ offers: [1, 2, 3].map((i) => ({ ...voltifyOffer(), offerId: `V${i}` })) });
    expect(out.records).toHaveLength(2);
    expect(out.rejected[0]!.index).toBe(2);
  });
});

function transformOf(source: string): Record<string, any> {
  const s = meshConfig.sources.find((x) => x.name === source);
  const t = s.transforms.find((t: object) => Object.keys(t).some((k) => k.endsWith('feed-mapping.ts')));
  return structuredClone(t[Object.keys(t)[0]!]);
}

// ------------------------------------------------------------------------------- the other kinds

describe('territories, state statistics and premises', () => {
  it('maps the trailing supply prices of both classes; one that ends before it starts rejects the utility', () => {
    const coned = {
      utilityId: 'CONED',
      name: 'Con Edison',
      state: 'NY',
      timeZone: 'America/New_York',
      market: 'DEREGULATED',
      ownership: 'IOU',
      delivery: { residential: { fixedMonthlyUsd: 20, perKwhUsd: 0.15 }, commercial: { fixedMonthlyUsd: 25, perKwhUsd: 0.14 } },
      trailingSupplyPrice: { usdPerKwh: 0.124408, from: '2025-11-01', to: '2026-10-31' },
      commercialTrailingSupplyPrice: { usdPerKwh: 0.118617, from: '2025-11-01', to: '2026-10-31' },
      switching: {
        kind: 'METER_READ',
        leadBusinessDays: 5,
        meterReadCycleDays: 30,
        meterReadAnchorDate: '2026-01-07',
        sameDayCutoff: '17:00',
      },
    };
    const backwards = {
      ...coned,
      utilityId: 'BACKWARDS',
      commercialTrailingSupplyPrice: { usdPerKwh: 0.1, from: '2026-10-31', to: '2025-11-01' },
    };
    const out = (feed('Territories') as FeedBinding<'territories'>).map({
      zip: '10001',
      utilities: [coned, backwards, { ...coned, utilityId: 'NONE', commercialTrailingSupplyPrice: undefined }],
    });
    expect(out.records.map((t) => [t.utilityId, t.trailingSupplyPrice?.microPerKwh, t.commercialTrailingSupplyPrice?.microPerKwh])).toEqual(
      [
        ['CONED', 124_408, 118_617],
        ['NONE', 124_408, undefined],
      ],
    );
    expect('commercialTrailingSupplyPrice' in out.records[1]!).toBe(false);
    expect(out.rejected.map((r) => r.reason)).toEqual([expect.stringMatching(/commercialTrailingSupplyPrice: ends before it starts/)]);
  });

  it('maps the territories sample', () => {
    const ercot = {
      name: 'ERCOT',
      holidays: [
        { name: 'Thanksgiving Day', rule: '4th thursday in November' },
        { name: 'Christmas Day', rule: '12-25 if saturday then previous friday if sunday then next monday' },
      ],
    };
    const oncor = {
      utilityId: 'ONCOR',
      name: 'Oncor Electric Delivery',
      state: 'TX',
      timeZone: 'America/Chicago',
      market: 'DEREGULATED',
      ownership: 'IOU',
      delivery: {
        effective: '2025-09-01',
        residential: { fixedMonthlyUsd: 4.23, perKwhUsd: 0.055833 },
        commercial: { fixedMonthlyUsd: 15.58, perKwhUsd: 0.047458 },
      },
      switching: { kind: 'OFF_CYCLE', leadBusinessDays: 2, meterReadCycleDays: 30, sameDayCutoff: '17:00' },
      calendar: ercot,
      holidays: ['2026-03-10'],
    };
    const peco = {
      ...oncor,
      utilityId: 'PECO',
      state: 'PA',
      timeZone: 'America/New_York',
      priceToCompare: { usdPerKwh: 0.0985, effective: '2026-06-01', expires: '2027-05-31' },
      switching: {
        kind: 'METER_READ',
        leadBusinessDays: 5,
        meterReadCycleDays: 30,
        meterReadAnchorDate: '2026-01-07',
        sameDayCutoff: '16:00',
      },
      holidays: [],
    };
    const payload = {
      zip: '75001',
      utilities: [
        oncor,
        {
          utilityId: 'MUNI',
          name: 'Muni',
          state: 'TX',
          timeZone: 'America/Chicago',
          market: 'REGULATED',
          ownership: null,
          bundledRate: { fixedMonthlyUsd: 0, perKwhUsd: 0.04, effective: '2025-01-01' },
          switching: { kind: 'OFF_CYCLE', leadBusinessDays: 1 },
          calendar: ercot,
        },
        { ...oncor, utilityId: 'BAD', holidays: ['Christmas'] },
        peco,
        // Hostile or inconsistent records are rejected one by one, with a reason.
        { ...oncor, utilityId: 'NO_DELIVERY', delivery: undefined },
        { ...oncor, utilityId: 'BAD_RULE', calendar: { name: 'x', holidays: [{ name: 'x', rule: '02-30' }] } },
        { ...oncor, utilityId: 'EVIL_RULE', calendar: { name: 'x', holidays: [{ name: 'x', rule: 'x'.repeat(5000) }] } },
        { ...peco, utilityId: 'NO_SCHEDULE', switching: { ...peco.switching, meterReadAnchorDate: null } },
        { ...peco, utilityId: 'PTC_BACKWARDS', priceToCompare: { usdPerKwh: 0.1, effective: '2027-01-01', expires: '2026-01-01' } },
        { ...peco, utilityId: 'PTC_NEGATIVE', priceToCompare: { usdPerKwh: -0.1, effective: '2026-01-01', expires: '2027-01-01' } },
        { ...oncor, utilityId: 'KIND', switching: { ...oncor.switching, kind: 'WHENEVER' } },
        { ...oncor, utilityId: 'ANCHOR', switching: { ...oncor.switching, meterReadAnchorDate: '2026-02-31x' } },
      ],
    };
    const out = feed('Territories').map(payload);
    const rules = ercot.holidays;
    expect(out.records).toEqual([
      {
        utilityId: 'ONCOR',
        name: 'Oncor Electric Delivery',
        state: 'TX',
        timeZone: 'America/Chicago',
        market: 'DEREGULATED',
        ownership: 'IOU',
        delivery: { fixedMonthlyMicro: 4_230_000, perKwhMicro: 55_833, effective: '2025-09-01' },
        commercialDelivery: { fixedMonthlyMicro: 15_580_000, perKwhMicro: 47_458, effective: '2025-09-01' },
        bundledRate: null,
        priceToCompare: null,
        switching: {
          kind: 'OFF_CYCLE',
          leadBusinessDays: 2,
          meterReadCycleDays: 30,
          meterReadAnchorDate: null,
          meterReadDates: [],
          sameDayCutoff: '17:00',
        },
        calendar: { name: 'ERCOT', holidays: rules },
        holidays: ['2026-03-10'],
      },
      {
        utilityId: 'MUNI',
        name: 'Muni',
        state: 'TX',
        timeZone: 'America/Chicago',
        market: 'REGULATED',
        ownership: 'IOU',
        delivery: null,
        commercialDelivery: null,
        bundledRate: { fixedMonthlyMicro: 0, perKwhMicro: 40_000, effective: '2025-01-01' },
        priceToCompare: null,
        switching: {
          kind: 'OFF_CYCLE',
          leadBusinessDays: 1,
          meterReadCycleDays: 30,
          meterReadAnchorDate: null,
          meterReadDates: [],
          sameDayCutoff: '17:00',
        },
        calendar: { name: 'ERCOT', holidays: rules },
        holidays: [],
      },
      expect.objectContaining({
        utilityId: 'PECO',
        priceToCompare: { microPerKwh: 98_500, effective: '2026-06-01', expires: '2027-05-31' },
        switching: {
          kind: 'METER_READ',
          leadBusinessDays: 5,
          meterReadCycleDays: 30,
          meterReadAnchorDate: '2026-01-07',
          meterReadDates: [],
          sameDayCutoff: '16:00',
        },
      }),
    ]);
    const reasons = Object.fromEntries(out.rejected.map((r) => [payload.utilities[r.index]!.utilityId, r.reason]));
    expect(Object.keys(reasons).sort()).toEqual([
      'ANCHOR',
      'BAD',
      'BAD_RULE',
      'EVIL_RULE',
      'KIND',
      'NO_DELIVERY',
      'NO_SCHEDULE',
      'PTC_BACKWARDS',
      'PTC_NEGATIVE',
    ]);
    expect(reasons.BAD).toBe('holidays (holidays)[0]: expected an ISO date YYYY-MM-DD, got string "Christmas"');
    expect(reasons.NO_DELIVERY).toMatch(/DEREGULATED utility needs delivery charges/);
    expect(reasons.BAD_RULE).toMatch(/calendar: .*does not exist/);
    expect(reasons.EVIL_RULE).toMatch(/calendar: .*not an accepted rule form/);
    expect(reasons.EVIL_RULE!.length).toBeLessThan(300);
    expect(reasons.NO_SCHEDULE).toMatch(/METER_READ needs/);
    expect(reasons.PTC_BACKWARDS).toMatch(/expires before it takes effect/);
    expect(reasons.PTC_NEGATIVE).toMatch(/negative/);
    expect(reasons.KIND).toMatch(/unknown value/);
    expect(reasons.ANCHOR).toMatch(/ISO date/);
    expect(feed('Territories').map({ zip: '00000', utilities: [] })).toEqual({ records: [], rejected: [], doubts: [] });
  });

  it('maps EIA API v2 answers: rows picked by sector and fuel type, the latest year first, numbers as text', () => {
    const [prices, generation] = bindings.filter((b) => b.source === 'Eia');
    const row = (period: string, sectorid: string, price: string | null) => ({
      period,
      stateid: 'CA',
      stateDescription: 'California',
      sectorid,
      sectorName: sectorid,
      price,
    });
    // Sorted by period, descending, as the block asks: the first row of a sector is the latest year.
    const salesPayload = {
      response: {
        data: [row('2025', 'RES', '31.67'), row('2025', 'COM', '24.95'), row('2024', 'RES', '30.22'), row('2024', 'COM', '24.01')],
      },
    };
    expect(prices!.map(salesPayload)).toEqual({
      records: [{ state: 'CA', name: 'California', year: 2025, residentialMicroPerKwh: 316_700, commercialMicroPerKwh: 249_500 }],
      rejected: [],
      doubts: [],
    });
    const fuel = (fueltypeid: string, value: string | null, period = '2025') => ({
      period,
      location: 'CA',
      stateDescription: 'California',
      sectorid: '99',
      fueltypeid,
      generation: value,
    });
    const genPayload = {
      response: {
        data: [
          fuel('COW', '205.7'),
          fuel('NG', '81457.2'),
          fuel('NUC', '17690.2'),
          fuel('HYC', '30443.6'),
          fuel('AOR', '75080.5'),
          fuel('HPS', '-411.4'),
          fuel('PET', null),
          fuel('NG', '79000', '2024'),
        ],
      },
    };
    expect(generation!.map(genPayload).records).toEqual([
      {
        state: 'CA',
        generationMwh: {
          COAL: 205_700,
          PETROLEUM: 0,
          NATURAL_GAS: 81_457_200,
          OTHER_GASES: 0,
          NUCLEAR: 17_690_200,
          HYDRO: 30_443_600,
          OTHER_RENEWABLES: 75_080_500,
          PUMPED_STORAGE: -411_400,
          OTHER: 0,
        },
      },
    ]);
    // Text that is not a plain decimal, or a negative where none is possible, rejects the record.
    const bad = generation!.map({ response: { data: [fuel('COW', '1e3'), fuel('NG', '5')] } });
    expect(bad.records).toEqual([]);
    expect(bad.rejected[0]!.reason).toMatch(/generation\.COAL .*expected a number as decimal text, got string "1e3"/);
    const negative = prices!.map({ response: { data: [row('2025', 'RES', '-3'), row('2025', 'COM', '2')] } });
    expect(negative.rejected[0]!.reason).toMatch(/residentialPerKwh .*negative/);
    // A state EIA has no rows for maps to nothing (the API then answers "no statistics").
    expect(prices!.map({ response: { data: [] } }).records).toEqual([]);
    expect(() => prices!.map(null)).toThrow(FeedPayloadError);
    expect(() => prices!.map([salesPayload])).toThrow(FeedPayloadError);
  });

  it('maps the premises sample (flat fields -> ServiceAccount)', () => {
    const out = feed('Premises').map({
      matches: [
        {
          accountId: '10443720001234567',
          idType: 'ESIID',
          serviceAddress: { line1: '1500 MARILLA ST', line2: null, city: 'DALLAS', state: 'TX', zip: '75201' },
          utilityId: 'ONCOR',
          meterType: 'AMS',
          status: 'ACTIVE',
          premiseType: 'RESIDENTIAL',
        },
        { accountId: '2', serviceAddress: { line1: 'X', city: 'Y', state: 'TX', zip: '75201-1234' }, utilityId: 'ONCOR', status: 'ACTIVE' },
        { accountId: '3', serviceAddress: { line1: 'X', city: 'Y', state: 'Texas', zip: '75201' }, utilityId: 'ONCOR', status: 'ACTIVE' },
      ],
    });
    expect(out.records).toEqual([
      {
        accountId: '10443720001234567',
        idType: 'ESIID',
        address: { line1: '1500 MARILLA ST', line2: null, city: 'DALLAS', state: 'TX', zip: '75201' },
        utilityId: 'ONCOR',
        meterType: 'AMS',
        status: 'ACTIVE',
        premiseType: 'RESIDENTIAL',
      },
      {
        accountId: '2',
        idType: 'ACCOUNT_NUMBER',
        address: { line1: 'X', line2: null, city: 'Y', state: 'TX', zip: '75201-1234' },
        utilityId: 'ONCOR',
        meterType: 'UNKNOWN',
        status: 'ACTIVE',
        premiseType: null,
      },
    ]);
    expect(out.rejected).toEqual([
      { index: 2, reason: 'state (serviceAddress.state): expected a two-letter upper-case state code, got string "Texas"' },
    ]);
  });
});
