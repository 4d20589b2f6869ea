// Feed mapping beyond the shipped feeds: a third feed in a new shape added with YAML alone, and
// random valid Voltify records (fast-check) mapping to exact integer money.
import { buildSchema } from 'graphql';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CanonicalOffer } from '../../domain/canonical.js';
import { compileFeedMapping, FeedPayloadError, validateAgainstSchema, type FeedBinding } from '../../transforms/mapping/index.js';
import { misfits, OFFER_SHAPE, voltify, voltifyOffer, yaml } from '../support/feed-mapping-fixtures.js';

// --------------------------------------------------------------------- a third feed, YAML only

const GRIDCO_YAML = `
kind: offers
operation: gridcoOffers
timeoutMs: 3000
sampleZip: '75001'
args:
  postal: zipCode
  customerType: { from: customerClass, map: { RESIDENTIAL: R, COMMERCIAL: C } }
  channel: { const: partner }
items: Envelope.Body.Offers.Offer[]
fields:
  offerId: Header.Id
  supplierName: Header.Supplier.Name
  title: Header.Title
  customerClass: { path: Header.CustomerType, map: { R: RESIDENTIAL, C: COMMERCIAL } }
  utilityId: Service.Tdu.Code
  rateType: { path: Terms.PriceType, map: { FX: FIXED, VR: VARIABLE, IX: INDEXED, TOU: TIME_OF_USE } }
  termMonths: { path: Terms.DurationYears, unit: years }
  energyBlocks:
    items: Price.Energy.Tier[]
    fields:
      fromKwh: { path: FromMwh, unit: mwh }
      toKwh: { path: ToMwh, unit: mwh }
      price: { path: UsdPerMwh, unit: usd_per_mwh }
  baseMonthly: { path: 'Price.Charges.Charge[Type=MONTHLY].Cents', unit: cents, default: 0 }
  credits:
    items: 'Price.Charges.Charge[Type=BILL_CREDIT]'
    fields:
      minKwh: { path: ThresholdMwh, unit: mwh }
      amount: { path: Cents, unit: cents }
  minimumUsageFee:
    path: 'Price.Charges.Charge[Type=MINIMUM_USE]'
    fields:
      belowKwh: { path: ThresholdMwh, unit: mwh }
      amount: { path: Cents, unit: cents }
  renewablePercent: { path: Terms.Green.Fraction, unit: fraction, default: 0 }
  cancellationFee: { path: 'Price.Charges.Charge[Type=EARLY_EXIT].Cents', unit: cents, default: 0 }
`;

const GRIDCO_SDL = /* GraphQL */ `
  type Query { gridcoOffers(postal: String!, customerType: CustomerType, channel: String): GridcoResponse }
  enum CustomerType { R C }
  type GridcoResponse { Envelope: Envelope }
  type Envelope { Body: Body }
  type Body { Offers: Offers }
  type Offers { Offer: [GridOffer] }
  type GridOffer { Header: Header Service: Service Terms: Terms Price: Price }
  type Header { Id: ID! Title: String Supplier: Supplier CustomerType: CustomerType }
  type Supplier { Name: String }
  type Service { Tdu: Tdu }
  type Tdu { Code: String }
  type Terms { PriceType: String DurationYears: Float Green: Green }
  type Green { Fraction: Float }
  type Price { Energy: Energy Charges: Charges }
  type Energy { Tier: [Tier!] }
  type Tier { FromMwh: Float ToMwh: Float UsdPerMwh: String }
  type Charges { Charge: [Charge] }
  type Charge { Type: String! Cents: Int ThresholdMwh: Float }
`;

const gridcoOffer = () => ({
  Header: { Id: 'GC-1', Title: 'Grid Saver 2yr', Supplier: { Name: 'GridCo' }, CustomerType: 'R' },
  Service: { Tdu: { Code: 'ONCOR' } },
  Terms: { PriceType: 'FX', DurationYears: 2, Green: { Fraction: 0.25 } },
  Price: {
    Energy: {
      Tier: [
        { FromMwh: 0, ToMwh: 1, UsdPerMwh: '120.55' },
        { FromMwh: 1, ToMwh: null, UsdPerMwh: '99.9' },
      ],
    },
    Charges: {
      Charge: [
        { Type: 'MONTHLY', Cents: 995 },
        { Type: 'BILL_CREDIT', Cents: 5000, ThresholdMwh: 1.5 },
        { Type: 'EARLY_EXIT', Cents: 15000 },
      ],
    },
  },
});

describe('a third feed in a new shape, added with YAML alone', () => {
  const gridco = compileFeedMapping('Gridco', yaml(GRIDCO_YAML)) as FeedBinding<'offers'>;

  it('validates against its schema', () => {
    expect(() => validateAgainstSchema(gridco, buildSchema(GRIDCO_SDL))).not.toThrow();
    expect(gridco.selectionSet).toBe(
      '{ Envelope { Body { Offers { Offer { Header { Id Supplier { Name } Title CustomerType } Service { Tdu { Code } } Terms { PriceType ' +
        'DurationYears Green { Fraction } } Price { Energy { Tier { FromMwh ToMwh UsdPerMwh } } Charges { Charge { Type Cents ThresholdMwh } } } } } } } }',
    );
    expect(gridco.timeoutMs).toBe(3000);
  });

  it('maps $/MWh prices, terms in years and MWh thresholds exactly', () => {
    const out = gridco.map({ Envelope: { Body: { Offers: { Offer: [gridcoOffer()] } } } });
    expect(out.rejected).toEqual([]);
    expect(out.records).toEqual([
      {
        feed: 'Gridco',
        offerId: 'GC-1',
        supplierName: 'GridCo',
        title: 'Grid Saver 2yr',
        customerClass: 'RESIDENTIAL',
        utilityId: 'ONCOR',
        rateType: 'FIXED',
        termMonths: 24,
        energyBlocks: [
          { fromKwh: 0, toKwh: 1000, microUsdPerKwh: 120_550 },
          { fromKwh: 1000, toKwh: null, microUsdPerKwh: 99_900 },
        ],
        baseMonthlyMicro: 9_950_000,
        credits: [{ minKwh: 1500, micro: 50_000_000 }],
        minimumUsageFee: null,
        renewablePercent: 25,
        cancellationFeeMicro: 150_000_000,
        enrollmentFeeMicro: 0,
      },
    ]);
  });

  it('has the same canonical shape as the other suppliers', () => {
    const [g] = gridco.map({ Envelope: { Body: { Offers: { Offer: [gridcoOffer()] } } } }).records;
    const [v] = voltify.map({ offers: [voltifyOffer()] }).records;
    expect(misfits(g, OFFER_SHAPE)).toEqual([]);
    expect(Object.keys(g!)).toEqual(Object.keys(v!));
  });

  it('maps its arguments', () => {
    expect(gridco.args({ zipCode: '75001', customerClass: 'COMMERCIAL' })).toEqual({
      postal: '75001',
      customerType: 'C',
      channel: 'partner',
    });
    expect(gridco.args({})).toEqual({ channel: 'partner' });
  });

  it('handles its own malformed records and payloads', () => {
    const half = gridcoOffer();
    half.Terms.DurationYears = 1.05; // 12.6 months
    const tooPrecise = gridcoOffer();
    tooPrecise.Price.Energy.Tier[0]!.UsdPerMwh = '120.5555';
    const out = gridco.map({ Envelope: { Body: { Offers: { Offer: [half, tooPrecise, gridcoOffer()] } } } });
    expect(out.records).toHaveLength(1);
    expect(out.rejected.map((r) => r.index)).toEqual([0, 1]);
    expect(out.rejected[0]!.reason).toMatch(/termMonths .*not a whole number of months/);
    expect(out.rejected[1]!.reason).toMatch(/energyBlocks\[0\]\.price .*more than 3 decimal places of USD\/MWh/);
    expect(() => gridco.map({ Envelope: { Body: null } })).toThrow(FeedPayloadError);
    expect(() => gridco.map({ Envelope: { Body: { Offers: { Offer: { Header: {} } } } } })).toThrow(FeedPayloadError);
  });

  it('a flat price (one energy block from the record itself) needs no list', () => {
    const cfg = yaml(GRIDCO_YAML) as Record<string, any>;
    cfg.fields.energyBlocks = { fields: { price: { path: 'Price.FlatUsdPerMwh', unit: 'usd_per_mwh' } } };
    const b = compileFeedMapping('Gridco', cfg);
    const o: Record<string, any> = gridcoOffer();
    o.Price.FlatUsdPerMwh = 87.5;
    const [r] = b.map({ Envelope: { Body: { Offers: { Offer: [o] } } } }).records as CanonicalOffer[];
    expect(r!.energyBlocks).toEqual([{ fromKwh: 0, toKwh: null, microUsdPerKwh: 87_500 }]);
  });

  it('rejects a wrong path of the new feed at start-up, naming the key', () => {
    const cfg = yaml(GRIDCO_YAML.replace('Service.Tdu.Code', 'Service.Tdu.Id')) as Record<string, any>;
    expect(() => validateAgainstSchema(compileFeedMapping('Gridco', cfg), buildSchema(GRIDCO_SDL))).toThrow(
      /^feed Gridco: fields\.utilityId: path Envelope\.Body\.Offers\.Offer\[\]\.Service\.Tdu\.Id: Envelope\.Body\.Offers\.Offer\[\]\.Service\.Tdu has no field "Id"/,
    );
  });
});

// ------------------------------------------------------------------------------------ property test

/** An exact decimal with at most `places` decimals, as the JSON number a feed would send, and its scaled integer. */
const decimal = (max: number, places: number) => fc.integer({ min: 0, max }).map((n) => ({ json: n / 10 ** places, scaled: n }));

const voltifyRecord = fc
  .record({
    offerId: fc.string({ minLength: 1, maxLength: 20 }),
    supplierName: fc.string({ minLength: 1, maxLength: 20 }),
    productName: fc.string({ minLength: 1, maxLength: 30 }),
    customerClass: fc.constantFrom('Residential', 'Commercial'),
    utilityCode: fc.constantFrom('ONCOR', 'CNP', 'AEPTCC', 'TNMP'),
    rateStructure: fc.constantFrom('Fixed', 'Variable', 'Indexed'),
    termMonths: fc.integer({ min: 0, max: 60 }),
    bounds: fc.uniqueArray(fc.integer({ min: 1, max: 100_000 }), { maxLength: 4 }),
    lastOpen: fc.boolean(),
    cents: fc.array(decimal(5_000_000, 4), { minLength: 5, maxLength: 5 }), // up to 5 USD/kWh, the hard plausibility bound
    base: fc.option(decimal(100_000_000, 6), { nil: undefined }),
    credits: fc.array(fc.record({ minKwh: fc.integer({ min: 0, max: 5000 }), usd: decimal(500_000_000, 6) }), { maxLength: 3 }),
    minimum: fc.option(fc.record({ belowKwh: fc.integer({ min: 0, max: 5000 }), usd: decimal(100_000_000, 6) }), { nil: null }),
    renewable: fc.option(
      fc.integer({ min: 0, max: 1000 }).map((n) => n / 10),
      { nil: undefined },
    ),
    cancel: decimal(1_000_000_000, 6),
    enroll: decimal(100_000_000, 6),
    moneyAsText: fc.boolean(),
  })
  .map((r) => {
    const edges = [0, ...[...r.bounds].sort((a, b) => a - b)];
    const blocks = edges.map((from, i) => ({
      fromKwh: from,
      toKwh: i + 1 < edges.length ? edges[i + 1]! : r.lastOpen ? null : from + 1000,
      cents: r.moneyAsText ? String(r.cents[i]!.json) : r.cents[i]!.json,
      micro: r.cents[i]!.scaled, // 1 cent = 10^4 micro, and cents have 4 decimals
    }));
    const json: Record<string, unknown> = {
      offerId: r.offerId,
      supplierName: r.supplierName,
      productName: r.productName,
      customerClass: r.customerClass,
      utilityCode: r.utilityCode,
      rateStructure: r.rateStructure,
      termMonths: r.termMonths,
      energyChargeCentsPerKwh: blocks.map(({ micro: _m, ...b }) => b),
      usageCredits: r.credits.map((c) => ({ minKwh: c.minKwh, creditUsd: c.usd.json })),
      minimumUsage: r.minimum && { belowKwh: r.minimum.belowKwh, feeUsd: r.minimum.usd.json },
      cancellationFeeUsd: r.cancel.json,
      enrollmentFeeUsd: r.enroll.json,
    };
    if (r.base) json.baseChargeUsdPerMonth = r.moneyAsText ? String(r.base.json) : r.base.json;
    if (r.renewable !== undefined) json.renewablePercent = r.renewable;
    const expected = {
      blocks: blocks.map((b) => b.micro),
      base: r.base?.scaled ?? 0,
      credits: r.credits.map((c) => c.usd.scaled),
      minimum: r.minimum?.usd.scaled ?? null,
      cancel: r.cancel.scaled,
      enroll: r.enroll.scaled,
    };
    return { json, expected };
  });

describe('property: random valid Voltify records', () => {
  it('always map without rejection, with exact integer money', () => {
    fc.assert(
      fc.property(fc.uniqueArray(voltifyRecord, { selector: (r) => r.json.offerId, maxLength: 8 }), (recs) => {
        const out = voltify.map({ offers: recs.map((r) => r.json) });
        expect(out.rejected).toEqual([]);
        expect(out.records).toHaveLength(recs.length);
        out.records.forEach((o, i) => {
          const want = recs[i]!.expected;
          const money = [
            o.baseMonthlyMicro,
            o.cancellationFeeMicro,
            o.enrollmentFeeMicro,
            ...o.energyBlocks.map((b) => b.microUsdPerKwh),
            ...o.credits.map((c) => c.micro),
            ...(o.minimumUsageFee ? [o.minimumUsageFee.micro] : []),
          ];
          for (const m of money) expect(Number.isSafeInteger(m) && m >= 0).toBe(true);
          expect(o.energyBlocks.map((b) => b.microUsdPerKwh)).toEqual(want.blocks);
          expect(o.baseMonthlyMicro).toBe(want.base);
          expect(o.credits.map((c) => c.micro)).toEqual(want.credits);
          expect(o.minimumUsageFee?.micro ?? null).toBe(want.minimum);
          expect(o.cancellationFeeMicro).toBe(want.cancel);
          expect(o.enrollmentFeeMicro).toBe(want.enroll);
          expect(o.feed).toBe('Voltify');
          expect(misfits(o, OFFER_SHAPE)).toEqual([]);
        });
      }),
      { numRuns: 300 },
    );
  });
});
