// The mapping's call scope, context paths, pagination and plausibility ranges, without
// Mesh: compileFeedMapping + map, callPaged with an injected page call and clock, the feed events'
// counters and throttled warnings with an injected clock. End to end: test/e2e/utility-feed.test.ts
// and test/e2e/feeds-check-misconfigurations.test.ts.
import { describe, expect, it } from 'vitest';
import { compileFeedMapping, FeedConfigError, type FeedBinding } from '../../transforms/mapping/index.js';
import { callPaged } from '../../transforms/paged-call.js';
import { createFeedEvents, feedEventCounts, feedHealth, resetFeedEvents, THROTTLE_MS } from '../../transforms/feed-events.js';
import { likelyUnits, checkRanges } from '../../transforms/mapping/plausibility.js';
import { plausibleRange, PLAUSIBLE_RANGES } from '../../domain/plausibility.js';
import { KINDS } from '../../transforms/mapping/kinds.js';
import { readFileSync } from 'node:fs';

/** A Sunpath-like block: offers per utility, in cursor pages, utility and class from the context. */
const sunpath = (over: Record<string, unknown> = {}) => ({
  kind: 'offers',
  operation: 'sunpathOffers',
  scope: 'utility',
  args: { utility: 'utilityId', segment: { from: 'customerClass', map: { RESIDENTIAL: 'res' } } },
  pagination: { cursor: { arg: 'cursor', next: 'paging.next' }, maxPages: 3 },
  items: 'offers',
  fields: {
    offerId: 'sku',
    supplierName: 'brand',
    title: 'headline',
    customerClass: '$request.customerClass',
    utilityId: '$page.territory',
    rateType: { const: 'FIXED' },
    termMonths: { path: 'termYears', unit: 'years' },
    energyBlocks: { fields: { price: { path: 'millsPerKwh', unit: 'mills_per_kwh' } } },
    baseMonthly: { path: 'monthlyCents', unit: 'cents', default: 0 },
    cancellationFee: { path: 'exitCents', unit: 'cents', default: 0 },
  },
  ...over,
});

const configError = (f: () => unknown): FeedConfigError => {
  try {
    f();
  } catch (e) {
    if (e instanceof FeedConfigError) return e;
    throw e;
  }
  throw new Error('no FeedConfigError');
};

const rec = (sku: string, mills: number, extra: Record<string, unknown> = {}) => ({
  sku,
  brand: 'Sunpath',
  headline: sku,
  termYears: 1,
  millsPerKwh: mills,
  ...extra,
});
const page = (offers: unknown[], next: string | null) => ({ territory: 'ONCOR', offers, paging: { next } });
const request = { utilityId: 'ONCOR', customerClass: 'RESIDENTIAL' as const };

describe('context paths and call scope', () => {
  it('reads $request inputs and $page fields into canonical fields', () => {
    const b = compileFeedMapping('Sunpath', sunpath());
    expect(b.scope).toBe('utility');
    const out = b.map(page([rec('A', 112.5)], null), request);
    expect(out.rejected).toEqual([]);
    expect(out.records[0]).toMatchObject({
      utilityId: 'ONCOR',
      customerClass: 'RESIDENTIAL',
      termMonths: 12,
      energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 112_500 }],
    });
    expect(out.next).toEqual({ cursor: null });
  });

  it.each([
    [
      '$request.zipCode in a utility-scoped feed',
      { fields: { ...sunpath().fields, title: '$request.zipCode' } },
      'fields.title.path',
      /\$request\.zipCode is not always given to a utility-scoped offers feed \(always given: utilityId, customerClass\)/,
    ],
    [
      '$request.utilityId in a request-scoped feed',
      { scope: 'request', args: {}, fields: { ...sunpath().fields, utilityId: '$request.utilityId' } },
      'fields.utilityId.path',
      /not always given to a request-scoped offers feed/,
    ],
    [
      'an unknown context',
      { fields: { ...sunpath().fields, title: '$session.user' } },
      'fields.title.path',
      /unknown context path "\$session\.user"/,
    ],
    ['a broken page path', { fields: { ...sunpath().fields, title: '$page.a..b' } }, 'fields.title.path', /invalid path/],
    [
      'zipCode as an argument of a utility-scoped feed',
      { args: { zip: 'zipCode' } },
      'args.zip',
      /zipCode is never given to a utility-scoped offers feed/,
    ],
    [
      'a scope the kind does not have',
      { kind: 'territories', fields: {} },
      'scope',
      /territories feeds are called per request only, not per utility/,
    ],
    ['an unknown scope', { scope: 'zip' }, 'scope', /expected one of request, utility, got string "zip"/],
    [
      'cacheSeconds on a request-scoped feed',
      { scope: 'request', args: {}, cacheSeconds: 5, fields: { ...sunpath().fields, utilityId: 'u' } },
      'cacheSeconds',
      /utility-scoped feeds only/,
    ],
    [
      'pagination with both styles',
      { pagination: { cursor: { arg: 'c', next: 'n' }, page: { arg: 'p', size: 5 } } },
      'pagination',
      /exactly one of cursor or page/,
    ],
    ['a cursor without next', { pagination: { cursor: { arg: 'cursor' } } }, 'pagination.cursor.next', /required/],
    [
      'a paging argument that is also under args',
      { pagination: { page: { arg: 'segment', size: 10 } } },
      'pagination.page.arg',
      /under args too/,
    ],
    [
      'a page size of 0',
      { pagination: { page: { arg: 'p', size: 0 } } },
      'pagination.page.size',
      /expected an integer 1\.\.100000, got number 0/,
    ],
    ['maxPages too large', { pagination: { cursor: { arg: 'c', next: 'n' }, maxPages: 5000 } }, 'pagination.maxPages', /1\.\.1000/],
    ['pagination without items', { items: undefined }, 'items', /a paginated feed needs items/],
  ])('refuses %s, naming the key', (_what, over, key, message) => {
    const e = configError(() => compileFeedMapping('Sunpath', sunpath(over as Record<string, unknown>)));
    expect(e.message).toMatch(/^feed Sunpath: /);
    expect(e.message).not.toContain('\n');
    expect(`${e.key}: ${e.message}`).toMatch(new RegExp(`^${key.replace(/\./g, '\\.')}: `));
    expect(e.message).toMatch(message);
  });
});

describe('a unit given per record', () => {
  const termBlock = (unit: unknown) => sunpath({ fields: { ...sunpath().fields, termMonths: { path: 'term.value', unit } } });
  const termOf = (term: unknown) => rec('T', 112.5, { term });

  it('a path whose values choose the unit: MONTH and YEAR terms from one feed', () => {
    const b = compileFeedMapping('Sunpath', termBlock({ path: 'term.unit', map: { MONTH: 'months', YEAR: 'years' } }));
    const out = b.map(
      page(
        [
          { ...termOf({ value: 18, unit: 'MONTH' }), sku: 'M' },
          { ...termOf({ value: 2, unit: 'YEAR' }), sku: 'Y' },
          { ...termOf({ value: 3, unit: 'DECADE' }), sku: 'D' },
        ],
        null,
      ),
      request,
    );
    expect(out.records.map((o) => [(o as { offerId: string }).offerId, (o as { termMonths: number }).termMonths])).toEqual([
      ['M', 18],
      ['Y', 24],
    ]);
    expect(out.rejected).toEqual([
      { index: 2, reason: 'termMonths (term.value): unit "DECADE" at term.unit is not in unit.map (MONTH, YEAR)' },
    ]);
  });

  it('money whose currency unit comes with each record; a unit of the wrong kind or a constant is refused at start', () => {
    const b = compileFeedMapping(
      'Sunpath',
      sunpath({
        fields: {
          ...sunpath().fields,
          baseMonthly: { path: 'fee.amount', unit: { path: 'fee.unit', map: { USD: 'usd', CENTS: 'cents' } } },
        },
      }),
    );
    const out = b.map(
      page(
        [
          { ...rec('A', 112.5), fee: { amount: '4.95', unit: 'USD' } },
          { ...rec('B', 112.5), fee: { amount: 495, unit: 'CENTS' } },
        ],
        null,
      ),
      request,
    );
    expect(out.records.map((o) => o as { baseMonthlyMicro?: number; baseMonthly?: number })).toHaveLength(2);
    expect(JSON.stringify(out.records[0])).toBe(JSON.stringify({ ...out.records[0], offerId: 'A' }));
    expect(
      configError(() => compileFeedMapping('Sunpath', termBlock({ path: 'term.unit', map: { MONTH: 'months', YEAR: 'usd' } }))).message,
    ).toMatch(/fields\.termMonths\.unit\.map: usd is not a duration, but termMonths is|fields\.termMonths\.unit\.map: usd is not/);
    const constant = sunpath({
      fields: { ...sunpath().fields, termMonths: { const: 12, unit: { path: 'term.unit', map: { MONTH: 'months' } } } },
    });
    expect(configError(() => compileFeedMapping('Sunpath', constant)).message).toMatch(/a constant cannot take its unit from the record/);
  });
});

describe('nested page-level paths and a single price object', () => {
  it('$page.<a.b.c> reads deep into the page; energyBlocks from one flat price object is one open block', () => {
    const b = compileFeedMapping(
      'Sunpath',
      sunpath({
        fields: {
          ...sunpath().fields,
          utilityId: '$page.meta.territory.code',
          energyBlocks: { path: 'flat', fields: { price: { path: 'centsPerKwh', unit: 'cents_per_kwh' } } },
        },
      }),
    );
    const payload = {
      meta: { territory: { code: 'TNMP' } },
      offers: [{ ...rec('A', 0), flat: { centsPerKwh: '12.5' } }],
      paging: { next: null },
    };
    const out = b.map(payload, request);
    expect(out.rejected).toEqual([]);
    expect(out.records[0]).toMatchObject({ utilityId: 'TNMP', energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 125_000 }] });
  });
});

describe('pagination (callPaged)', () => {
  const bound = (over: Record<string, unknown> = {}) => compileFeedMapping('Sunpath', sunpath(over)) as unknown as FeedBinding<'offers'>;

  it('follows cursors to the last page, page arguments set per page', async () => {
    const asked: Record<string, unknown>[] = [];
    const pages: Record<string, unknown> = {
      '-': page([rec('A', 100)], 'c2'),
      c2: page([rec('B', 101)], 'c3'),
      c3: page([rec('C', 102)], ''),
    };
    const r = await callPaged(bound(), request, async (args) => {
      asked.push(args);
      return pages[(args.cursor as string | undefined) ?? '-'];
    });
    expect(r.records.map((o) => o.offerId)).toEqual(['A', 'B', 'C']);
    expect(r).toMatchObject({ pages: 3, truncated: null });
    expect(asked).toEqual([
      { utility: 'ONCOR', segment: 'res' },
      { utility: 'ONCOR', segment: 'res', cursor: 'c2' },
      { utility: 'ONCOR', segment: 'res', cursor: 'c3' },
    ]);
  });

  it('stops at maxPages and says so', async () => {
    let n = 0;
    const r = await callPaged(bound(), request, async () => page([rec(`R${n}`, 100)], `c${++n}`));
    expect(r.pages).toBe(3);
    expect(r.records).toHaveLength(3);
    expect(r.truncated).toBe('stopped after 3 pages (maxPages 3); the feed has more');
  });

  it('stops when the timeout for all pages runs out, keeping the pages read; each page gets the time left', async () => {
    let clock = 0;
    const timeouts: number[] = [];
    const b = bound({ timeoutMs: 1000, pagination: { cursor: { arg: 'cursor', next: 'paging.next' }, maxPages: 50 } });
    const r = await callPaged(
      b,
      request,
      async (_args, timeoutMs) => {
        timeouts.push(timeoutMs);
        clock += 400;
        return page([rec(`R${clock}`, 100)], 'more');
      },
      () => clock,
    );
    expect(timeouts).toEqual([1000, 600, 200]);
    expect(r.pages).toBe(3);
    expect(r.truncated).toBe('stopped after 3 pages: its timeout (1000 ms, for all pages) ran out');
  });

  it('page/size style: page numbers from `first`, stops at a short page', async () => {
    const asked: unknown[] = [];
    const b = bound({ pagination: { page: { arg: 'page', first: 0, sizeArg: 'limit', size: 2 } } });
    const r = await callPaged(b, request, async (args) => {
      asked.push(args);
      return page(args.page === 0 ? [rec('A', 100), rec('B', 100)] : [rec('C', 100)], null);
    });
    expect(r.records.map((o) => o.offerId)).toEqual(['A', 'B', 'C']);
    expect(asked).toEqual([
      { utility: 'ONCOR', segment: 'res', page: 0, limit: 2 },
      { utility: 'ONCOR', segment: 'res', page: 1, limit: 2 },
    ]);
  });

  it('a failing first page fails the call; a later page failing in time does too', async () => {
    await expect(callPaged(bound(), request, async () => Promise.reject(new Error('HTTP 500')))).rejects.toThrow('HTTP 500');
    let n = 0;
    await expect(
      callPaged(bound(), request, async () => (n++ ? Promise.reject(new Error('HTTP 502')) : page([rec('A', 100)], 'c2'))),
    ).rejects.toThrow('HTTP 502');
  });

  it('rejections of later pages say which page', async () => {
    const r = await callPaged(bound(), request, async (args) => (args.cursor ? page([{ sku: 'X' }], null) : page([rec('A', 100)], 'c2')));
    expect(r.rejected).toHaveLength(1);
    expect(r.rejected[0]!.reason).toMatch(/^page 2: /);
  });
});

describe('plausibility', () => {
  it('has one range per canonical quantity field a kind has, and nothing else', () => {
    for (const [kind, table] of Object.entries(PLAUSIBLE_RANGES)) {
      for (const field of Object.keys(table)) {
        const [top, nested] = field.split('.');
        const def = KINDS[kind as keyof typeof KINDS].fields[top!];
        expect(def, `${kind}.${field}`).toBeDefined();
        const vt = nested ? (def!.value as { fields: Record<string, { value: { type: string } }> }).fields[nested]!.value : def!.value;
        expect(vt.type, `${kind}.${field}`).toBe('quantity');
      }
    }
  });

  it('names the unit a value would be plausible in', () => {
    const price = plausibleRange('offers', 'energyBlocks.price')!;
    expect(likelyUnits(69_900_000, 'usd_per_kwh', price)).toEqual(['usd_per_mwh', 'mills_per_kwh']); // 69.9 "USD/kWh"
    expect(likelyUnits(1_240_000, 'usd_per_kwh', price)).toEqual(['cents_per_kwh']); // 12.4 "USD/kWh"
    const fee = plausibleRange('offers', 'cancellationFee')!;
    expect(likelyUnits(15_000_000_000, 'usd', fee)).toEqual(['cents']);
    expect(likelyUnits(432, 'years', plausibleRange('offers', 'termMonths')!)).toEqual(['months']);
  });

  it('soft: the record is kept and a doubt names field and unit; hard: the record is dropped with the reason', () => {
    const b = compileFeedMapping(
      'Sunpath',
      sunpath({
        fields: {
          ...sunpath().fields,
          baseMonthly: { path: 'monthlyCents', unit: 'usd', default: 0 },
          cancellationFee: { path: 'exitCents', unit: 'usd', default: 0 },
        },
      }),
    );
    const out = b.map(
      page(
        [rec('SOFT', 112.5, { monthlyCents: 495 }), rec('HARD', 112.5, { exitCents: 15000 }), rec('OK', 112.5, { monthlyCents: 9 })],
        null,
      ),
      request,
    );
    expect(out.records.map((o) => (o as { offerId: string }).offerId)).toEqual(['SOFT', 'OK']);
    expect(out.doubts).toEqual([
      {
        index: 0,
        field: 'baseMonthly',
        message: 'baseMonthly 495 USD is outside the plausible range 0 USD to 100 USD; looks like cents, not USD (unit: cents)',
      },
    ]);
    expect(out.rejected).toEqual([
      {
        index: 1,
        implausible: 'cancellationFee',
        reason:
          'implausible: cancellationFee 15000 USD is outside the possible range 0 USD to 10000 USD; looks like cents, not USD (unit: cents)',
      },
    ]);
  });

  it('a unit mistake across a call: every non-zero base charge implausible the same way drops them all, across pages', async () => {
    const usd = compileFeedMapping(
      'Sunpath',
      sunpath({ fields: { ...sunpath().fields, baseMonthly: { path: 'monthlyCents', unit: 'usd', default: 0 } } }),
    ) as unknown as FeedBinding<'offers'>;
    const pages: Record<string, unknown> = {
      '-': page([rec('A', 112.5, { monthlyCents: 495 }), rec('ZERO', 112.5, { monthlyCents: 0 })], 'c2'),
      c2: page([rec('B', 112.5, { monthlyCents: 999 })], ''),
    };
    const r = await callPaged(usd, request, async (args) => pages[(args.cursor as string | undefined) ?? '-']);
    // The zero is right in any unit and stays.
    expect(r.records.map((o) => o.offerId)).toEqual(['ZERO']);
    expect(r.rejected).toEqual([
      expect.objectContaining({ index: 0, implausible: 'baseMonthly', systematic: true }),
      expect.objectContaining({ index: 0, implausible: 'baseMonthly', systematic: true }),
    ]);
    expect(r.rejected[0]!.reason).toBe(
      'implausible: every one of the 2 non-zero baseMonthly values is outside its plausible range, e.g. ' +
        'baseMonthly 495 USD is outside the plausible range 0 USD to 100 USD; looks like cents, not USD (unit: cents)',
    );
    // One doubtful value beside a plausible one, or alone, is an outlier: served, with a doubt.
    const mixed = await callPaged(usd, request, async () =>
      page([rec('A', 112.5, { monthlyCents: 495 }), rec('B', 112.5, { monthlyCents: 9 })], ''),
    );
    expect(mixed.records.map((o) => o.offerId)).toEqual(['A', 'B']);
    const single = await callPaged(usd, request, async () => page([rec('A', 112.5, { monthlyCents: 495 })], ''));
    expect(single.records).toHaveLength(1);
    expect(single.doubts).toHaveLength(1);
  });

  it('walks lists: every energy block price is checked', () => {
    const units = new Map([['energyBlocks.price', 'usd_per_kwh' as const]]);
    const findings = checkRanges('offers', { energyBlocks: [{ price: 100_000 }, { price: 69_900_000 }] }, units);
    expect(findings).toEqual([
      expect.objectContaining({ field: 'energyBlocks.price', level: 'hard', message: expect.stringContaining('69.9 USD/kWh') }),
    ]);
    expect(findings[0]!.message).toContain('looks like USD/MWh or mills/kWh, not USD/kWh (unit: usd_per_mwh or mills_per_kwh)');
  });
});

describe('feed events', () => {
  it('counts every event and warns at most once per feed, event and field per throttle period', () => {
    let now = 0;
    const warned: string[] = [];
    const events = createFeedEvents({ warn: (_obj, msg) => warned.push(msg) }, () => now);
    const before = feedEventCounts().Throttled ?? { truncated: 0, implausible: {} as Record<string, number> };
    events.truncated('Throttled', 'stopped after 3 pages');
    events.truncated('Throttled', 'stopped after 3 pages');
    events.implausible('Throttled', 'energyBlocks.price', 'implausible: x');
    events.implausible('Throttled', 'baseMonthly', 'implausible: y');
    now = THROTTLE_MS;
    events.truncated('Throttled', 'stopped after 4 pages');
    const after = feedEventCounts().Throttled!;
    expect(after.truncated - before.truncated).toBe(3);
    expect(after.implausible['energyBlocks.price']).toBe((before.implausible['energyBlocks.price'] ?? 0) + 1);
    expect(warned).toEqual([
      'feed Throttled: pages left out: stopped after 3 pages',
      'feed Throttled: record dropped: implausible: x',
      'feed Throttled: record dropped: implausible: y',
      'feed Throttled: pages left out: stopped after 4 pages',
    ]);
  });
});

describe('feed health (/readyz)', () => {
  it('the last answer of each feed: ok, some records dropped, or failing when every record was implausible', () => {
    const events = createFeedEvents(undefined, () => Date.UTC(2026, 0, 2));
    events.answered('HealthOk', 3, []);
    events.answered('HealthSome', 2, [{ reason: 'offerId: missing' }]);
    events.answered('HealthUnit', 0, [
      { reason: 'implausible: energyBlocks.price 101.91 USD/kWh …', implausible: 'energyBlocks.price' },
      { reason: 'implausible: energyBlocks.price 99 USD/kWh …', implausible: 'energyBlocks.price' },
    ]);
    const h = feedHealth();
    expect(h.ok).toBe(false);
    expect(h.feeds).toMatchObject({ HealthOk: 'ok', HealthSome: 'some records dropped' });
    expect(h.feeds.HealthUnit).toMatch(/^failing: every record of its last answer was dropped for an implausible value/);
    expect(feedEventCounts().HealthSome!.last).toEqual({
      at: '2026-01-02T00:00:00.000Z',
      served: 2,
      dropped: 1,
      example: 'offerId: missing',
      unitMistake: false,
    });
    // A feed that answers well again is ready again; counts keep adding up.
    events.answered('HealthUnit', 4, []);
    expect(feedHealth().feeds.HealthUnit).toBe('ok');
    expect(feedEventCounts().HealthUnit).toMatchObject({ served: 4, dropped: 2 });
    resetFeedEvents();
    expect(feedHealth()).toEqual({ ok: true, feeds: {} });
  });
});

describe("docs/feeds.md, the feed author's reference", () => {
  const doc = readFileSync(new URL('../../docs/feeds.md', import.meta.url), 'utf8');
  const section = (title: string) => {
    const start = doc.indexOf(title);
    const end = doc.indexOf('\n## ', start + 1);
    return doc.slice(start, end < 0 ? undefined : end);
  };

  it('lists every canonical field of every kind', () => {
    const reference = section('## Canonical fields per feed kind');
    for (const [kind, def] of Object.entries(KINDS)) {
      const table = reference.slice(reference.indexOf(`### ${kind}`));
      for (const field of Object.keys(def.fields)) {
        const named = kind === 'stateStats' && field === 'generation' ? '`generation.<SOURCE>`' : new RegExp('`' + field + '(`|\\.)');
        expect(table, `${kind}.${field}`).toMatch(named);
      }
    }
  });

  it('shows every plausible range of the table in code', () => {
    const ranges = section('## Plausible ranges');
    for (const [kind, table] of Object.entries(PLAUSIBLE_RANGES)) {
      for (const field of Object.keys(table))
        expect(ranges, `${kind}.${field}`).toMatch(new RegExp(`^\\| ${kind} \\|.*\`${field.replace('.', '\\.')}\``, 'm'));
    }
  });
});
