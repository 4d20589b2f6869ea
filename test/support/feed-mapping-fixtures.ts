// What the feed-mapping tests share: the feed bindings of the repository's .meshrc.yaml, and the
// CanonicalOffer type as data, with the differences between a record and it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadYaml } from '@graphql-mesh/utils';
import type { CanonicalOffer } from '../../domain/canonical.js';
import { bindingsFromConfig, type CompiledFeedBinding, type FeedBinding } from '../../transforms/mapping/index.js';

const MESHRC = fileURLToPath(new URL('../../.meshrc.yaml', import.meta.url));
const quiet = { log() {}, warn() {}, info() {}, error() {}, debug() {}, child: () => quiet } as never;
export const yaml = (text: string, name = 'inline.yaml') => loadYaml(name, text, quiet);
export const meshConfig = yaml(readFileSync(MESHRC, 'utf8'), MESHRC) as { sources: any[] };
export const bindings = bindingsFromConfig(meshConfig);
export const feed = (name: string) => bindings.find((b) => b.source === name)! as CompiledFeedBinding;
export const voltify = feed('Voltify') as FeedBinding<'offers'>;
export const brightgrid = feed('Brightgrid') as FeedBinding<'offers'>;

/** The CanonicalOffer type as data: what every offer of every feed must look like. */
type Shape = 'string' | 'number' | 'integer' | 'integer|null' | { list: Shape } | { nullable: Shape } | { [key: string]: Shape };
export const OFFER_SHAPE: Shape = {
  feed: 'string',
  offerId: 'string',
  supplierName: 'string',
  title: 'string',
  customerClass: 'string',
  utilityId: 'string',
  rateType: 'string',
  termMonths: 'integer',
  energyBlocks: { list: { fromKwh: 'integer', toKwh: 'integer|null', microUsdPerKwh: 'integer' } },
  baseMonthlyMicro: 'integer',
  credits: { list: { minKwh: 'integer', micro: 'integer' } },
  minimumUsageFee: { nullable: { belowKwh: 'integer', micro: 'integer' } },
  renewablePercent: 'number',
  cancellationFeeMicro: 'integer',
  enrollmentFeeMicro: 'integer',
};

/** Differences between a value and a shape ([] = conforms): exact key sets, types, integers. */
export function misfits(v: unknown, s: Shape, at = 'record'): string[] {
  if (s === 'string') return typeof v === 'string' ? [] : [`${at}: not a string`];
  if (s === 'number') return typeof v === 'number' && Number.isFinite(v) ? [] : [`${at}: not a number`];
  if (s === 'integer') return Number.isSafeInteger(v) ? [] : [`${at}: not an integer`];
  if (s === 'integer|null') return v === null || Number.isSafeInteger(v) ? [] : [`${at}: not an integer or null`];
  if ('list' in s && Object.keys(s).length === 1) {
    return Array.isArray(v) ? v.flatMap((x, i) => misfits(x, s.list as Shape, `${at}[${i}]`)) : [`${at}: not a list`];
  }
  if ('nullable' in s && Object.keys(s).length === 1) return v === null ? [] : misfits(v, s.nullable as Shape, at);
  if (!v || typeof v !== 'object' || Array.isArray(v)) return [`${at}: not an object`];
  const keys = Object.keys(v).sort().join(',');
  const want = Object.keys(s).sort().join(',');
  if (keys !== want) return [`${at}: keys ${keys}, expected ${want}`];
  return Object.entries(s as Record<string, Shape>).flatMap(([k, sub]) => misfits((v as Record<string, unknown>)[k], sub, `${at}.${k}`));
}

/** The sample Voltify offer of docs/feeds.md, as the feed sends it. */
export const voltifyOffer = () => ({
  offerId: 'VOL-ONCOR-R-0001',
  supplierName: 'Voltify Energy',
  productName: 'Lone Star Saver 12',
  customerClass: 'Residential',
  utilityCode: 'ONCOR',
  rateStructure: 'Fixed',
  termMonths: 12,
  energyChargeCentsPerKwh: [
    { fromKwh: 0, toKwh: 1000, cents: 12.4 },
    { fromKwh: 1000, toKwh: null, cents: 10.9 },
  ],
  baseChargeUsdPerMonth: 9.95,
  usageCredits: [{ minKwh: 1000, creditUsd: 100 }],
  minimumUsage: { belowKwh: 500, feeUsd: 9.95 } as { belowKwh: number; feeUsd: number } | null,
  renewablePercent: 100,
  cancellationFeeUsd: 150,
  enrollmentFeeUsd: 0,
});

// ------------------------------------------------------------------ the sample payloads of docs/feeds.md

/** As the GraphQL result has it: the feed's JSON enum value "fixed-rate" is the GraphQL enum value fixed_rate. */
export const brightgridPlan = () => ({
  id: 'bg-7f3a',
  provider: { displayName: 'BrightGrid Power' },
  name: 'Bright Fixed 24',
  segment: 'RES',
  territory: 'ONCOR',
  contract: { lengthMonths: 24, type: 'fixed_rate' },
  pricing: {
    currency: 'USD',
    components: [
      { kind: 'ENERGY', unit: 'USD_PER_KWH', amount: 0.1189, tierMinKwh: 0, tierMaxKwh: null },
      { kind: 'BASE', unit: 'USD_PER_MONTH', amount: 4.95 },
      { kind: 'CREDIT', unit: 'USD_PER_MONTH', amount: 50, thresholdKwh: 1000 },
      { kind: 'MIN_USAGE_FEE', unit: 'USD_PER_MONTH', amount: 9.95, thresholdKwh: 750 },
    ] as Record<string, unknown>[],
  },
  green: { percent: 25 } as { percent: number } | null,
  fees: { earlyTermination: 200, enrollment: 0 },
});

export const expectedVoltify: CanonicalOffer = {
  feed: 'Voltify',
  offerId: 'VOL-ONCOR-R-0001',
  supplierName: 'Voltify Energy',
  title: 'Lone Star Saver 12',
  customerClass: 'RESIDENTIAL',
  utilityId: 'ONCOR',
  rateType: 'FIXED',
  termMonths: 12,
  energyBlocks: [
    { fromKwh: 0, toKwh: 1000, microUsdPerKwh: 124_000 },
    { fromKwh: 1000, toKwh: null, microUsdPerKwh: 109_000 },
  ],
  baseMonthlyMicro: 9_950_000,
  credits: [{ minKwh: 1000, micro: 100_000_000 }],
  minimumUsageFee: { belowKwh: 500, micro: 9_950_000 },
  renewablePercent: 100,
  cancellationFeeMicro: 150_000_000,
  enrollmentFeeMicro: 0,
};

export const expectedBrightgrid: CanonicalOffer = {
  feed: 'Brightgrid',
  offerId: 'bg-7f3a',
  supplierName: 'BrightGrid Power',
  title: 'Bright Fixed 24',
  customerClass: 'RESIDENTIAL',
  utilityId: 'ONCOR',
  rateType: 'FIXED',
  termMonths: 24,
  energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 118_900 }],
  baseMonthlyMicro: 4_950_000,
  credits: [{ minKwh: 1000, micro: 50_000_000 }],
  minimumUsageFee: { belowKwh: 750, micro: 9_950_000 },
  renewablePercent: 25,
  cancellationFeeMicro: 200_000_000,
  enrollmentFeeMicro: 0,
};
