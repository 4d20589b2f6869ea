// The shape of a feed-mapping block (transforms/mapping/block-schema.ts): every kind of shape error stops
// the compile with a FeedConfigError naming the feed and the key path, what was expected and what
// was found; hostile values neither crash nor pollute. The repository's blocks against it:
// mapping-blocks-in-repo.test.ts.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileFeedMapping, FeedConfigError, KIND_NAMES, UNIT_NAMES, FEED_INPUT_KEYS } from '../../transforms/mapping/index.js';
import { BLOCK_AJV_OPTIONS, BLOCK_SCHEMA, blockValidatorSource } from '../../transforms/mapping/block-schema.js';
import { Ajv } from 'ajv';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A small valid offers block; each case below breaks one thing of a copy. */
const block = (): Record<string, any> => ({
  kind: 'offers',
  operation: 'listOffers',
  timeoutMs: 2500,
  sampleZip: '75001',
  args: { zip: 'zipCode', class: { from: 'customerClass', map: { RESIDENTIAL: 'res', COMMERCIAL: 'com' } }, channel: { const: 'web' } },
  items: 'offers',
  fields: {
    offerId: 'id',
    supplierName: 'brand',
    title: 'name',
    customerClass: '$request.customerClass',
    utilityId: 'tdsp',
    rateType: { path: 'structure', map: { fixed: 'FIXED', variable: 'VARIABLE' } },
    termMonths: { path: 'term', unit: 'months' },
    energyBlocks: {
      items: 'tiers',
      fields: { fromKwh: 'from', toKwh: { path: 'to', default: null }, price: { path: 'cents', unit: 'cents_per_kwh' } },
    },
    baseMonthly: { path: 'base', unit: 'usd', default: 0 },
    credits: { const: [] },
    minimumUsageFee: { path: 'minimum', fields: { belowKwh: 'below', amount: { path: 'fee', unit: 'usd' } } },
  },
});

type Change = (b: Record<string, any>) => unknown;

function configError(config: unknown): FeedConfigError {
  try {
    compileFeedMapping('Feed', config);
  } catch (e) {
    expect(e).toBeInstanceOf(FeedConfigError);
    return e as FeedConfigError;
  }
  throw new Error('expected a FeedConfigError');
}

/** Applies a change to a fresh block (a change may return a whole new config). */
const changed = (change: Change) => {
  const b = block();
  const out = change(b);
  return out === undefined ? b : out;
};

function expectRefused(change: Change, key: string, detail: RegExp): void {
  const e = configError(changed(change));
  expect(e.source).toBe('Feed');
  expect(e.key).toBe(key);
  expect(e.message.startsWith(`feed Feed: ${key}: `), e.message).toBe(true);
  expect(e.message).toMatch(detail);
  expect(e.message).not.toContain('\n');
}

const deep = (depth: number): unknown => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

describe('the block as a whole', () => {
  it('the base block compiles', () => {
    expect(compileFeedMapping('Feed', block()).kind).toBe('offers');
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a list', [block()]],
    ['text', 'kind: offers'],
    ['a number', 5],
  ])('refuses %s, naming the block', (_what, config) => {
    const e = configError(config);
    expect(e.key).toBe('(config)');
    expect(e.message).toMatch(/^feed Feed: \(config\): expected a mapping, got /);
  });

  it('takes its enums from the tables it describes', () => {
    const props = BLOCK_SCHEMA.properties as Record<string, any>;
    expect(props.kind.enum).toEqual(KIND_NAMES);
    expect(BLOCK_SCHEMA.definitions.quantity.properties.unit.then.enum).toEqual(UNIT_NAMES);
    expect(props.args.additionalProperties.properties.from.enum).toEqual(FEED_INPUT_KEYS);
    expect(BLOCK_SCHEMA.oneOf.map((v: any) => v.properties.kind.const)).toEqual(KIND_NAMES);
  });
});

describe('shape errors name the feed and the key, what was expected and what was found', () => {
  describe('a missing required key', () => {
    it.each<[string, Change, string, RegExp]>([
      ['kind', (b) => void delete b.kind, 'kind', /required: what the feed's records are: offers, territories/],
      ['operation', (b) => void delete b.operation, 'operation', /required: the source's Query field to call/],
      ['fields', (b) => void delete b.fields, 'fields', /required: canonical key -> field spec/],
      ['a canonical key', (b) => void delete b.fields.offerId, 'fields.offerId', /required for kind offers$/],
      [
        'a nested canonical key',
        (b) => void delete b.fields.energyBlocks.fields.price,
        'fields.energyBlocks.fields.price',
        /required for kind offers$/,
      ],
      [
        'the fields of a list',
        (b) => void delete b.fields.energyBlocks.fields,
        'fields.energyBlocks.fields',
        /required: the keys of each energyBlocks entry: fromKwh, toKwh, price/,
      ],
      [
        'the fields of an object',
        (b) => void delete b.fields.minimumUsageFee.fields,
        'fields.minimumUsageFee.fields',
        /required: the keys of minimumUsageFee: belowKwh, amount/,
      ],
      [
        'a path (or const)',
        (b) => void (b.fields.title = { map: { a: 'b' } }),
        'fields.title.path',
        /required: where the value is \(or set const instead\)/,
      ],
      ['the input of an argument', (b) => void (b.args.zip = { map: {} }), 'args.zip.from', /required: the input the argument takes/],
      [
        "a cursor's next",
        (b) => void (b.pagination = { cursor: { arg: 'cursor' } }),
        'pagination.cursor.next',
        /required: the path of the next cursor/,
      ],
      [
        "a page's size",
        (b) => void (b.pagination = { page: { arg: 'page' } }),
        'pagination.page.size',
        /required: the number of records a full page has/,
      ],
      [
        'items of a paginated feed',
        (b) => void (delete b.items, (b.pagination = { cursor: { arg: 'c', next: 'n' } })),
        'items',
        /a paginated feed needs items/,
      ],
    ])('%s', (_what, change, key, detail) => expectRefused(change, key, detail));
  });

  describe('an unknown key', () => {
    it.each<[string, Change, string, RegExp]>([
      ['in the block', (b) => void (b.feilds = {}), 'feilds', /unknown key \(known: kind, operation, scope, .*, fields\)/],
      ['a canonical key', (b) => void (b.fields.colour = 'c'), 'fields.colour', /unknown key \(known: offerId, supplierName, .*\)/],
      ['a canonical key of another kind', (b) => void (b.fields.timeZone = 'tz'), 'fields.timeZone', /unknown key/],
      [
        'in a field spec',
        (b) => void (b.fields.title = { path: 'name', dflt: 'x' }),
        'fields.title.dflt',
        /unknown key \(known: path, map, default, const, asText\)/,
      ],
      [
        'a unit on a text field',
        (b) => void (b.fields.title = { path: 'name', unit: 'usd' }),
        'fields.title.unit',
        /unknown key \(known: path, map, default, const, asText\)/,
      ],
      [
        'in a nested field spec',
        (b) => void (b.fields.energyBlocks.fields.price.scale = 2),
        'fields.energyBlocks.fields.price.scale',
        /unknown key \(known: path, unit, map, default, const, asText\)/,
      ],
      [
        'in an argument',
        (b) => void (b.args.zip = { from: 'zipCode', default: '75001' }),
        'args.zip.default',
        /unknown key \(known: from, map, const\)/,
      ],
      [
        'in pagination',
        (b) => void (b.pagination = { cursor: { arg: 'c', next: 'n' }, pages: 3 }),
        'pagination.pages',
        /unknown key \(known: cursor, page, maxPages\)/,
      ],
      [
        'in a cursor',
        (b) => void (b.pagination = { cursor: { arg: 'c', next: 'n', first: 1 } }),
        'pagination.cursor.first',
        /unknown key \(known: arg, next\)/,
      ],
    ])('%s', (_what, change, key, detail) => expectRefused(change, key, detail));
  });

  describe('a wrong type', () => {
    it.each<[string, Change, string, RegExp]>([
      ['operation', (b) => void (b.operation = 42), 'operation', /expected a GraphQL field name, got number 42/],
      ['timeoutMs as text', (b) => void (b.timeoutMs = '5s'), 'timeoutMs', /expected an integer 1\.\.600000, got string "5s"/],
      ['timeoutMs as a fraction', (b) => void (b.timeoutMs = 1.5), 'timeoutMs', /expected an integer 1\.\.600000, got number 1\.5/],
      ['sampleZip as a number', (b) => void (b.sampleZip = 75001), 'sampleZip', /expected a 5-digit ZIP code, got number 75001/],
      ['sampleState in lower case', (b) => void (b.sampleState = 'tx'), 'sampleState', /expected a two-letter state code, got string "tx"/],
      [
        'resultType',
        (b) => void (b.resultType = 'Offers Response'),
        'resultType',
        /expected a GraphQL type name, got string "Offers Response"/,
      ],
      ['items', (b) => void (b.items = 3), 'items', /expected a path, got number 3/],
      ['fields as text', (b) => void (b.fields = 'offers'), 'fields', /expected a mapping \(kind offers\), got string "offers"/],
      [
        'a field spec as a number',
        (b) => void (b.fields.title = 7),
        'fields.title',
        /expected a path or \{ path, map, default, const \}, got number 7/,
      ],
      ['a path as a number', (b) => void (b.fields.title = { path: 7 }), 'fields.title.path', /expected a path, got number 7/],
      [
        'a const as an object',
        (b) => void (b.fields.title = { const: { en: 'x' } }),
        'fields.title.const',
        /expected a string, number, boolean or null, got an object/,
      ],
      [
        'a map value as an object',
        (b) => void (b.args.class.map.RESIDENTIAL = { v: 'res' }),
        'args.class.map.RESIDENTIAL',
        /expected a string, number, boolean or null, got an object/,
      ],
      [
        'an argument as a number',
        (b) => void (b.args.zip = 5),
        'args.zip',
        /expected an input name, \{ from, map \} or \{ const \}, got number 5/,
      ],
      [
        'an argument const as a list',
        (b) => void (b.args.channel = { const: ['web'] }),
        'args.channel.const',
        /expected a string, number or boolean, got a list/,
      ],
      [
        'pagination as text',
        (b) => void (b.pagination = 'cursor'),
        'pagination',
        /expected \{ cursor: \{ arg, next \} \} or \{ page: \{ arg, size \} \}, got string "cursor"/,
      ],
      [
        'a page size as text',
        (b) => void (b.pagination = { page: { arg: 'p', size: '50' } }),
        'pagination.page.size',
        /expected an integer 1\.\.100000, got string "50"/,
      ],
      [
        'an object given as a path',
        (b) => void (b.fields.minimumUsageFee = 'minimum'),
        'fields.minimumUsageFee',
        /expected a mapping \(\{ path, fields \} or \{ const: null \}\), got string "minimum"/,
      ],
      [
        'a list given as a path',
        (b) => void (b.fields.energyBlocks = 'tiers'),
        'fields.energyBlocks',
        /expected a mapping \(\{ items, fields \} or \{ path, fields \}\), got string "tiers"/,
      ],
    ])('%s', (_what, change, key, detail) => expectRefused(change, key, detail));
  });

  describe('a bad enum value', () => {
    it.each<[string, Change, string, RegExp]>([
      [
        'kind',
        (b) => void (b.kind = 'plans'),
        'kind',
        /unknown kind "plans" \(known: offers, territories, stateStats, usageShape, premises\)/,
      ],
      [
        'kind as a number',
        (b) => void (b.kind = 1),
        'kind',
        /expected one of offers, territories, stateStats, usageShape, premises, got number 1/,
      ],
      ['scope', (b) => void (b.scope = 'zip'), 'scope', /expected one of request, utility, got string "zip"/],
      [
        'unit',
        (b) => void (b.fields.termMonths.unit = 'decades'),
        'fields.termMonths.unit',
        /unknown unit "decades" \(known: usd, cents, .*, fraction\)/,
      ],
      [
        'an argument input',
        (b) => void (b.args.zip = 'postcode'),
        'args.zip',
        /unknown input "postcode" \(known: zipCode, utilityId, customerClass, state, address\)/,
      ],
      ['from', (b) => void (b.args.class.from = 'segment'), 'args.class.from', /unknown input "segment"/],
    ])('%s', (_what, change, key, detail) => expectRefused(change, key, detail));
  });

  describe('a wrong variant', () => {
    it.each<[string, Change, string, RegExp]>([
      [
        'const with a path',
        (b) => void (b.fields.title = { path: 'name', const: 'x' }),
        'fields.title',
        /const excludes path and default$/,
      ],
      [
        'const with a default',
        (b) => void (b.fields.title = { default: 'x', const: 'x' }),
        'fields.title',
        /const excludes path and default$/,
      ],
      [
        'an argument const with from',
        (b) => void (b.args.zip = { const: '1', from: 'zipCode' }),
        'args.zip',
        /const excludes from and map$/,
      ],
      [
        'a list with items and path',
        (b) => void (b.fields.energyBlocks.path = 'tier'),
        'fields.energyBlocks',
        /items and path exclude each other/,
      ],
      [
        'a list const that is not empty',
        (b) => void (b.fields.credits = { const: [{ minKwh: 1 }] }),
        'fields.credits.const',
        /expected an empty list \(\[\]\), got a list/,
      ],
      [
        'const: [] for a list that needs entries',
        (b) => void (b.fields.energyBlocks = { const: [] }),
        'fields.energyBlocks.const',
        /energyBlocks needs at least 1 entry/,
      ],
      [
        'a nullable object const that is not null',
        (b) => void (b.fields.minimumUsageFee = { const: 0 }),
        'fields.minimumUsageFee.const',
        /expected null, got number 0/,
      ],
      [
        'both cursor and page',
        (b) => void (b.pagination = { cursor: { arg: 'c', next: 'n' }, page: { arg: 'p', size: 5 } }),
        'pagination',
        /set exactly one of cursor or page$/,
      ],
      ['neither cursor nor page', (b) => void (b.pagination = { maxPages: 3 }), 'pagination', /set exactly one of cursor or page$/],
      [
        'a scope the kind does not have',
        () => ({ kind: 'stateStats', operation: 'stats', scope: 'utility', fields: {} }),
        'scope',
        /stateStats feeds are called per request only, not per utility/,
      ],
      [
        'cacheSeconds without scope: utility',
        (b) => void (b.cacheSeconds = 60),
        'cacheSeconds',
        /applies to utility-scoped feeds only \(scope: utility\)/,
      ],
      [
        'a key set automatically',
        (b) => void (b.fields.feed = { const: 'Other' }),
        'fields.feed',
        /not configurable: set to the source name automatically/,
      ],
    ])('%s', (_what, change, key, detail) => expectRefused(change, key, detail));
  });

  describe('empty and oversized values', () => {
    it.each<[string, Change, string, RegExp]>([
      ['an empty operation', (b) => void (b.operation = ''), 'operation', /expected a GraphQL field name, got string ""/],
      ['an empty sampleZip', (b) => void (b.sampleZip = ''), 'sampleZip', /expected a 5-digit ZIP code, got string ""/],
      ['an empty path', (b) => void (b.fields.title = ''), 'fields.title.path', /invalid path "": empty/],
      ['an empty argument name', (b) => void (b.args[''] = 'zipCode'), 'args.', /expected a GraphQL argument name/],
      ['timeoutMs of 0', (b) => void (b.timeoutMs = 0), 'timeoutMs', /expected an integer 1\.\.600000, got number 0/],
      [
        'an operation of 300 characters',
        (b) => void (b.operation = 'o'.repeat(300)),
        'operation',
        /expected at most 200 characters, got 300/,
      ],
      ['a path of 600 characters', (b) => void (b.fields.title = 'a.'.repeat(300) + 'b'), 'fields.title.path', /too long/],
      ['timeoutMs of a billion', (b) => void (b.timeoutMs = 1e9), 'timeoutMs', /got number 1000000000/],
      [
        'maxPages of 5000',
        (b) => void (b.pagination = { cursor: { arg: 'c', next: 'n' }, maxPages: 5000 }),
        'pagination.maxPages',
        /expected an integer 1\.\.1000, got number 5000/,
      ],
      [
        'a map of 1001 values',
        (b) => void (b.args.class.map = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`v${i}`, 'x']))),
        'args.class.map',
        /expected at most 1000 entries, got 1001/,
      ],
      ['an infinite number', (b) => void (b.timeoutMs = Infinity), 'timeoutMs', /expected an integer 1\.\.600000, got number Infinity/],
    ])('%s', (_what, change, key, detail) => expectRefused(change, key, detail));
  });

  describe('null', () => {
    it.each<[string, Change, string, RegExp]>([
      ['kind', (b) => void (b.kind = null), 'kind', /expected one of offers, .*, got null/],
      ['operation', (b) => void (b.operation = null), 'operation', /expected a GraphQL field name, got null/],
      ['fields', (b) => void (b.fields = null), 'fields', /expected a mapping \(kind offers\), got null/],
      ['a field spec', (b) => void (b.fields.title = null), 'fields.title', /expected a path or \{ path, map, default, const \}, got null/],
      ['a unit', (b) => void (b.fields.baseMonthly.unit = null), 'fields.baseMonthly.unit', /expected one of usd, cents, .*, got null/],
      [
        'a map',
        (b) => void (b.fields.rateType.map = null),
        'fields.rateType.map',
        /expected a mapping \(feed value -> our value\), got null/,
      ],
      ['an argument', (b) => void (b.args.zip = null), 'args.zip', /expected an input name, \{ from, map \} or \{ const \}, got null/],
      ['a cursor', (b) => void (b.pagination = { cursor: null }), 'pagination.cursor', /expected a mapping, got null/],
    ])('%s', (_what, change, key, detail) => expectRefused(change, key, detail));

    it('null args and pagination mean none', () => {
      const b = compileFeedMapping('Feed', { ...block(), args: null, pagination: null });
      expect(b.args({ zipCode: '75001' })).toEqual({});
      expect(b.pagination).toBeNull();
    });
  });

  describe('a list where a mapping is expected', () => {
    it.each<[string, Change, string, RegExp]>([
      ['fields', (b) => void (b.fields = [b.fields]), 'fields', /expected a mapping \(kind offers\), got a list/],
      [
        'a field spec',
        (b) => void (b.fields.title = ['name']),
        'fields.title',
        /expected a path or \{ path, map, default, const \}, got a list/,
      ],
      [
        'nested fields',
        (b) => void (b.fields.energyBlocks.fields = [b.fields.energyBlocks.fields]),
        'fields.energyBlocks.fields',
        /expected a mapping \(kind offers\), got a list/,
      ],
      ['args', (b) => void (b.args = ['zipCode']), 'args', /expected a mapping of feed argument -> input, got a list/],
      [
        'a map',
        (b) => void (b.args.class.map = [['RESIDENTIAL', 'res']]),
        'args.class.map',
        /expected a mapping \(feed value -> our value\), got a list/,
      ],
      [
        'pagination',
        (b) => void (b.pagination = [{ cursor: { arg: 'c', next: 'n' } }]),
        'pagination',
        /expected \{ cursor: \{ arg, next \} \} or \{ page: \{ arg, size \} \}, got a list/,
      ],
      ['a page', (b) => void (b.pagination = { page: [{ arg: 'p', size: 5 }] }), 'pagination.page', /expected a mapping, got a list/],
    ])('%s', (_what, change, key, detail) => expectRefused(change, key, detail));
  });
});

describe("the validator compiled ahead of time (npm start's build)", () => {
  it('answers exactly as the one compiled at load, valid and invalid blocks alike', async () => {
    // Beside the project, so its require() of ajv's runtime resolves as in the bundle.
    const dir = mkdtempSync(`${ROOT}test/.block-validator-`);
    try {
      const file = `${dir}/validator.mjs`;
      writeFileSync(
        file,
        `import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);\n${blockValidatorSource()}`,
      );
      const ahead = (await import(pathToFileURL(file).href)).default as (b: unknown) => boolean & { errors?: unknown };
      const atLoad = new Ajv(BLOCK_AJV_OPTIONS).compile(BLOCK_SCHEMA);
      const changes: Change[] = [
        () => {},
        (b) => void delete b.kind,
        (b) => void (b.kind = 'tariffs'),
        (b) => void (b.feilds = {}),
        (b) => void (b.fields.title = { path: 'name', unit: 'usd' }),
        (b) => void (b.timeoutMs = -5),
        (b) => void (b.args = []),
        (b) => void (b.fields.energyBlocks.fields.price.unit = 'usd_per_gwh'),
        (b) => void (b.pagination = { cursor: { arg: 'c' } }),
      ];
      for (const change of changes) {
        const b = block();
        change(b);
        const errorsOf = (v: { errors?: unknown }) => JSON.parse(JSON.stringify((v.errors ?? []) as object[]));
        expect(ahead(b)).toBe(atLoad(b));
        expect(errorsOf(ahead as { errors?: unknown })).toEqual(errorsOf(atLoad));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('hostile values', () => {
  it('deep nesting is refused at its first level', () => {
    expectRefused(
      (b) => void (b.fields.title = { const: deep(100_000) }),
      'fields.title.const',
      /expected a string, number, boolean or null, got an object$/,
    );
    expectRefused((b) => void (b.extra = deep(100_000)), 'extra', /unknown key/);
    expectRefused((b) => void (b.args.class.map.RESIDENTIAL = deep(100_000)), 'args.class.map.RESIDENTIAL', /got an object$/);
  });

  it('__proto__ and constructor keys are unknown keys, and reserved as argument names', () => {
    const parsed = (extra: string) => JSON.parse(JSON.stringify(block()).replace(/^\{/, `{${extra},`));
    expectRefused(() => parsed('"__proto__": { "polluted": true }'), '__proto__', /unknown key \(known: kind, /);
    expectRefused(
      (b) => JSON.parse(JSON.stringify(b).replace('"offerId":', '"__proto__": "x", "offerId":')),
      'fields.__proto__',
      /unknown key/,
    );
    expectRefused((b) => void (b.fields.constructor = 'x'), 'fields.constructor', /unknown key/);
    expectRefused(
      (b) => JSON.parse(JSON.stringify(b).replace('"zip":', '"__proto__": "zipCode", "zip":')),
      'args.__proto__',
      /expected a GraphQL argument name \(not starting with __\), got string "__proto__"/,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a feed value "__proto__" in a map is a plain key', () => {
    const config = JSON.parse(JSON.stringify(block()).replace('"RESIDENTIAL":"res"', '"__proto__":"proto","RESIDENTIAL":"res"'));
    const b = compileFeedMapping('Feed', config);
    expect(b.args({ zipCode: '75001', customerClass: 'RESIDENTIAL' })).toEqual({ zip: '75001', class: 'res', channel: 'web' });
    expect(b.args({ zipCode: '75001', customerClass: '__proto__' as 'RESIDENTIAL' })).toEqual({
      zip: '75001',
      class: 'proto',
      channel: 'web',
    });
    expect(Object.prototype).not.toHaveProperty('proto');
  });

  it('thousands of problems make one bounded message', () => {
    const e = configError(changed((b) => void Object.assign(b, Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`x${i}`, i])))));
    expect(e.key).toBe('x0');
    expect(e.message).toContain('(and 4999 more: x1: unknown key');
    expect(e.message).toMatch(/; …\)$/);
    expect(e.message.length).toBeLessThan(10_000);
  });
});
