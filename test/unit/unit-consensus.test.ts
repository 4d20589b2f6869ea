// A unit mistake across feeds (transforms/mapping/unit-consensus.ts): for each pair of units of each
// dimension, a feed whose numbers are in one unit but declared in the other is named with the unit
// that explains it when the two differ by 10, 100 or 1000, against other feeds or the market range.
import { describe, expect, it } from 'vitest';
import { explainingUnits, median, unitMistakes, type FeedFieldValues } from '../../transforms/mapping/unit-consensus.js';
import { UNIT_NAMES, UNITS, unitsOfDimension, type Dimension, type UnitName } from '../../transforms/mapping/units.js';
import { fieldLine } from '../../mesh/unit-check.js';

const DIMENSIONS: Dimension[] = ['money', 'rate', 'duration', 'energy', 'share'];
const pairs = (dim: Dimension) =>
  unitsOfDimension(dim).flatMap((declared) =>
    unitsOfDimension(dim)
      .filter((sent) => sent !== declared)
      .map((sent) => [declared, sent] as const),
  );
/** The power of ten between two units' sizes, or null when it is not one of 1 to 3. */
function power(declared: UnitName, sent: UnitName): number | null {
  const p = Math.log10(UNITS[declared].scale / UNITS[sent].scale);
  return Number.isInteger(Math.round(p * 1e9) / 1e9) && Math.abs(p) >= 1 && Math.abs(p) <= 3 ? Math.round(p) : null;
}

describe('explainingUnits: every pair of units of every dimension', () => {
  for (const dim of DIMENSIONS)
    for (const [declared, sent] of pairs(dim))
      it(`${dim}: numbers in ${sent} declared ${declared}`, () => {
        const ratio = UNITS[declared].scale / UNITS[sent].scale;
        const likely = explainingUnits(declared, ratio);
        if (power(declared, sent) !== null) expect(likely).toContain(sent);
        else expect(likely).toEqual([]);
        // Off by a little as real data are (a median, not an exact factor): still named.
        if (power(declared, sent) !== null) expect(explainingUnits(declared, ratio * 1.3)).toContain(sent);
      });

  it('names nothing for a ratio far from a power of ten, or beyond 1000', () => {
    expect(explainingUnits('cents_per_kwh', 3)).toEqual([]);
    expect(explainingUnits('cents_per_kwh', 1)).toEqual([]);
    expect(explainingUnits('usd', 10)).toEqual([]); // no money unit is a tenth of a dollar
    expect(explainingUnits('kwh', 1e-6)).toEqual([]);
    expect(explainingUnits('usd', Number.NaN)).toEqual([]);
    expect(explainingUnits('usd', 0)).toEqual([]);
    expect(explainingUnits('usd', Infinity)).toEqual([]);
  });
});

/** Canonical values of a field as a feed sending `sent` but declaring `declared` has them mapped. */
const misread = (values: number[], declared: UnitName, sent: UnitName) =>
  values.map((v) => (v / UNITS[sent].scale) * UNITS[declared].scale);
const sample = (feed: string, field: string, unit: UnitName, values: number[], territory = 'ONCOR'): FeedFieldValues => ({
  feed,
  kind: 'offers',
  territory,
  field,
  unit,
  values,
});

// Usual canonical values (micro-USD, micro-USD per kWh) of the compared fields.
const PRICES = [95_000, 112_000, 124_000, 139_000];
const FEES = [150_000_000, 175_000_000, 99_000_000];

describe('unitMistakes: a feed against others of its territory', () => {
  const cases: { dim: Dimension; field: string; values: number[] }[] = [
    { dim: 'rate', field: 'energyBlocks.price', values: PRICES },
    { dim: 'money', field: 'cancellationFee', values: FEES },
  ];
  for (const { dim, field, values } of cases)
    for (const [declared, sent] of pairs(dim))
      it(`${field}: ${sent} declared ${declared}, against two feeds, one feed, and alone`, () => {
        const wrong = sample('Wrong', field, declared, misread(values, declared, sent));
        const others = [
          sample(
            'A',
            field,
            sent,
            values.map((v) => v * 1.05),
          ),
          sample(
            'B',
            field,
            sent,
            values.map((v) => v * 0.97),
          ),
        ];
        const expected = power(declared, sent) === null ? [] : [{ feed: 'Wrong', field, declared, likely: expect.arrayContaining([sent]) }];
        expect(unitMistakes([wrong, ...others])).toEqual(expected.map((e) => expect.objectContaining({ ...e, basis: 'feeds' })));
        expect(unitMistakes([wrong, others[0]!])).toEqual(expected.map((e) => expect.objectContaining({ ...e, basis: 'feeds' })));
        expect(unitMistakes([wrong])).toEqual(expected.map((e) => expect.objectContaining({ ...e, basis: 'market' })));
        // Declared right, nothing is named.
        expect(unitMistakes([sample('Right', field, sent, values), ...others])).toEqual([]);
      });

  it("names the feed, the field, the territory and the other feeds' medians", () => {
    const [m] = unitMistakes([
      sample('Voltify', 'energyBlocks.price', 'mills_per_kwh', misread(PRICES, 'mills_per_kwh', 'cents_per_kwh')),
      sample('Brightgrid', 'energyBlocks.price', 'usd_per_kwh', PRICES),
    ]);
    expect(m!.message).toBe(
      'energyBlocks.price: median 0.0118 USD/kWh in ONCOR is 1/10 of the median of the other feeds of ONCOR (Brightgrid: 0.118 ' +
        'USD/kWh); looks like cents/kWh, not mills/kWh (unit: cents_per_kwh)',
    );
  });

  it('compares feeds of the same territory and field only; zeros say nothing', () => {
    const tenth = PRICES.map((v) => v / 10);
    expect(
      unitMistakes([
        sample('A', 'energyBlocks.price', 'mills_per_kwh', tenth, 'PECO'),
        sample('B', 'energyBlocks.price', 'cents_per_kwh', PRICES),
      ]),
    ).toEqual([expect.objectContaining({ feed: 'A', basis: 'market', likely: ['cents_per_kwh'] })]);
    expect(unitMistakes([sample('A', 'cancellationFee', 'usd', [0, 0, 0]), sample('B', 'cancellationFee', 'usd', FEES)])).toEqual([]);
    expect(unitMistakes([sample('A', 'baseMonthly', 'usd', [9_950_000]), sample('B', 'cancellationFee', 'usd', [99_500])])).toEqual([]);
  });

  it('leaves plausible spreads alone: medians a few times apart, and a feed alone inside the market range', () => {
    expect(
      unitMistakes([sample('A', 'cancellationFee', 'usd', [50_000_000]), sample('B', 'cancellationFee', 'usd', [295_000_000])]),
    ).toEqual([]);
    expect(
      unitMistakes([
        sample('A', 'energyBlocks.price', 'usd_per_kwh', [45_000]),
        sample('B', 'energyBlocks.price', 'usd_per_kwh', [210_000]),
      ]),
    ).toEqual([]);
    expect(unitMistakes([sample('A', 'baseMonthly', 'usd', [4_950_000])])).toEqual([]);
  });

  it('survives hostile input: empty, non-finite and huge lists', () => {
    expect(unitMistakes([])).toEqual([]);
    expect(unitMistakes([sample('A', 'energyBlocks.price', 'usd_per_kwh', [Number.NaN, Infinity])])).toEqual([]);
    expect(unitMistakes([sample('A', 'no.such.field', 'usd', [1])])).toEqual([]);
    const many = Array.from({ length: 100_000 }, (_, i) => 100_000 + (i % 50) * 1000);
    expect(
      unitMistakes([sample('A', 'energyBlocks.price', 'usd_per_kwh', many), sample('B', 'energyBlocks.price', 'usd_per_kwh', many)]),
    ).toEqual([]);
    expect(median([3, 1, 2])).toBe(2);
  });
});

describe('fieldLine: the YAML line of a field in a feed block', () => {
  const text = [
    'sources:',
    '  - name: Voltify',
    '    transforms:',
    '      - ./transforms/feed-mapping.ts:',
    '          fields:',
    '            energyBlocks:',
    '              fields:',
    '                price: { path: cents, unit: cents_per_kwh }',
    '            cancellationFee: { path: fee, unit: usd }',
    '  - name: Brightgrid',
    '            cancellationFee: { path: fee, unit: usd }',
  ].join('\n');
  it('finds nested and top-level fields, within the feed block only', () => {
    expect(fieldLine(text, 'Voltify', 'energyBlocks.price')).toBe(8);
    expect(fieldLine(text, 'Voltify', 'cancellationFee')).toBe(9);
    expect(fieldLine(text, 'Brightgrid', 'cancellationFee')).toBe(11);
    expect(fieldLine(text, 'Brightgrid', 'energyBlocks.price')).toBeNull();
    expect(fieldLine(text, 'Nope', 'cancellationFee')).toBeNull();
    expect(fieldLine(text, 'Volt.fy', 'cancellationFee')).toBeNull();
  });
  it('UNIT_NAMES covers every dimension tested', () => {
    expect(new Set(UNIT_NAMES.map((u) => UNITS[u].dimension))).toEqual(new Set(DIMENSIONS));
  });
});
