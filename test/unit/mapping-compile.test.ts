import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSchema, parse, validate, type GraphQLSchema } from 'graphql';
import { loadYaml } from '@graphql-mesh/utils';
import { describe, expect, it } from 'vitest';
import FeedMappingTransform from '../../transforms/feed-mapping.js';
import {
  bindingsFromConfig,
  compileFeedMapping,
  compiledMapping,
  FeedConfigError,
  validateAgainstSchema,
  type CompiledFeedBinding,
} from '../../transforms/mapping/index.js';

const MESHRC = fileURLToPath(new URL('../../.meshrc.yaml', import.meta.url));
const quiet = { log() {}, warn() {}, info() {}, error() {}, debug() {}, child: () => quiet } as never;
const meshConfig = loadYaml(MESHRC, readFileSync(MESHRC, 'utf8'), quiet) as { sources: any[] };
const transformOf = (source: string): Record<string, any> => {
  const s = meshConfig.sources.find((x) => x.name === source);
  const t = s.transforms.find((t: object) => Object.keys(t).some((k) => k.endsWith('feed-mapping.ts')));
  return structuredClone(t[Object.keys(t)[0]!]);
};

/**
 * The sources' schemas shaped as Mesh's handlers generate them (see test/unit/mapping-mesh.test.ts for
 * the real thing): Voltify's operation returns a union with its error response, and a JSON Schema enum
 * `fixed-rate` becomes the GraphQL enum value `fixed_rate`.
 */
const SDL = /* GraphQL */ `
  type Query {
    territoriesByZip(zip: String!): TerritoriesResponse
    listOffers(zip: String!, utility: String, class: VoltifyCustomerClassParam!): listOffers_response
    brightgridPlans(zip: String!, segment: String): BrightgridResponse
    stateStatistics(state: String!): StateStatistics
    eiaRetailSales(state: String): EiaRetailSalesResponse
    eiaGeneration(state: String): EiaOperationalDataResponse
    residentialSalesByMonth(state: String!): MonthlySalesResponse
    premisesSearch(zip: String, address: String): PremisesResponse
    somethingElse: String
  }
  type TerritoriesResponse { zip: String! utilities: [Utility!]! }
  type Utility {
    utilityId: String! name: String! state: String! timeZone: String! market: Market! ownership: Ownership
    delivery: Delivery bundledRate: Bundled priceToCompare: Ptc switching: Switching! calendar: Calendar! holidays: [String!]
    deliveryHistory: [Delivery!] pricesToCompare: [PtcPeriod!] choiceCapPercent: Float trailingSupplyPrice: Trailing
    commercialTrailingSupplyPrice: Trailing
  }
  enum PtcClass { RESIDENTIAL COMMERCIAL }
  type PtcPeriod { usdPerKwh: Float! effective: String! expires: String! season: String customerClass: PtcClass }
  type ReadCycle { cycle: String! anchorDate: String! }
  enum Market { DEREGULATED REGULATED }
  enum Ownership { IOU MUNICIPAL COOP }
  type Delivery { effective: String! status: String residential: Charges! commercial: Charges! }
  type Trailing { usdPerKwh: Float! from: String! to: String! }
  type Charges { fixedMonthlyUsd: Float! perKwhUsd: Float! }
  type Bundled { fixedMonthlyUsd: Float! perKwhUsd: Float! effective: String! }
  type Ptc { usdPerKwh: Float! effective: String! expires: String! }
  enum SwitchingKind { OFF_CYCLE ACCELERATED METER_READ }
  type Switching {
    kind: SwitchingKind! leadBusinessDays: Int! meterReadCycleDays: Int meterReadAnchorDate: String meterReadDates: [String!]
    sameDayCutoff: String rescissionDays: Int meterReadCycles: [ReadCycle!]
  }
  type Calendar { name: String! holidays: [HolidayRule!]! }
  type HolidayRule { name: String! rule: String! }

  enum VoltifyCustomerClassParam { residential commercial }
  union listOffers_response = VoltifyOffersResponse | VoltifyError
  type VoltifyError { error: String! }
  type VoltifyOffersResponse { offers: [Offer]! }
  type Offer {
    offerId: String! supplierName: String! productName: String! customerClass: CustomerClassV! utilityCode: String!
    rateStructure: RateStructure! termMonths: Int! energyChargeCentsPerKwh: [EnergyCharge!]!
    baseChargeUsdPerMonth: Float usageCredits: [UsageCredit!] minimumUsage: MinimumUsage
    renewablePercent: Float cancellationFeeUsd: Float enrollmentFeeUsd: Float approvedPriceCentsPerKwh: Float
  }
  enum CustomerClassV { Residential Commercial }
  enum RateStructure { Fixed Variable Indexed }
  type EnergyCharge { fromKwh: Int! toKwh: Int cents: Float! }
  type UsageCredit { minKwh: Int! maxKwh: Int creditUsd: Float! }
  type MinimumUsage { belowKwh: Int! feeUsd: Float! }

  type BrightgridResponse { data: BrightgridData }
  type BrightgridData { zip: String plans: [Plan!]! }
  type Plan {
    id: ID! provider: Provider! name: String! segment: String! territory: String! contract: Contract!
    pricing: Pricing! green: Green fees: Fees
  }
  type Provider { displayName: String! }
  type Contract { lengthMonths: Int! type: BrightgridContractType! }
  enum BrightgridContractType { fixed_rate variable_rate indexed }
  type Pricing { currency: String components: [Component!]! }
  type Component { kind: ComponentKind! unit: String amount: Float! tierMinKwh: Int tierMaxKwh: Int thresholdKwh: Int }
  enum ComponentKind { ENERGY BASE CREDIT MIN_USAGE_FEE }
  type Green { percent: Float approvedPriceUsdPerKwh: Float }
  type Fees { earlyTermination: Float enrollment: Float }

  type StateStatistics {
    state: String! name: String! year: Int! averageRetailPrice: AverageRetailPrice! generationMwh: Generation!
  }
  type AverageRetailPrice { residentialCentsPerKwh: Float! commercialCentsPerKwh: Float! }
  type Generation {
    coal: Float petroleum: Float naturalGas: Float otherGases: Float nuclear: Float hydroelectricConventional: Float
    otherRenewables: Float pumpedStorage: Float other: Float
  }

  type EiaRetailSalesResponse { response: EiaRetailSalesData! }
  type EiaRetailSalesData { data: [EiaRetailSalesRow] }
  type EiaRetailSalesRow { period: String! stateid: String! stateDescription: String sectorid: String! sectorName: String price: String dataStatus: String }
  type EiaOperationalDataResponse { response: EiaOperationalData! }
  type EiaOperationalData { data: [EiaOperationalDataRow] }
  type EiaOperationalDataRow {
    period: String! location: String! stateDescription: String sectorid: String fueltypeid: String! generation: String dataStatus: String
  }
  type MonthlySalesResponse { state: String! series: [SalesSeries!]! }
  type SalesSeries { state: String! year: Int! sector: String! unit: String! source: String data: [MonthlySales!]! }
  type MonthlySales { period: String! month: Int! salesThousandMwh: Float! }

  type PremisesResponse { matches: [Premise!]! }
  type Premise {
    accountId: String! idType: String serviceAddress: Address! utilityId: String! meterType: String status: String!
    premiseType: String meterReadCycle: String
  }
  type Address { line1: String! line2: String city: String! state: String! zip: String! }
`;
const schema = buildSchema(SDL);

function configError(fn: () => unknown): FeedConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FeedConfigError);
    return e as FeedConfigError;
  }
  throw new Error('expected a FeedConfigError');
}

function compileAndValidate(source: string, config: unknown, s: GraphQLSchema = schema): CompiledFeedBinding {
  const b = compileFeedMapping(source, config);
  validateAgainstSchema(b, s);
  return b;
}

describe('the .meshrc.yaml mappings', () => {
  const bindings = bindingsFromConfig(meshConfig);

  it('are all found, in order, with their kinds', () => {
    expect(bindings.map((b) => [b.source, b.kind, b.operation])).toEqual([
      ['Territories', 'territories', 'territoriesByZip'],
      ['Voltify', 'offers', 'listOffers'],
      ['Brightgrid', 'offers', 'brightgridPlans'],
      // EIA's API v2: one source, one block per route, merged by state.
      ['Eia', 'stateStats', 'eiaRetailSales'],
      ['Eia', 'stateStats', 'eiaGeneration'],
      ['EiaMonthlySales', 'usageShape', 'residentialSalesByMonth'],
      ['Premises', 'premises', 'premisesSearch'],
    ]);
    expect(bindings.find((b) => b.source === 'Voltify')).toMatchObject({ timeoutMs: 2500, sampleZip: '75001' });
    expect(bindings.find((b) => b.source === 'Eia')).toMatchObject({ sampleState: 'TX' });
  });

  it('validate against the sources schemas, and their selection sets are valid queries', () => {
    for (const b of bindings) {
      validateAgainstSchema(b, schema);
      const args = Object.keys(b.args({ zipCode: '75001', utilityId: 'ONCOR', customerClass: 'RESIDENTIAL', state: 'TX', address: 'x' }));
      const field = schema.getQueryType()!.getFields()[b.operation]!;
      const vars = args.map((a) => `$${a}: ${String(field.args.find((x) => x.name === a)!.type)}`);
      const doc = parse(
        `query Q${vars.length ? `(${vars.join(', ')})` : ''} { ` +
          `${b.operation}${args.length ? `(${args.map((a) => `${a}: $${a}`).join(', ')})` : ''} ${b.selectionSet} }`,
      );
      expect(validate(schema, doc), b.source).toEqual([]);
    }
  });

  it('selects the filter keys of filtered lists', () => {
    const bg = bindings.find((b) => b.source === 'Brightgrid')!;
    expect(bg.selectionSet).toBe(
      '{ data { plans { id provider { displayName } name segment territory contract { type lengthMonths } pricing { components { kind ' +
        'tierMinKwh tierMaxKwh amount thresholdKwh } } green { percent approvedPriceUsdPerKwh } fees { earlyTermination enrollment } } } }',
    );
  });

  it('map our inputs onto the feeds arguments, leaving out undefined ones', () => {
    const [territories, voltify, brightgrid, eia, eiaGeneration, sales, premises] = bindings;
    expect(voltify!.args({ zipCode: '75001', customerClass: 'COMMERCIAL' })).toEqual({ zip: '75001', class: 'commercial' });
    expect(voltify!.args({ zipCode: '75001', utilityId: 'ONCOR', customerClass: 'RESIDENTIAL' })).toEqual({
      zip: '75001',
      utility: 'ONCOR',
      class: 'residential',
    });
    expect(brightgrid!.args({ zipCode: '75001', customerClass: 'COMMERCIAL' })).toEqual({ zip: '75001', segment: 'SMB' });
    expect(territories!.args({ zipCode: '75001', state: 'TX' })).toEqual({ zip: '75001' });
    expect(eia!.args({ state: 'TX' })).toEqual({ state: 'TX' });
    expect(eia!.args({})).toEqual({});
    expect(eiaGeneration!.args({ state: 'TX' })).toEqual({ state: 'TX' });
    expect(sales!.args({ state: 'TX', zipCode: '75001' })).toEqual({ state: 'TX' });
    expect(premises!.args({ zipCode: '75201', address: '1500 MARILLA ST' })).toEqual({ zip: '75201', address: '1500 MARILLA ST' });
  });
});

describe('bindingsFromConfig', () => {
  const voltify = transformOf('Voltify');
  it('takes a list of stateStats blocks on one source (EIA v2), which together name every field', () => {
    const eia = transformOf('Eia') as unknown as Record<string, unknown>[];
    expect(Array.isArray(eia)).toBe(true);
    const bs = bindingsFromConfig({ sources: [{ name: 'E', handler: {}, transforms: [{ 'feed-mapping': eia }] }] });
    expect(bs.map((b) => [b.source, b.operation])).toEqual([
      ['E', 'eiaRetailSales'],
      ['E', 'eiaGeneration'],
    ]);
    // Without the generation block nothing maps the generation mix.
    expect(() => bindingsFromConfig({ sources: [{ name: 'E', handler: {}, transforms: [{ 'feed-mapping': [eia[0]] }] }] })).toThrow(
      /feed E: fields: required: none of its mapping blocks names generation|the mapping does not name generation/,
    );
    // Offers feeds have one block per source.
    expect(() =>
      bindingsFromConfig({ sources: [{ name: 'V', handler: {}, transforms: [{ 'feed-mapping': [voltify, voltify] }] }] }),
    ).toThrow(/several mapping blocks on one source are for stateStats feeds only/);
    expect(() => bindingsFromConfig({ sources: [{ name: 'V', handler: {}, transforms: [{ 'feed-mapping': [] }] }] })).toThrow(/empty list/);
  });

  it('recognises the transform by any key ending in feed-mapping.ts, or feed-mapping', () => {
    const bs = bindingsFromConfig({
      sources: [
        { name: 'A', handler: {}, transforms: [{ '@local/transforms/feed-mapping.ts': voltify }] },
        { name: 'B', handler: {}, transforms: [{ filterSchema: { filters: [] } }, { 'feed-mapping': voltify }] },
        { name: 'C', handler: {}, transforms: [{ filterSchema: { filters: [] } }] },
        { name: 'D', handler: {} },
      ],
    });
    expect(bs.map((b) => b.source)).toEqual(['A', 'B']);
  });

  it('rejects duplicates and unnamed sources, naming them', () => {
    expect(
      configError(() =>
        bindingsFromConfig({
          sources: [{ name: 'A', transforms: [{ 'feed-mapping': voltify }, { './transforms/feed-mapping.ts': voltify }] }],
        }),
      ).source,
    ).toBe('A');
    expect(
      configError(() =>
        bindingsFromConfig({
          sources: [
            { name: 'A', transforms: [{ 'feed-mapping': voltify }] },
            { name: 'A', transforms: [{ 'feed-mapping': voltify }] },
          ],
        }),
      ).key,
    ).toBe('name');
    expect(configError(() => bindingsFromConfig({ sources: [{ transforms: [{ 'feed-mapping': voltify }] }] })).source).toBe('sources[0]');
    expect(bindingsFromConfig({})).toEqual([]);
  });

  it('names source and key of a bad mapping', () => {
    const bad = { ...voltify, fields: { ...voltify.fields, termMonths: { path: 'termMonths', unit: 'decades' } } };
    const e = configError(() => bindingsFromConfig({ sources: [{ name: 'Zap', transforms: [{ './transforms/feed-mapping.ts': bad }] }] }));
    expect(e.source).toBe('Zap');
    expect(e.key).toBe('fields.termMonths.unit');
  });
});

describe('config errors (compile), each naming the feed and the key', () => {
  const voltify = () => transformOf('Voltify');
  const withField = (key: string, spec: unknown) => {
    const c = voltify();
    if (spec === undefined) delete c.fields[key];
    else c.fields[key] = spec;
    return c;
  };

  it('unknown kind', () => {
    const e = configError(() => compileFeedMapping('Voltify', { ...voltify(), kind: 'plans' }));
    expect(e.key).toBe('kind');
    expect(e.message).toMatch(/^feed Voltify: kind: unknown kind "plans"/);
  });

  it('missing kind, operation or fields', () => {
    const { kind: _k, ...noKind } = voltify();
    expect(configError(() => compileFeedMapping('Voltify', noKind)).key).toBe('kind');
    const { operation: _o, ...noOp } = voltify();
    expect(configError(() => compileFeedMapping('Voltify', noOp)).key).toBe('operation');
    const { fields: _f, ...noFields } = voltify();
    expect(configError(() => compileFeedMapping('Voltify', noFields)).key).toBe('fields');
  });

  it('a missing required canonical field', () => {
    const e = configError(() => compileFeedMapping('Voltify', withField('offerId', undefined)));
    expect(e.key).toBe('fields.offerId');
    expect(e.message).toContain('feed Voltify');
    expect(e.message).toContain('required for kind offers');
    expect(
      configError(() =>
        compileFeedMapping('Voltify', withField('energyBlocks', { items: 'energyChargeCentsPerKwh', fields: { fromKwh: 'fromKwh' } })),
      ).key,
    ).toBe('fields.energyBlocks.fields.price');
  });

  it('an unknown unit, a unit of the wrong kind, and money without a unit', () => {
    const e = configError(() =>
      compileFeedMapping('Voltify', withField('baseMonthly', { path: 'baseChargeUsdPerMonth', unit: 'dollars' })),
    );
    expect(e.key).toBe('fields.baseMonthly.unit');
    expect(e.message).toContain('unknown unit "dollars"');
    const wrongDim = configError(() => compileFeedMapping('Voltify', withField('termMonths', { path: 'termMonths', unit: 'usd' })));
    expect(wrongDim.key).toBe('fields.termMonths.unit');
    expect(wrongDim.message).toContain('usd is money, but termMonths is duration');
    expect(configError(() => compileFeedMapping('Voltify', withField('baseMonthly', 'baseChargeUsdPerMonth'))).key).toBe(
      'fields.baseMonthly.unit',
    );
    expect(configError(() => compileFeedMapping('Voltify', withField('title', { path: 'productName', unit: 'usd' }))).key).toBe(
      'fields.title.unit',
    );
  });

  it('unknown canonical keys and keys set automatically', () => {
    expect(configError(() => compileFeedMapping('Voltify', withField('colour', 'x'))).key).toBe('fields.colour');
    const e = configError(() => compileFeedMapping('Voltify', withField('feed', { const: 'Other' })));
    expect(e.key).toBe('fields.feed');
    expect(e.message).toContain('source name');
  });

  it('unknown settings and spec keys', () => {
    expect(configError(() => compileFeedMapping('Voltify', { ...voltify(), feilds: {} })).key).toBe('feilds');
    expect(configError(() => compileFeedMapping('Voltify', withField('title', { path: 'productName', dflt: 'x' }))).key).toBe(
      'fields.title.dflt',
    );
  });

  it('bad paths, defaults and consts', () => {
    expect(configError(() => compileFeedMapping('Voltify', withField('title', 'product..name'))).key).toBe('fields.title.path');
    expect(
      configError(() => compileFeedMapping('Voltify', withField('baseMonthly', { path: 'b', unit: 'usd', default: 'free' }))).key,
    ).toBe('fields.baseMonthly.default');
    expect(configError(() => compileFeedMapping('Voltify', withField('rateType', { const: 'CHEAP' }))).key).toBe('fields.rateType.const');
    expect(configError(() => compileFeedMapping('Voltify', withField('title', { path: 'a', const: 'b' }))).key).toBe('fields.title');
    expect(configError(() => compileFeedMapping('Voltify', withField('credits', { const: [{ minKwh: 1 }] }))).key).toBe(
      'fields.credits.const',
    );
    expect(configError(() => compileFeedMapping('Voltify', withField('energyBlocks', { const: [] }))).key).toBe(
      'fields.energyBlocks.const',
    );
  });

  it('bad args', () => {
    const c = voltify();
    expect(configError(() => compileFeedMapping('Voltify', { ...c, args: { zip: 'postcode' } })).key).toBe('args.zip');
    expect(configError(() => compileFeedMapping('Voltify', { ...c, args: { zip: { from: 'zip' } } })).key).toBe('args.zip.from');
    expect(configError(() => compileFeedMapping('Voltify', { ...c, args: { zip: { const: 'a', from: 'zipCode' } } })).key).toBe('args.zip');
    expect(configError(() => compileFeedMapping('Voltify', { ...c, args: { zip: 5 } })).key).toBe('args.zip');
    expect(configError(() => compileFeedMapping('Voltify', { ...c, args: { zip: { from: 'zipCode', map: { a: { b: 1 } } } } })).key).toBe(
      'args.zip.map.a',
    );
  });

  it('bad settings', () => {
    expect(configError(() => compileFeedMapping('Voltify', { ...voltify(), timeoutMs: -5 })).key).toBe('timeoutMs');
    expect(configError(() => compileFeedMapping('Voltify', { ...voltify(), sampleZip: 75001 })).key).toBe('sampleZip');
    expect(configError(() => compileFeedMapping('Voltify', null)).source).toBe('Voltify');
  });

  it('lists every problem in one error', () => {
    const c = withField('colour', 'x');
    c.kind = 'offers';
    c.fields.termMonths = { path: 'termMonths', unit: 'decades' };
    delete c.fields.offerId;
    const e = configError(() => compileFeedMapping('Voltify', c));
    expect(e.message).toContain('and 2 more');
    expect(e.message).toContain('fields.offerId');
    expect(e.message).toContain('fields.termMonths.unit');
  });

  it('const args and defaults for timeouts', () => {
    const b = compileFeedMapping('Voltify', { ...voltify(), timeoutMs: undefined, args: { zip: 'zipCode', channel: { const: 'web' } } });
    expect(b.timeoutMs).toBe(2000);
    expect(b.args({})).toEqual({ channel: 'web' });
  });
});

describe('config errors (against the source schema)', () => {
  const voltify = () => transformOf('Voltify');
  const brightgrid = () => transformOf('Brightgrid');

  it('an unknown path', () => {
    const c = voltify();
    c.fields.title = 'productTitle';
    const e = configError(() => compileAndValidate('Voltify', c));
    expect(e.key).toBe('fields.title');
    expect(e.message).toMatch(/^feed Voltify: fields\.title: path offers\.productTitle: offers has no field "productTitle"/);
  });

  it('an unknown path inside a list, an object path and the items path', () => {
    const c = voltify();
    c.fields.energyBlocks.fields.price.path = 'centsPerKwh';
    expect(configError(() => compileAndValidate('Voltify', c)).key).toBe('fields.energyBlocks.fields.price');
    const d = voltify();
    d.fields.minimumUsageFee.path = 'minimumUsageFee';
    const e = configError(() => compileAndValidate('Voltify', d));
    expect(e.key).toBe('fields.minimumUsageFee.path');
    expect(e.message).not.toContain('fields.minimumUsageFee.fields'); // children of a failed path are not reported again
    expect(configError(() => compileAndValidate('Voltify', { ...voltify(), items: 'results' })).key).toBe('items');
  });

  it('an operation that does not exist, or that is not an object', () => {
    expect(configError(() => compileAndValidate('Voltify', { ...voltify(), operation: 'listPlans' })).key).toBe('operation');
    expect(
      configError(() =>
        compileAndValidate('Voltify', { ...voltify(), operation: 'somethingElse', resultType: undefined, items: undefined }),
      ).key,
    ).toBe('operation');
  });

  it('arguments: unknown, unmapped required, wrong enum values', () => {
    const c = voltify();
    c.args = { ...c.args, page: { const: 2 } };
    expect(configError(() => compileAndValidate('Voltify', c)).key).toBe('args.page');
    const d = voltify();
    delete d.args.zip;
    expect(configError(() => compileAndValidate('Voltify', d)).key).toBe('args.zip');
    const e = voltify();
    e.args.class = { from: 'customerClass', map: { RESIDENTIAL: 'RES', COMMERCIAL: 'commercial' } };
    const err = configError(() => compileAndValidate('Voltify', e));
    expect(err.key).toBe('args.class');
    expect(err.message).toContain('"RES" is not a value of the argument\'s enum (residential, commercial)');
    const f = voltify();
    f.args.class = 'customerClass';
    expect(configError(() => compileAndValidate('Voltify', f)).key).toBe('args.class');
  });

  it('leaf types that do not suit the unit or the canonical field', () => {
    const c = voltify();
    c.fields.title = 'termMonths'; // Int for text
    expect(configError(() => compileAndValidate('Voltify', c)).key).toBe('fields.title');
    const d = voltify();
    d.fields.termMonths = { path: 'productName', unit: 'months' }; // String for a duration
    expect(configError(() => compileAndValidate('Voltify', d)).message).toContain('text is accepted for money units only');
    const e = voltify();
    e.fields.baseMonthly = { path: 'rateStructure', unit: 'usd' }; // enum for money
    expect(configError(() => compileAndValidate('Voltify', e)).key).toBe('fields.baseMonthly');
    const f = voltify();
    f.fields.baseMonthly = { path: 'productName', unit: 'usd' }; // String for money: decimal strings are fine
    expect(() => compileAndValidate('Voltify', f)).not.toThrow();
  });

  it('objects where a value is needed, lists where one value is needed, and the reverse', () => {
    const c = voltify();
    c.fields.title = 'minimumUsage';
    expect(configError(() => compileAndValidate('Voltify', c)).message).toContain(
      'path offers.minimumUsage is an object; map a field of it',
    );
    const d = voltify();
    d.fields.title = 'energyChargeCentsPerKwh.cents';
    expect(() => compileAndValidate('Voltify', d)).toThrow(FeedConfigError); // Float for text
    const e = brightgrid();
    e.fields.minimumUsageFee.path = 'pricing.components';
    expect(configError(() => compileAndValidate('Brightgrid', e)).message).toContain('pick one element');
    const f = voltify();
    f.fields.credits.items = 'minimumUsage';
    expect(configError(() => compileAndValidate('Voltify', f)).message).toContain('not a list');
  });

  it('filters: unknown key, non-enum value, on a non-list', () => {
    const c = brightgrid();
    c.fields.energyBlocks.items = 'pricing.components[type=ENERGY]';
    expect(configError(() => compileAndValidate('Brightgrid', c)).message).toContain(
      'the elements of components have no field "type" to filter on',
    );
    const d = brightgrid();
    d.fields.baseMonthly.path = 'pricing.components[kind=FIXED].amount';
    expect(configError(() => compileAndValidate('Brightgrid', d)).message).toContain('"FIXED" is not a value of kind');
    const e = brightgrid();
    e.fields.title = 'name[kind=X]';
    expect(configError(() => compileAndValidate('Brightgrid', e)).message).toContain('not a list');
  });

  it('enum map keys that are not values of the feed enum (e.g. the JSON spelling of a sanitised name)', () => {
    const c = brightgrid();
    c.fields.rateType.map = { 'fixed-rate': 'FIXED', 'variable-rate': 'VARIABLE', indexed: 'INDEXED' };
    const e = configError(() => compileAndValidate('Brightgrid', c));
    expect(e.key).toBe('fields.rateType');
    expect(e.message).toContain(
      '"fixed-rate", "variable-rate" are not values of data.plans.contract.type (fixed_rate, variable_rate, indexed)',
    );
  });

  it('feed enum values that would map to none of ours', () => {
    const c = brightgrid();
    delete c.fields.rateType.map.indexed;
    const e = configError(() => compileAndValidate('Brightgrid', c));
    expect(e.key).toBe('fields.rateType');
    expect(e.message).toContain('has values "indexed" that map to none of FIXED, VARIABLE');
    c.fields.rateType.map.indexed = null; // rejecting such records on purpose is fine
    expect(() => compileAndValidate('Brightgrid', c)).not.toThrow();
    const v = voltify();
    delete v.fields.customerClass.map; // Residential/Commercial are not ours as they are
    expect(configError(() => compileAndValidate('Voltify', v)).message).toContain(
      'offers.customerClass has values "Residential", "Commercial"',
    );
  });

  it('a union result needs resultType, naming one of its members', () => {
    const { resultType: _r, ...noResultType } = voltify();
    const e = configError(() => compileAndValidate('Voltify', noResultType));
    expect(e.key).toBe('resultType');
    expect(e.message).toContain('listOffers returns one of VoltifyOffersResponse, VoltifyError; set resultType');
    expect(configError(() => compileAndValidate('Voltify', { ...voltify(), resultType: 'VoltifyOffer' })).message).toContain(
      'listOffers returns one of VoltifyOffersResponse, VoltifyError, not VoltifyOffer',
    );
    expect(configError(() => compileAndValidate('Brightgrid', { ...brightgrid(), resultType: 'Plan' })).key).toBe('resultType');
    expect(() => compileAndValidate('Brightgrid', { ...brightgrid(), resultType: 'BrightgridResponse' })).not.toThrow();
    expect(configError(() => compileFeedMapping('Voltify', { ...voltify(), resultType: 'not a name' })).key).toBe('resultType');
  });

  it('unions inside the payload are refused with a clear message', () => {
    const s = buildSchema(SDL.replace('green: Green fees: Fees', 'green: GreenOrNot fees: Fees') + ' union GreenOrNot = Green | Fees');
    const e = configError(() => compileAndValidate('Brightgrid', brightgrid(), s));
    expect(e.key).toBe('fields.renewablePercent');
    expect(e.message).toContain('data.plans.green is one of several object types');
  });
});

describe('the Mesh transform', () => {
  const make = (apiName: string, config: unknown) =>
    new FeedMappingTransform({ apiName, config, baseDir: '.', cache: {}, pubsub: {}, importFn: async () => ({}), logger: quiet });

  it('is schema-only and returns the schema unchanged', () => {
    const t = make('Voltify', transformOf('Voltify'));
    expect(t.noWrap).toBe(true);
    expect(t.transformSchema(schema)).toBe(schema);
  });

  it("compiles a block once: the transform and the resolvers' bindings share it", () => {
    const c = transformOf('Voltify');
    make('Voltify', c).transformSchema(schema);
    const [fromConfig] = bindingsFromConfig({ sources: [{ name: 'Voltify', transforms: [{ 'feed-mapping': c }] }] });
    expect(compiledMapping('Voltify', c)).toBe(fromConfig);
  });

  it('throws FeedConfigError naming the feed and key', () => {
    const c = transformOf('Brightgrid');
    c.fields.supplierName = 'provider.name';
    const e = configError(() => make('Brightgrid', c).transformSchema(schema));
    expect(e.source).toBe('Brightgrid');
    expect(e.key).toBe('fields.supplierName');
  });
});
