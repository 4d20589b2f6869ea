import { describe, expect, it } from 'vitest';
import { parsePath, PathSyntaxError, readPath } from '../../transforms/mapping/paths.js';

const read = (root: unknown, path: string, mode: 'one' | 'many' = 'one') => readPath(root, parsePath(path), mode);

describe('parsePath', () => {
  it('parses names, filters, indexes and list markers', () => {
    expect(parsePath('a.b').segments).toEqual([
      { name: 'a', selectors: [] },
      { name: 'b', selectors: [] },
    ]);
    expect(parsePath('pricing.components[kind=ENERGY]').segments[1]).toEqual({
      name: 'components',
      selectors: [{ type: 'filter', key: 'kind', value: 'ENERGY' }],
    });
    expect(parsePath('Envelope.Body.Offers.Offer[]').segments[3]).toEqual({ name: 'Offer', selectors: [{ type: 'list' }] });
    expect(parsePath('rates[2].value').segments[0]).toEqual({ name: 'rates', selectors: [{ type: 'index', index: 2 }] });
    expect(parsePath('.').segments).toEqual([]);
  });

  it('keeps dots and brackets inside quoted filter values', () => {
    expect(parsePath("x[label='a.b]c'].y").segments).toEqual([
      { name: 'x', selectors: [{ type: 'filter', key: 'label', value: 'a.b]c' }] },
      { name: 'y', selectors: [] },
    ]);
  });

  it.each(['', 'a..b', 'a.', '.a', 'a[kind=X', 'a[=X]', 'a-b', 'a[b c=1]', 'a]', '1a'])('rejects %j', (p) => {
    expect(() => parsePath(p)).toThrow(PathSyntaxError);
  });

  it('rejects non-strings', () => {
    expect(() => parsePath(42)).toThrow(PathSyntaxError);
    expect(() => parsePath(null)).toThrow(PathSyntaxError);
  });
});

describe('readPath', () => {
  const plan = {
    id: 'bg-1',
    provider: { displayName: 'BrightGrid Power' },
    green: null,
    pricing: {
      components: [
        { kind: 'ENERGY', amount: 0.1189, tierMinKwh: 0 },
        { kind: 'BASE', amount: 4.95 },
        { kind: 'CREDIT', amount: 50, thresholdKwh: 1000 },
        { kind: 'CREDIT', amount: 20, thresholdKwh: 2000 },
      ],
    },
  };

  it('reads nested properties', () => {
    expect(read(plan, 'id')).toBe('bg-1');
    expect(read(plan, 'provider.displayName')).toBe('BrightGrid Power');
  });

  it('distinguishes null from absent', () => {
    expect(read(plan, 'green')).toBeNull();
    expect(read(plan, 'green.percent')).toBeNull();
    expect(read(plan, 'nope')).toBeUndefined();
    expect(read(plan, 'nope.deeper')).toBeUndefined();
  });

  it('filters a list (many: the matches; one: the first match)', () => {
    expect(read(plan, 'pricing.components[kind=CREDIT]', 'many')).toEqual([plan.pricing.components[2], plan.pricing.components[3]]);
    expect(read(plan, 'pricing.components[kind=CREDIT]', 'one')).toBe(plan.pricing.components[2]);
    expect(read(plan, 'pricing.components[kind=NONE]', 'many')).toEqual([]);
    expect(read(plan, 'pricing.components[kind=NONE]', 'one')).toBeUndefined();
  });

  it('reads a property through a filtered list on its first match', () => {
    expect(read(plan, 'pricing.components[kind=BASE].amount')).toBe(4.95);
    expect(read(plan, 'pricing.components[kind=CREDIT].thresholdKwh')).toBe(1000);
    expect(read(plan, 'pricing.components[kind=MIN_USAGE_FEE].amount')).toBeUndefined();
  });

  it('compares filter values as text (numbers, booleans)', () => {
    const root = {
      xs: [
        { n: 1, b: true, v: 'a' },
        { n: 2, b: false, v: 'b' },
      ],
    };
    expect(read(root, 'xs[n=2].v')).toBe('b');
    expect(read(root, 'xs[b=true].v')).toBe('a');
    expect(read(root, 'xs[b=true][n=2]', 'many')).toEqual([]);
  });

  it('indexes, and the [] marker asserts a list', () => {
    const root = { a: [{ x: 1 }, { x: 2 }], o: { x: 3 } };
    expect(read(root, 'a[1].x')).toBe(2);
    expect(read(root, 'a[5].x')).toBeUndefined();
    expect(read(root, 'a[]', 'many')).toBe(root.a);
    expect(read(root, 'o[]', 'many')).toBeUndefined();
    expect(read(root, 'a.x')).toBe(1); // a property read on a list reads the first element
  });

  it('reads deep nesting like Envelope.Body.Offers.Offer[]', () => {
    const offers = [{ Id: 'A' }, { Id: 'B' }];
    expect(read({ Envelope: { Body: { Offers: { Offer: offers } } } }, 'Envelope.Body.Offers.Offer[]', 'many')).toBe(offers);
  });

  it('never reads inherited properties', () => {
    expect(read({}, 'constructor')).toBeUndefined();
    expect(read({}, '__proto__')).toBeUndefined();
    expect(read({ a: {} }, 'a.toString')).toBeUndefined();
  });

  it('reads null-prototype objects (GraphQL execution results)', () => {
    const o = Object.assign(Object.create(null), { a: Object.assign(Object.create(null), { b: 5 }) });
    expect(read(o, 'a.b')).toBe(5);
  });

  it('yields undefined through scalars, and the context itself for "."', () => {
    expect(read({ a: 5 }, 'a.b')).toBeUndefined();
    expect(read({ a: 'text' }, 'a.length')).toBeUndefined();
    const root = [1, 2];
    expect(read(root, '.', 'many')).toBe(root);
  });
});
