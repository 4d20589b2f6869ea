// What each feed kind maps to: the canonical keys a YAML `fields:` block may (or must) name, what
// each holds, and how the mapped values become the canonical record of types.ts / canonical.ts.
//
// Field values reach `build` already read, defaulted, mapped, unit-converted and type-checked by
// compile.ts; `build` renames them into the canonical shape and checks what spans several fields
// (energy blocks contiguous from 0 kWh, ...). It throws RecordError for a record that can't be used.
import type {
  CanonicalOffer,
  CustomerClass,
  DeliveryCharges,
  EnergyBlock,
  HolidayRule,
  RateType,
  SwitchingKind,
  Territory,
  TrailingSupplyPrice,
} from '../../domain/canonical.js';
import { businessCalendar, CalendarRuleError } from '../../domain/calendar.js';
import { SWITCHING_KINDS } from '../../domain/start-date.js';
import type { CanonicalQuantity, UnitName } from './units.js';
import type {
  CallScope,
  CanonicalByKind,
  FeedInputKey,
  FeedKind,
  GenerationSource,
  ServiceAccount,
  StateStats,
  UsageShape,
} from './types.js';

/** A record that does not map; the message is its rejection reason. */
export class RecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordError';
  }
}

export type ValueType =
  /** Text; non-empty unless nullable (then null is allowed too and '' is kept). */
  | { type: 'string'; nullable?: boolean; pattern?: RegExp; patternText?: string }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'int'; min: number; max: number }
  /** A number in a unit (see units.ts); `defaultUnit` when the YAML gives none, else a unit is required. */
  | { type: 'quantity'; target: CanonicalQuantity; defaultUnit?: UnitName; integer?: boolean; nullable?: boolean; allowNegative?: boolean }
  | { type: 'stringList'; pattern?: RegExp; patternText?: string }
  | { type: 'object'; fields: FieldTable; nullable: boolean }
  | { type: 'list'; fields: FieldTable; minLength?: number };

export interface FieldDef {
  value: ValueType;
  /** Must the YAML name it? */
  required: boolean;
  /** Canonical value when the YAML does not name an optional field (undefined: key left out). */
  absent?: unknown;
}

export type FieldTable = Readonly<Record<string, FieldDef>>;

export type Values = Record<string, unknown>;

/** The inputs a feed of a kind is called with, per call scope: always given, or only sometimes. */
export interface ScopeInputs {
  always: readonly FeedInputKey[];
  sometimes: readonly FeedInputKey[];
}

export interface KindDef<K extends FeedKind> {
  kind: K;
  fields: FieldTable;
  /** The call scopes this kind supports (the first is the default) and their inputs. */
  scopes: Readonly<Partial<Record<CallScope, ScopeInputs>>>;
  /** Field whose value identifies a record; later duplicates in one payload are rejected. */
  key?: string;
  build(values: Values, source: string): CanonicalByKind[K];
}

/** Upper bound on any list inside one record (energy blocks, credits, holidays...). */
export const MAX_NESTED_ITEMS = 1000;

const RATE_TYPES: readonly RateType[] = ['FIXED', 'VARIABLE', 'INDEXED', 'TIME_OF_USE', 'PREPAID'];
const CUSTOMER_CLASSES: readonly CustomerClass[] = ['RESIDENTIAL', 'COMMERCIAL'];
const GENERATION_SOURCES: readonly GenerationSource[] = [
  'COAL',
  'PETROLEUM',
  'NATURAL_GAS',
  'OTHER_GASES',
  'NUCLEAR',
  'HYDRO',
  'OTHER_RENEWABLES',
  'PUMPED_STORAGE',
  'OTHER',
  'WIND',
  'SOLAR',
];

const req = (value: ValueType): FieldDef => ({ value, required: true });
const opt = (value: ValueType, absent?: unknown): FieldDef => ({ value, required: false, absent });

const text: ValueType = { type: 'string' };
const stateCode: ValueType = { type: 'string', pattern: /^[A-Z]{2}$/, patternText: 'a two-letter upper-case state code' };
const money: ValueType = { type: 'quantity', target: 'micro' };
const rate: ValueType = { type: 'quantity', target: 'microPerKwh' };
const kwhBound: ValueType = { type: 'quantity', target: 'kwh', defaultUnit: 'kwh', integer: true };

// ---------------------------------------------------------------------------------------------- offers

const offerFields: FieldTable = {
  offerId: req(text),
  supplierName: req(text),
  title: req(text),
  customerClass: req({ type: 'enum', values: CUSTOMER_CLASSES }),
  utilityId: req(text),
  rateType: req({ type: 'enum', values: RATE_TYPES }),
  termMonths: req({ type: 'quantity', target: 'months', defaultUnit: 'months' }),
  energyBlocks: req({
    type: 'list',
    minLength: 1,
    fields: {
      fromKwh: opt(kwhBound, 0),
      toKwh: opt({ ...kwhBound, nullable: true }, null),
      price: req(rate),
    },
  }),
  baseMonthly: req(money),
  // maxKwh: the highest usage the credit applies at (a $100 credit at 1,000 to 2,000 kWh); none: no upper bound.
  credits: opt(
    {
      type: 'list',
      fields: { minKwh: req(kwhBound), maxKwh: opt({ ...kwhBound, nullable: true } as ValueType, null), amount: req(money) },
    },
    [],
  ),
  minimumUsageFee: opt({ type: 'object', nullable: true, fields: { belowKwh: req(kwhBound), amount: req(money) } }, null),
  renewablePercent: opt({ type: 'quantity', target: 'percent', defaultUnit: 'percent' }, 0),
  cancellationFee: opt(money, 0),
  enrollmentFee: opt(money, 0),
  // The regulator-approved price of the product (Maryland green power: the PSC-approved price); null: none on record.
  approvedPrice: opt({ ...rate, nullable: true } as ValueType, null),
};

interface BlockValues {
  fromKwh: number;
  toKwh: number | null;
  price: number;
}

/** Sorted by fromKwh; must start at 0 kWh, be back to back, and only the last may be open-ended. */
function energyBlocksFrom(blocks: BlockValues[]): EnergyBlock[] {
  const sorted = [...blocks].sort((a, b) => a.fromKwh - b.fromKwh);
  let expect = 0;
  return sorted.map((b, i) => {
    if (b.fromKwh !== expect) {
      throw new RecordError(
        i === 0
          ? `energyBlocks: the first block starts at ${b.fromKwh} kWh, not 0`
          : `energyBlocks: gap or overlap at ${expect} kWh (next block starts at ${b.fromKwh} kWh)`,
      );
    }
    if (b.toKwh === null) {
      if (i !== sorted.length - 1) throw new RecordError(`energyBlocks: the block from ${b.fromKwh} kWh is open-ended but is not the last`);
    } else {
      if (b.toKwh <= b.fromKwh) throw new RecordError(`energyBlocks: the block from ${b.fromKwh} kWh ends at ${b.toKwh} kWh`);
      expect = b.toKwh;
    }
    return { fromKwh: b.fromKwh, toKwh: b.toKwh, microUsdPerKwh: b.price };
  });
}

const offers: KindDef<'offers'> = {
  kind: 'offers',
  fields: offerFields,
  // Utility-scoped answers are shared by every ZIP of the territory, so the ZIP is not an input.
  scopes: {
    request: { always: ['zipCode', 'customerClass'], sometimes: ['utilityId'] },
    utility: { always: ['utilityId', 'customerClass'], sometimes: [] },
  },
  key: 'offerId',
  build(v, source): CanonicalOffer {
    const credits = v.credits as { minKwh: number; maxKwh: number | null; amount: number }[];
    const fee = v.minimumUsageFee as { belowKwh: number; amount: number } | null;
    const offer: CanonicalOffer = {
      feed: source,
      offerId: v.offerId as string,
      supplierName: v.supplierName as string,
      title: v.title as string,
      customerClass: v.customerClass as CustomerClass,
      utilityId: v.utilityId as string,
      rateType: v.rateType as RateType,
      termMonths: v.termMonths as number,
      energyBlocks: energyBlocksFrom(v.energyBlocks as BlockValues[]),
      baseMonthlyMicro: v.baseMonthly as number,
      credits: credits.map((c) => {
        if (c.maxKwh !== null && c.maxKwh < c.minKwh) throw new RecordError(`credits: maxKwh ${c.maxKwh} is below minKwh ${c.minKwh}`);
        // Left out without an upper bound, so records without one stay as they were.
        return c.maxKwh === null ? { minKwh: c.minKwh, micro: c.amount } : { minKwh: c.minKwh, maxKwh: c.maxKwh, micro: c.amount };
      }),
      minimumUsageFee: fee ? { belowKwh: fee.belowKwh, micro: fee.amount } : null,
      renewablePercent: v.renewablePercent as number,
      cancellationFeeMicro: v.cancellationFee as number,
      enrollmentFeeMicro: v.enrollmentFee as number,
    };
    // Left out when the feed has none, so records without one stay as they were.
    if (v.approvedPrice != null) offer.approvedPriceMicroPerKwh = v.approvedPrice as number;
    return offer;
  },
};

// ----------------------------------------------------------------------------------------- territories

const isoDate: ValueType = {
  type: 'string',
  pattern: /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/,
  patternText: 'an ISO date YYYY-MM-DD',
};
const isoDates: ValueType = { ...isoDate, type: 'stringList' } as ValueType;
// ESTIMATED: charges not yet approved (a feed's estimate of a coming tariff period).
const tariffStatus = opt({ type: 'enum', values: ['APPROVED', 'ESTIMATED'] }, 'APPROVED');
const charges = (extra: FieldTable = {}): ValueType => ({
  type: 'object',
  nullable: true,
  fields: {
    fixedMonthly: req(money),
    perKwh: req(rate),
    effective: opt({ ...isoDate, nullable: true } as ValueType, null),
    status: tariffStatus,
    ...extra,
  },
});

const trailingPrice: ValueType = { type: 'object', nullable: true, fields: { perKwh: req(rate), from: req(isoDate), to: req(isoDate) } };

/** A trailing 12-month average price, or null; throws when it ends before it starts. */
function trailingFrom(v: unknown, field: string): TrailingSupplyPrice | null {
  const t = v as Values | null;
  if (!t) return null;
  if ((t.to as string) < (t.from as string)) throw new RecordError(`${field}: ends before it starts`);
  return { microPerKwh: t.perKwh as number, from: t.from as string, to: t.to as string };
}

function chargesFrom(v: unknown): Territory['delivery'] {
  const c = v as Values | null;
  if (!c) return null;
  const out: DeliveryCharges = {
    fixedMonthlyMicro: c.fixedMonthly as number,
    perKwhMicro: c.perKwh as number,
    effective: c.effective as string | null,
  };
  // Left out when approved, so records without it stay as they were.
  if (c.status === 'ESTIMATED') out.estimated = true;
  return out;
}

const territories: KindDef<'territories'> = {
  kind: 'territories',
  key: 'utilityId',
  scopes: { request: { always: ['zipCode'], sometimes: [] } },
  fields: {
    utilityId: req(text),
    name: req(text),
    state: req(stateCode),
    timeZone: req(text),
    market: req({ type: 'enum', values: ['DEREGULATED', 'REGULATED'] }),
    ownership: req(text), // a value the API does not know answers OTHER (resolvers/enum-values.ts)
    // Residential delivery; null only for a REGULATED utility.
    delivery: req(charges()),
    commercialDelivery: opt(charges(), null),
    bundledRate: opt(charges(), null),
    priceToCompare: opt(
      { type: 'object', nullable: true, fields: { perKwh: req(rate), effective: req(isoDate), expires: req(isoDate) } },
      null,
    ),
    choiceCapPercent: opt({ type: 'quantity', target: 'percent', defaultUnit: 'percent', nullable: true }, null),
    // Tariff periods: delivery charges by effective date, Price to Compare periods by season or class.
    deliveryRates: opt(
      { type: 'list', fields: { fixedMonthly: req(money), perKwh: req(rate), effective: req(isoDate), status: tariffStatus } },
      [],
    ),
    commercialDeliveryRates: opt(
      { type: 'list', fields: { fixedMonthly: req(money), perKwh: req(rate), effective: req(isoDate), status: tariffStatus } },
      [],
    ),
    pricesToCompare: opt(
      {
        type: 'list',
        fields: {
          perKwh: req(rate),
          effective: req(isoDate),
          expires: req(isoDate),
          season: opt({ type: 'string', nullable: true }, null),
          customerClass: opt({ type: 'enum', values: CUSTOMER_CLASSES }, 'RESIDENTIAL'),
        },
      },
      [],
    ),
    // The trailing 12-month average default service price some states cap retail prices at (domain/market-rules.ts).
    trailingSupplyPrice: opt(trailingPrice, null),
    // The same for small commercial (non-demand) customers, where a state limits theirs too (New York).
    commercialTrailingSupplyPrice: opt(trailingPrice, null),
    switching: req({
      type: 'object',
      nullable: false,
      fields: {
        kind: opt({ type: 'enum', values: SWITCHING_KINDS }, 'OFF_CYCLE'),
        leadBusinessDays: req({ type: 'int', min: 0, max: 365 }),
        meterReadCycleDays: req({ type: 'int', min: 1, max: 366 }),
        meterReadAnchorDate: opt({ ...isoDate, nullable: true } as ValueType, null),
        meterReadDates: opt(isoDates, []),
        sameDayCutoff: req({ type: 'string', pattern: /^([01][0-9]|2[0-3]):[0-5][0-9]$/, patternText: 'a time HH:MM' }),
        rescissionDays: opt({ type: 'int', min: 0, max: 90 }, 0),
        meterReadCycles: opt({ type: 'list', fields: { cycle: req(text), anchorDate: req(isoDate) } }, []),
      },
    }),
    calendar: opt(
      {
        type: 'object',
        nullable: true,
        fields: { name: req(text), holidays: req({ type: 'list', fields: { name: req(text), rule: req(text) } }) },
      },
      null,
    ),
    holidays: opt(isoDates, []),
  },
  build(v): Territory {
    const switching = v.switching as Values;
    const calendar = v.calendar as { name: string; holidays: HolidayRule[] } | null;
    const market = v.market as Territory['market'];
    const t: Territory = {
      utilityId: v.utilityId as string,
      name: v.name as string,
      state: v.state as string,
      timeZone: v.timeZone as string,
      market,
      ownership: v.ownership as Territory['ownership'],
      delivery: chargesFrom(v.delivery),
      commercialDelivery: chargesFrom(v.commercialDelivery),
      bundledRate: chargesFrom(v.bundledRate),
      priceToCompare: null,
      switching: {
        kind: switching.kind as SwitchingKind,
        leadBusinessDays: switching.leadBusinessDays as number,
        meterReadCycleDays: switching.meterReadCycleDays as number,
        meterReadAnchorDate: switching.meterReadAnchorDate as string | null,
        meterReadDates: switching.meterReadDates as string[],
        sameDayCutoff: switching.sameDayCutoff as string,
      },
      calendar: calendar && { name: calendar.name, holidays: calendar.holidays.map((h) => ({ name: h.name, rule: h.rule })) },
      holidays: v.holidays as string[],
    };
    const period = (c: Values) => chargesFrom(c)!;
    const byDate = <T extends { effective?: string | null }>(a: T, b: T) => ((a.effective ?? '') < (b.effective ?? '') ? -1 : 1);
    // Optional extras are left out when the feed has none, so records without them stay as they were.
    const cycles = switching.meterReadCycles as { cycle: string; anchorDate: string }[];
    if (cycles.length) t.switching.meterReadCycles = cycles.map((c) => ({ cycle: c.cycle, anchorDate: c.anchorDate }));
    if (switching.rescissionDays) t.switching.rescissionDays = switching.rescissionDays as number;
    if (v.choiceCapPercent != null) t.choiceCapPercent = v.choiceCapPercent as number;
    const deliveryRates = (v.deliveryRates as Values[]).map(period).sort(byDate);
    if (deliveryRates.length) t.deliveryRates = deliveryRates;
    const commercialRates = (v.commercialDeliveryRates as Values[]).map(period).sort(byDate);
    if (commercialRates.length) t.commercialDeliveryRates = commercialRates;
    const ptcs = (v.pricesToCompare as Values[])
      .map((p) => {
        if ((p.expires as string) < (p.effective as string))
          throw new RecordError('pricesToCompare: a period expires before it takes effect');
        return {
          microPerKwh: p.perKwh as number,
          effective: p.effective as string,
          expires: p.expires as string,
          season: p.season as string | null,
          customerClass: p.customerClass as CustomerClass,
        };
      })
      .sort(byDate);
    if (ptcs.length) t.pricesToCompare = ptcs;
    const ptc = v.priceToCompare as Values | null;
    if (ptc) {
      if ((ptc.expires as string) < (ptc.effective as string)) throw new RecordError('priceToCompare: expires before it takes effect');
      t.priceToCompare = { microPerKwh: ptc.perKwh as number, effective: ptc.effective as string, expires: ptc.expires as string };
    }
    const trailing = trailingFrom(v.trailingSupplyPrice, 'trailingSupplyPrice');
    if (trailing) t.trailingSupplyPrice = trailing;
    const commercialTrailing = trailingFrom(v.commercialTrailingSupplyPrice, 'commercialTrailingSupplyPrice');
    if (commercialTrailing) t.commercialTrailingSupplyPrice = commercialTrailing;
    if (market === 'DEREGULATED' && !t.delivery) throw new RecordError('delivery: a DEREGULATED utility needs delivery charges');
    const s = t.switching;
    if (s.kind === 'METER_READ' && !s.meterReadAnchorDate && s.meterReadDates.length === 0 && !s.meterReadCycles?.length) {
      throw new RecordError('switching: METER_READ needs meterReadAnchorDate, meterReadDates or meterReadCycles');
    }
    if (calendar) {
      try {
        businessCalendar(t.calendar!.holidays);
      } catch (err) {
        if (err instanceof CalendarRuleError) throw new RecordError(`calendar: ${err.message}`);
        throw err;
      }
    }
    return t;
  },
};

// ------------------------------------------------------------------------------------------ stateStats

const generationMwh: ValueType = { type: 'quantity', target: 'mwh', defaultUnit: 'mwh' };

const stateStats: KindDef<'stateStats'> = {
  kind: 'stateStats',
  scopes: { request: { always: ['state'], sometimes: [] } },
  // A source may split these over several mapping blocks (EIA's API v2: prices and generation are
  // two routes); the blocks' records merge by state, so each field is required of the source as a
  // whole (index.ts: bindingsFromConfig), not of every block.
  fields: {
    state: req(stateCode),
    name: opt(text),
    year: opt({ type: 'int', min: 1900, max: 2200 }),
    residentialPerKwh: opt(rate),
    commercialPerKwh: opt(rate),
    // ESTIMATED: figures the feed derived rather than published (the reference upstream's 2025).
    dataStatus: opt({ type: 'enum', values: ['PUBLISHED', 'ESTIMATED'] }, 'PUBLISHED'),
    generation: opt({
      type: 'object',
      nullable: false,
      // Pumped storage is net generation: negative when the plants use more than they return.
      fields: Object.fromEntries(
        GENERATION_SOURCES.map((s) => [
          s,
          opt(s === 'PUMPED_STORAGE' ? ({ ...generationMwh, allowNegative: true } as ValueType) : generationMwh),
        ]),
      ),
    }),
  },
  build(v): StateStats {
    const generation: Partial<Record<GenerationSource, number>> = {};
    for (const [k, mwh] of Object.entries((v.generation as Values | undefined) ?? {})) {
      if (mwh !== undefined) generation[k as GenerationSource] = mwh as number;
    }
    const out: StateStats = { state: v.state as string };
    if (v.name !== undefined) out.name = v.name as string;
    if (v.year !== undefined) out.year = v.year as number;
    if (v.residentialPerKwh !== undefined) out.residentialMicroPerKwh = v.residentialPerKwh as number;
    if (v.commercialPerKwh !== undefined) out.commercialMicroPerKwh = v.commercialPerKwh as number;
    if (v.generation !== undefined) out.generationMwh = generation;
    if (v.dataStatus === 'ESTIMATED') out.estimated = true;
    return out;
  },
};

// ------------------------------------------------------------------------------------------ usageShape

const usageShape: KindDef<'usageShape'> = {
  kind: 'usageShape',
  key: 'state',
  scopes: { request: { always: ['state'], sometimes: [] } },
  fields: {
    state: req(stateCode),
    year: req({ type: 'int', min: 1900, max: 2200 }),
    // One entry per calendar month; the spread of an annual usage follows their proportions.
    months: req({
      type: 'list',
      minLength: 12,
      fields: { month: req({ type: 'int', min: 1, max: 12 }), sales: req({ type: 'quantity', target: 'mwh', defaultUnit: 'mwh' }) },
    }),
  },
  build(v): UsageShape {
    const months = v.months as { month: number; sales: number }[];
    const monthlyMwh: (number | undefined)[] = new Array(12).fill(undefined);
    for (const m of months) {
      if (monthlyMwh[m.month - 1] !== undefined) throw new RecordError(`months: month ${m.month} is listed twice`);
      if (m.sales < 0) throw new RecordError(`months: month ${m.month} has negative sales`);
      monthlyMwh[m.month - 1] = m.sales;
    }
    if (monthlyMwh.some((x) => x === undefined)) throw new RecordError('months: needs each of the 12 months once');
    if (monthlyMwh.every((x) => x === 0)) throw new RecordError('months: all sales are zero');
    return { state: v.state as string, year: v.year as number, monthlyMwh: monthlyMwh as number[] };
  },
};

// -------------------------------------------------------------------------------------------- premises

const premises: KindDef<'premises'> = {
  kind: 'premises',
  key: 'accountId',
  scopes: { request: { always: ['zipCode', 'address'], sometimes: [] } },
  fields: {
    accountId: req(text),
    idType: req(text),
    line1: req(text),
    line2: opt({ type: 'string', nullable: true }, null),
    city: req(text),
    state: req(stateCode),
    zip: req({ type: 'string', pattern: /^[0-9]{5}(-[0-9]{4})?$/, patternText: 'a ZIP code (12345 or 12345-6789)' }),
    utilityId: req(text),
    meterType: req(text),
    status: req(text),
    premiseType: opt({ type: 'string', nullable: true }, null),
    meterReadCycle: opt({ type: 'string', nullable: true }, null),
  },
  build(v): ServiceAccount {
    return {
      accountId: v.accountId as string,
      idType: v.idType as string,
      address: {
        line1: v.line1 as string,
        line2: v.line2 as string | null,
        city: v.city as string,
        state: v.state as string,
        zip: v.zip as string,
      },
      utilityId: v.utilityId as string,
      meterType: v.meterType as string,
      status: v.status as string,
      premiseType: v.premiseType as string | null,
      // Left out when the feed does not say, like the territory extras.
      ...(v.meterReadCycle != null ? { meterReadCycle: v.meterReadCycle as string } : {}),
    };
  },
};

export const KINDS: { readonly [K in FeedKind]: KindDef<K> } = Object.freeze({ offers, territories, stateStats, usageShape, premises });

export const KIND_NAMES = Object.keys(KINDS) as FeedKind[];

export function kindDef(kind: unknown): KindDef<FeedKind> | undefined {
  return typeof kind === 'string' && Object.prototype.hasOwnProperty.call(KINDS, kind)
    ? (KINDS[kind as FeedKind] as KindDef<FeedKind>)
    : undefined;
}

/** Keys the mapping sets by itself and a YAML may not name. */
export const AUTOMATIC_KEYS: Readonly<Partial<Record<FeedKind, Record<string, string>>>> = {
  offers: { feed: 'set to the source name automatically' },
};
