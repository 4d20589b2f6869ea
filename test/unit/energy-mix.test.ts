import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EnergyMixError, SOURCE_BY_FEED_KEY, generationMix } from '../../domain/energy-mix.js';

const KEYS = Object.keys(SOURCE_BY_FEED_KEY);
const tenths = (p: number) => Math.round(p * 10);

describe('generationMix', () => {
  it('returns all sources, largest first, ties by name, summing to 100.0', () => {
    const mix = generationMix({ coal: 1, naturalGas: 1, nuclear: 1 });
    expect(mix.slice(0, 3)).toEqual([
      { source: 'COAL', percent: 33.4 },
      { source: 'NATURAL_GAS', percent: 33.3 },
      { source: 'NUCLEAR', percent: 33.3 },
    ]);
    expect(mix.slice(3).map((s) => s.source)).toEqual(['HYDRO', 'OTHER', 'OTHER_RENEWABLES', 'PETROLEUM', 'SOLAR', 'WIND']);
    expect(mix.slice(3).every((s) => s.percent === 0)).toBe(true);
  });

  it('handles a realistic state', () => {
    const mix = generationMix({
      coal: 62_000_000.5, naturalGas: 230_000_000, nuclear: 41_000_000, hydro: 800_000, wind: 110_000_000,
      solar: 45_000_000, otherRenewables: 1_500_000, petroleum: 100_000, other: 1_200_000,
    });
    expect(mix.map((s) => s.source)).toEqual(['NATURAL_GAS', 'WIND', 'COAL', 'SOLAR', 'NUCLEAR', 'OTHER_RENEWABLES', 'OTHER', 'HYDRO', 'PETROLEUM']);
    expect(mix.reduce((s, x) => s + tenths(x.percent), 0)).toBe(1000);
    expect(generationMix({ solar: 3 })[0]).toEqual({ source: 'SOLAR', percent: 100 });
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
        const byKey = new Map(Object.entries(input).map(([k, v]) => [SOURCE_BY_FEED_KEY[k], v]));
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
    expect(() => generationMix({ coal: NaN })).toThrow(EnergyMixError);
    expect(() => generationMix({ coal: Infinity })).toThrow(EnergyMixError);
    expect(() => generationMix({ coal: '5' as unknown as number })).toThrow(EnergyMixError);
    expect(() => generationMix({ battery: 5 })).toThrow(EnergyMixError);
    expect(() => generationMix({ toString: 5 } as Record<string, number>)).toThrow(EnergyMixError);
    expect(() => generationMix({ COAL: 5 })).toThrow(EnergyMixError);
  });

  it('is exact for tiny and huge values', () => {
    expect(generationMix({ coal: 1e-7, wind: 3e-7 }).slice(0, 2)).toEqual([
      { source: 'WIND', percent: 75 },
      { source: 'COAL', percent: 25 },
    ]);
    const mix = generationMix({ coal: 1e300, wind: 1 });
    expect(mix[0]).toEqual({ source: 'COAL', percent: 100 });
    expect(mix[1]).toEqual({ source: 'WIND', percent: 0 });
  });
});
