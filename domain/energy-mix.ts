// State generation mix as percentages with one decimal that add up to exactly 100.0.
// Shares are computed exactly (BigInt over the MWh decimal text) in integer tenths of a percent and
// apportioned with the largest-remainder method.
import { MoneyFormatError, toExactDecimal } from './money.js';

export type GenerationSource =
  | 'COAL'
  | 'NATURAL_GAS'
  | 'NUCLEAR'
  | 'HYDRO'
  | 'WIND'
  | 'SOLAR'
  | 'OTHER_RENEWABLES'
  | 'PETROLEUM'
  | 'OTHER';

/** Feed key (eia generationMwh) -> enum name. */
export const SOURCE_BY_FEED_KEY: Readonly<Record<string, GenerationSource>> = Object.freeze({
  coal: 'COAL',
  naturalGas: 'NATURAL_GAS',
  nuclear: 'NUCLEAR',
  hydro: 'HYDRO',
  wind: 'WIND',
  solar: 'SOLAR',
  otherRenewables: 'OTHER_RENEWABLES',
  petroleum: 'PETROLEUM',
  other: 'OTHER',
});

export class EnergyMixError extends Error {
  override readonly name = 'EnergyMixError';
}

export interface MixShare {
  source: GenerationSource;
  /** One decimal; the tenths of all shares sum to exactly 1000 (100.0 %). */
  percent: number;
}

/**
 * Input keyed by feed key (coal, naturalGas, ...). Missing keys count as 0 MWh. Every one of the 9
 * sources is always returned (0 MWh -> 0 percent; largest remainder never gives a zero source a
 * tenth), ordered by MWh descending, ties by enum name. Throws EnergyMixError on unknown keys,
 * negative/non-finite values, or when the total is 0.
 */
export function generationMix(mwhBySource: Readonly<Record<string, number>>): MixShare[] {
  const values = new Map<GenerationSource, { digits: bigint; scale: number }>();
  for (const source of Object.values(SOURCE_BY_FEED_KEY)) values.set(source, { digits: 0n, scale: 0 });
  for (const [key, mwh] of Object.entries(mwhBySource)) {
    const source = Object.hasOwn(SOURCE_BY_FEED_KEY, key) ? SOURCE_BY_FEED_KEY[key] : undefined;
    if (!source) throw new EnergyMixError(`unknown generation source key ${JSON.stringify(key)}`);
    if (typeof mwh !== 'number' || !Number.isFinite(mwh) || mwh < 0) {
      throw new EnergyMixError(`generation for ${key} must be a finite number >= 0 MWh`);
    }
    try {
      values.set(source, toExactDecimal(mwh, key)); // exact decimal of the JSON number
    } catch (e) {
      if (e instanceof MoneyFormatError) throw new EnergyMixError(`generation for ${key}: ${e.reason}`);
      throw e;
    }
  }

  // Bring everything to one common scale so the values are plain integers.
  const scale = Math.max(...[...values.values()].map((v) => v.scale));
  const rows = [...values].map(([source, v]) => ({ source, n: v.digits * 10n ** BigInt(scale - v.scale) }));
  const total = rows.reduce((s, r) => s + r.n, 0n);
  if (total === 0n) throw new EnergyMixError('total generation is 0 MWh; no mix can be computed');

  rows.sort((a, b) => (a.n === b.n ? (a.source < b.source ? -1 : 1) : a.n > b.n ? -1 : 1));
  const shares = rows.map((r) => ({ ...r, tenths: (r.n * 1000n) / total, rem: (r.n * 1000n) % total }));
  let left = 1000n - shares.reduce((s, r) => s + r.tenths, 0n);
  // Remaining tenths go to the largest remainders; ties keep the output order (MWh, then name).
  const byRemainder = [...shares].sort((a, b) => (a.rem === b.rem ? 0 : a.rem > b.rem ? -1 : 1));
  for (const r of byRemainder) {
    if (left === 0n) break;
    r.tenths += 1n;
    left -= 1n;
  }
  return shares.map((r) => ({ source: r.source, percent: Number(r.tenths) / 10 }));
}
