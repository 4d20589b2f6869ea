import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EnergyMixError, SOURCE_BY_FEED_KEY, generationMix } from '../../domain/energy-mix.js';
import { STATE_STATS } from '../../sources/reference-upstream/data/eia.js';

const KEYS = Object.keys(SOURCE_BY_FEED_KEY);
const tenths = (p: number) => Math.round(p * 10);

describe('generationMix', () => {
  it("returns EIA's nine categories as EIA names them, largest first, ties by name, summing to 100.0", () => {
    const mix = generationMix({ coal: 1, naturalGas: 1, nuclear: 1 });
    expect(mix.slice(0, 3)).toEqual([
      { source: 'COAL', eiaCategory: 'Coal', percent: 33.4 },
      { source: 'NATURAL_GAS', eiaCategory: 'Natural Gas', percent: 33.3 },
      { source: 'NUCLEAR', eiaCategory: 'Nuclear', percent: 33.3 },
    ]);
    expect(mix.slice(3).map((s) => s.source)).toEqual(['HYDRO', 'OTHER', 'OTHER_GASES', 'OTHER_RENEWABLES', 'PETROLEUM', 'PUMPED_STORAGE']);
    expect(mix.slice(3).map((s) => s.eiaCategory)).toEqual([
      'Hydroelectric Conventional',
      'Other',
      'Other Gases',
      'Other Renewables',
      'Petroleum',
      'Pumped Storage',
    ]);
    expect(mix.slice(3).every((s) => s.percent === 0)).toBe(true);
  });

  it('handles a realistic state', () => {
    const mix = generationMix({
      coal: 62_000_000.5,
      naturalGas: 230_000_000,
      nuclear: 41_000_000,
      hydro: 800_000,
      wind: 110_000_000,
      solar: 45_000_000,
      otherRenewables: 1_500_000,
      petroleum: 100_000,
      other: 1_200_000,
    });
    // Wind and solar are part of EIA's Other Renewables: 110 + 45 + 1.5 = 156.5 million MWh.
    expect(mix.map((s) => s.source)).toEqual([
      'NATURAL_GAS',
      'OTHER_RENEWABLES',
      'COAL',
      'NUCLEAR',
      'OTHER',
      'HYDRO',
      'PETROLEUM',
      'OTHER_GASES',
      'PUMPED_STORAGE',
    ]);
    expect(mix.reduce((s, x) => s + tenths(x.percent), 0)).toBe(1000);
    expect(generationMix({ solar: 3 })[0]).toEqual({ source: 'OTHER_RENEWABLES', eiaCategory: 'Other Renewables', percent: 100 });
  });

  it("keeps net pumped storage negative, as EIA's tables do, and the nine rows still sum to 100.0", () => {
    // Table shares 60.0, 40.4, -0.4 of a 1000 MWh total.
    const mix = generationMix({ naturalGas: 600, nuclear: 404, pumpedStorage: -4 });
    expect(mix.slice(0, 2).map((s) => s.percent)).toEqual([60, 40.4]);
    expect(mix.at(-1)).toEqual({ source: 'PUMPED_STORAGE', eiaCategory: 'Pumped Storage', percent: -0.4 });
    expect(mix.reduce((s, x) => s + tenths(x.percent), 0)).toBe(1000);
    // Apportioning still lands on exact tenths with a negative row and a thirds split.
    const thirds = generationMix({ coal: 1, naturalGas: 1, nuclear: 1, pumpedStorage: -0.01 });
    expect(thirds.reduce((s, x) => s + tenths(x.percent), 0)).toBe(1000);
    expect(() => generationMix({ pumpedStorage: -5, coal: 5 })).toThrow(EnergyMixError);
  });

  it('always sums to exactly 1000 tenths, stays within 0.1 of the exact share, and is ordered', () => {
    const value = fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: 1_000_000_000 }),
      // Realistic magnitudes: subnormal MWh (1e-320) would only test the float arithmetic of this check.
      fc.double({ min: 1e-6, max: 1e12, noNaN: true, noDefaultInfinity: true }),
      fc.integer({ min: 0, max: 100_000 }).map((x) => x / 1000),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...KEYS), value), (input) => {
        const total = Object.values(input).reduce((s, x) => s + x, 0);
        if (total === 0) {
          expect(() => generationMix(input)).toThrow(EnergyMixError);
          return;
        }
        const mix = generationMix(input);
        expect(mix).toHaveLength(9);
        expect(mix.reduce((s, x) => s + tenths(x.percent), 0)).toBe(1000);
        const byKey = new Map<string, number>();
        for (const [k, v] of Object.entries(input)) byKey.set(SOURCE_BY_FEED_KEY[k]!, (byKey.get(SOURCE_BY_FEED_KEY[k]!) ?? 0) + v);
        for (const s of mix) {
          const mwh = byKey.get(s.source) ?? 0;
          expect(String(s.percent)).toMatch(/^\d{1,3}(\.\d)?$/);
          if (mwh === 0) expect(s.percent).toBe(0);
          expect(Math.abs(tenths(s.percent) - (mwh * 1000) / total)).toBeLessThan(1 + 1e-6);
        }
        for (let i = 1; i < mix.length; i++) {
          const a = byKey.get(mix[i - 1]!.source) ?? 0;
          const b = byKey.get(mix[i]!.source) ?? 0;
          expect(a > b || (a === b && mix[i - 1]!.source < mix[i]!.source)).toBe(true);
          expect(mix[i - 1]!.percent >= mix[i]!.percent).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('rejects empty, all-zero, negative, non-finite and unknown input', () => {
    expect(() => generationMix({})).toThrow(EnergyMixError);
    expect(() => generationMix(Object.fromEntries(KEYS.map((k) => [k, 0])))).toThrow(EnergyMixError);
    expect(() => generationMix({ coal: -1, wind: 5 })).toThrow(EnergyMixError);
    expect(() => generationMix({ otherGases: -1, wind: 5 })).toThrow(EnergyMixError);
    expect(() => generationMix({ coal: NaN })).toThrow(EnergyMixError);
    expect(() => generationMix({ coal: Infinity })).toThrow(EnergyMixError);
    expect(() => generationMix({ coal: '5' as unknown as number })).toThrow(EnergyMixError);
    expect(() => generationMix({ battery: 5 })).toThrow(EnergyMixError);
    expect(() => generationMix({ toString: 5 } as Record<string, number>)).toThrow(EnergyMixError);
    expect(() => generationMix({ COAL: 5 })).toThrow(EnergyMixError);
  });

  it('is exact for tiny and huge values', () => {
    expect(generationMix({ coal: 1e-7, wind: 3e-7 }).slice(0, 2)).toEqual([
      { source: 'OTHER_RENEWABLES', eiaCategory: 'Other Renewables', percent: 75 },
      { source: 'COAL', eiaCategory: 'Coal', percent: 25 },
    ]);
    const mix = generationMix({ coal: 1e300, wind: 1 });
    expect(mix[0]).toEqual({ source: 'COAL', eiaCategory: 'Coal', percent: 100 });
    expect(mix[1]).toEqual({ source: 'OTHER_RENEWABLES', eiaCategory: 'Other Renewables', percent: 0 });
  });
});

describe('reference EIA table', () => {
  it('every state row sums to 100.0 and is published unchanged, in EIA categories', () => {
    expect(STATE_STATS.size).toBe(51);
    for (const stats of STATE_STATS.values()) {
      const { hydroelectricConventional, ...rest } = stats.generationMwh;
      const mix = generationMix({ ...rest, hydro: hydroelectricConventional });
      expect(
        mix.reduce((s, x) => s + tenths(x.percent), 0),
        stats.state,
      ).toBe(1000);
      // No rescaling: each published percent is the row's own share of the total.
      const total = Object.values(stats.generationMwh).reduce((a, b) => a + b, 0);
      for (const share of mix) {
        const key = Object.entries(SOURCE_BY_FEED_KEY).find(([k, v]) => v === share.source && k !== 'wind' && k !== 'solar')![0];
        const mwh = key === 'hydro' ? hydroelectricConventional : (stats.generationMwh as Record<string, number>)[key]!;
        expect(tenths(share.percent) * total, `${stats.state} ${share.source}`).toBe(mwh * 1000);
      }
    }
  });

  it("publishes Texas natural gas as the table's 49.9 (it was rescaled to 49.0)", () => {
    const tx = STATE_STATS.get('TX')!;
    const { hydroelectricConventional, ...rest } = tx.generationMwh;
    const gas = generationMix({ ...rest, hydro: hydroelectricConventional }).find((s) => s.source === 'NATURAL_GAS');
    expect(gas!.percent).toBe(49.9);
  });
});
