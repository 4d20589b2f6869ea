// State generation mix in EIA's nine energy-source categories, as EIA names them (State
// Electricity Profiles, net generation by primary energy source): percentages with one decimal
// that add up to exactly 100.0.
// Shares are computed exactly (BigInt over the MWh decimal text) in integer tenths of a percent and
// apportioned with the largest-remainder method. Pumped storage is net generation and usually
// negative (the plants use more than they return); it keeps its sign, and the other rows then
// sum to a little over 100.0 so that all nine sum to exactly 100.0, as in EIA's tables.
import { MoneyFormatError, toExactDecimal } from './money.js';

type GenerationSource =
  'COAL' | 'PETROLEUM' | 'NATURAL_GAS' | 'OTHER_GASES' | 'NUCLEAR' | 'HYDRO' | 'OTHER_RENEWABLES' | 'PUMPED_STORAGE' | 'OTHER';

/** EIA's name of each category. */
const EIA_CATEGORY: Readonly<Record<GenerationSource, string>> = Object.freeze({
  COAL: 'Coal',
  PETROLEUM: 'Petroleum',
  NATURAL_GAS: 'Natural Gas',
  OTHER_GASES: 'Other Gases',
  NUCLEAR: 'Nuclear',
  HYDRO: 'Hydroelectric Conventional',
  OTHER_RENEWABLES: 'Other Renewables',
  PUMPED_STORAGE: 'Pumped Storage',
  OTHER: 'Other',
});

/**
 * Feed key (eia generationMwh) -> category. Wind and solar are part of EIA's Other Renewables
 * (with biomass and geothermal): a feed that reports them separately has them added there.
 */
export const SOURCE_BY_FEED_KEY: Readonly<Record<string, GenerationSource>> = Object.freeze({
  coal: 'COAL',
  petroleum: 'PETROLEUM',
  naturalGas: 'NATURAL_GAS',
  otherGases: 'OTHER_GASES',
  nuclear: 'NUCLEAR',
  hydro: 'HYDRO',
  otherRenewables: 'OTHER_RENEWABLES',
  wind: 'OTHER_RENEWABLES',
  solar: 'OTHER_RENEWABLES',
  pumpedStorage: 'PUMPED_STORAGE',
  other: 'OTHER',
});

/** The only category whose net generation may be negative. */
const MAY_BE_NEGATIVE: ReadonlySet<string> = new Set(['pumpedStorage']);

export class EnergyMixError extends Error {
  override readonly name = 'EnergyMixError';
}

interface MixShare {
  source: GenerationSource;
  /** EIA's name of the category. */
  eiaCategory: string;
  /** One decimal; the tenths of all shares sum to exactly 1000 (100.0 %). */
  percent: number;
}

/** Floor division for BigInt (rounds toward minus infinity; d > 0). */
const floorDiv = (n: bigint, d: bigint): bigint => (n >= 0n ? n / d : -((-n + d - 1n) / d));

/**
 * Input keyed by feed key (coal, naturalGas, ...). Missing keys count as 0 MWh. All nine
 * categories are always returned (0 MWh -> 0 percent; largest remainder never gives a zero
 * category a tenth), ordered by MWh descending, ties by enum name. Throws EnergyMixError on unknown
 * keys, non-finite values, a negative value other than pumped storage, or a total that is not above 0.
 */
export function generationMix(mwhBySource: Readonly<Record<string, number>>): MixShare[] {
  const parsed: { source: GenerationSource; digits: bigint; scale: number }[] = [];
  for (const [key, mwh] of Object.entries(mwhBySource)) {
    const source = Object.hasOwn(SOURCE_BY_FEED_KEY, key) ? SOURCE_BY_FEED_KEY[key] : undefined;
    if (!source) throw new EnergyMixError(`unknown generation source key ${JSON.stringify(key)}`);
    if (typeof mwh !== 'number' || !Number.isFinite(mwh) || (mwh < 0 && !MAY_BE_NEGATIVE.has(key))) {
      throw new EnergyMixError(`generation for ${key} must be a finite number${MAY_BE_NEGATIVE.has(key) ? '' : ' >= 0'} MWh`);
    }
    try {
      const exact = toExactDecimal(Math.abs(mwh), key); // exact decimal of the JSON number
      parsed.push({ source, digits: mwh < 0 ? -exact.digits : exact.digits, scale: exact.scale });
    } catch (e) {
      if (e instanceof MoneyFormatError) throw new EnergyMixError(`generation for ${key}: ${e.reason}`);
      throw e;
    }
  }

  // Bring everything to one common scale so the values are plain integers; sum per category.
  const scale = Math.max(0, ...parsed.map((v) => v.scale));
  const sums = new Map<GenerationSource, bigint>((Object.keys(EIA_CATEGORY) as GenerationSource[]).map((s) => [s, 0n]));
  for (const v of parsed) sums.set(v.source, sums.get(v.source)! + v.digits * 10n ** BigInt(scale - v.scale));
  const rows = [...sums].map(([source, n]) => ({ source, n }));
  const total = rows.reduce((s, r) => s + r.n, 0n);
  if (total <= 0n) throw new EnergyMixError('total generation is not above 0 MWh; no mix can be computed');

  rows.sort((a, b) => (a.n === b.n ? (a.source < b.source ? -1 : 1) : a.n > b.n ? -1 : 1));
  const shares = rows.map((r) => {
    const tenths = floorDiv(r.n * 1000n, total);
    return { ...r, tenths, rem: r.n * 1000n - tenths * total };
  });
  let left = 1000n - shares.reduce((s, r) => s + r.tenths, 0n);
  // Remaining tenths go to the largest remainders; ties keep the output order (MWh, then name).
  const byRemainder = [...shares].sort((a, b) => (a.rem === b.rem ? 0 : a.rem > b.rem ? -1 : 1));
  for (const r of byRemainder) {
    if (left === 0n) break;
    r.tenths += 1n;
    left -= 1n;
  }
  return shares.map((r) => ({ source: r.source, eiaCategory: EIA_CATEGORY[r.source], percent: Number(r.tenths) / 10 + 0 }));
}
