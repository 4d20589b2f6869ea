// `npm run feeds:check` on misconfigured feeds (call scope, paths, pages, units), each failing (or, for a
// soft range, warning) with a message naming the feed and the field; and on the Sunpath example
// (utility-scoped, cursor pages), whose calls, pages and truncation it reports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mappingOf, ROOT, writeConfigDir } from '../support/feed-config.js';
import { feedsCheck, type Run } from '../support/feeds-check-cli.js';
import { PAGES, startSunpath, type Upstream } from '../support/sunpath-upstream.js';

const feedOf = (r: Run, feed: string) => JSON.parse(r.stdout).feeds.find((f: { feed: string }) => f.feed === feed);

let tmp: string;
let sunpath: Upstream;
const SUNPATH = 'examples/sunpath-feed.yaml';
const GRIDWISE = 'examples/gridwise-feed.yaml';

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'feeds-check-2-'));
  sunpath = await startSunpath();
});
afterAll(async () => {
  await sunpath?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('feeds:check on misconfigured and paged feeds', () => {
  it('calls a utility-scoped feed once per choice territory of the sample ZIP and customer class, follows its pages, and reports a cut-off', async () => {
    const ok = writeConfigDir(tmp, 'sunpath', [SUNPATH]);
    const capped = writeConfigDir(tmp, 'sunpath-capped', [SUNPATH], (c) => void (mappingOf(c, 'Sunpath').pagination.maxPages = 1));
    const env = { SUNPATH_URL: sunpath.url };
    sunpath.seen.length = 0;
    const a = await feedsCheck(['--dir', ok, '--json'], env);
    // Every customer class the feed declares is tried (COMMERCIAL maps to segment=biz).
    expect(new Set(sunpath.seen)).toEqual(new Set(['ONCOR res -', 'ONCOR res ONCOR-1', 'ONCOR biz -']));
    const b = await feedsCheck(['--dir', capped], env);
    expect(a.code, a.stderr).toBe(0);
    expect(feedOf(a, 'Sunpath')).toMatchObject({
      status: 'ok',
      // Residential and commercial: the class reaches the feed's arguments (segment=res, segment=biz).
      calls: 2,
      pages: 3,
      records: PAGES.ONCOR!.flat().length,
      rejected: 0,
      warnings: [],
      error: null,
    });
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain(
      'Sunpath: warning: pages left out: utility ONCOR, RESIDENTIAL: stopped after 1 pages (maxPages 1); the feed has more',
    );
  }, 120_000);

  it('point 2: a required argument from an input that is not always given fails, naming feed and argument', async () => {
    const dir = writeConfigDir(tmp, 'sunpath-no-scope', [SUNPATH], (c) => {
      const m = mappingOf(c, 'Sunpath');
      delete m.scope;
      delete m.cacheSeconds;
    });
    const r = await feedsCheck(['--dir', dir], { SUNPATH_URL: sunpath.url });
    expect(r.code).toBe(1);
    const [lead, error, ...rest] = r.stderr.trimEnd().split('\n');
    expect(lead).toMatch(/^feeds:check: configuration error in /);
    expect(rest).toEqual([]);
    expect(error).toBe(
      '  feed Sunpath: args.utility: the request path /sunpath/v3/territories/{args.utility}/offers needs argument "utility", but utilityId ' +
        'is not always given to a request-scoped feed (always given: zipCode, customerClass); set scope: utility to call the feed once per ' +
        'utility serving the ZIP',
    );
  }, 120_000);

  it('point 3: a sample.json beside an OpenAPI contract is checked against the response schema', async () => {
    const voltify = path.join(tmp, 'voltify-contract');
    fs.mkdirSync(voltify, { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'sources/voltify/openapi.yaml'), path.join(voltify, 'openapi.yaml'));
    const sample = JSON.parse(fs.readFileSync(path.join(ROOT, 'sources/voltify/sample.json'), 'utf8'));
    sample.offers[0].renewablePercent = 'lots';
    fs.writeFileSync(path.join(voltify, 'sample.json'), JSON.stringify(sample));
    const dir = writeConfigDir(tmp, 'voltify-bad-sample', [], (c) => {
      c.sources.find((s) => s.name === 'Voltify').handler.openapi.source = path.join(voltify, 'openapi.yaml');
    });
    const r = await feedsCheck(['--dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^Voltify: FAIL: .*sample\.json does not match openapi\.yaml: \/offers\/0\/renewablePercent must be number/m);
  }, 120_000);

  it('point 4: a plausible-looking wrong unit is named: impossible values fail, implausible ones warn', async () => {
    const perMwh = writeConfigDir(tmp, 'gridwise-usd-per-kwh', [GRIDWISE], (c) => {
      mappingOf(c, 'Gridwise').fields.energyBlocks.fields.price.unit = 'usd_per_kwh';
    });
    const fee = writeConfigDir(
      tmp,
      'sunpath-fee-usd',
      [SUNPATH],
      (c) => void (mappingOf(c, 'Sunpath').fields.cancellationFee.unit = 'usd'),
    ); // 15000 cents read as $15,000: not possible
    // 495 cents read as $495 a month: possible, not plausible
    const base = writeConfigDir(tmp, 'sunpath-base-usd', [SUNPATH], (c) => void (mappingOf(c, 'Sunpath').fields.baseMonthly.unit = 'usd'));
    const env = { SUNPATH_URL: sunpath.url };
    const [a, b, c] = await Promise.all([
      feedsCheck(['--dir', perMwh]),
      feedsCheck(['--dir', fee, '--json'], env),
      feedsCheck(['--dir', base, '--json'], env),
    ]);
    expect(a.code).toBe(1);
    expect(a.stdout).toMatch(
      /^Gridwise: FAIL: every record was dropped, e\.g\. implausible: energyBlocks\.price [0-9.]+ USD\/kWh is outside the possible range 0 USD\/kWh to 5 USD\/kWh; looks like USD\/MWh or mills\/kWh, not USD\/kWh \(unit: usd_per_mwh or mills_per_kwh\)/m,
    );
    expect(a.stdout).toMatch(/sources\/gridwise\/sample\.json: record \d+: implausible: energyBlocks\.price/);

    // Live, the records with an impossible fee are dropped and the others served; the contract's sample holding one fails.
    expect(b.code, b.stderr).toBe(1);
    const dropped = feedOf(b, 'Sunpath');
    expect(dropped).toMatchObject({ status: 'FAIL', records: 1, rejected: 2 });
    expect(dropped.error).toBe(
      'sources/sunpath/sample.json: record 0: implausible: cancellationFee 15000 USD is outside the possible range 0 USD to 10000 USD; looks ' +
        'like cents, not USD (unit: cents)',
    );
    expect(dropped.warnings).toContain(
      'record 0 rejected: utility ONCOR, RESIDENTIAL: implausible: cancellationFee 15000 USD is outside the possible range 0 USD to 10000 USD; ' +
        'looks like cents, not USD (unit: cents)',
    );

    // Each base charge possible, but every non-zero one implausible the same way: a unit mistake,
    // which fails like the USD/kWh case (the gateway drops those records alike).
    expect(c.code, c.stderr).toBe(1);
    const doubted = feedOf(c, 'Sunpath');
    expect(doubted).toMatchObject({ status: 'FAIL' });
    expect(doubted.error).toMatch(
      new RegExp(
        '^a unit mistake: utility ONCOR, RESIDENTIAL: implausible: every one of the \\d+ non-zero baseMonthly values is outside its plausible ' +
          'range, e\\.g\\. baseMonthly 495 USD is outside the plausible range 0 USD to 100 USD; looks like cents, not USD \\(unit: cents\\)$',
      ),
    );
  }, 120_000);

  it('point 5: a wrong path is one line in our words, naming feed and key, with no generated type names', async () => {
    const dir = writeConfigDir(
      tmp,
      'sunpath-bad-path',
      [SUNPATH],
      (c) => void (mappingOf(c, 'Sunpath').fields.supplierName = 'brand.name'),
    );
    const r = await feedsCheck(['--dir', dir], { SUNPATH_URL: sunpath.url });
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('  feed Sunpath: fields.supplierName: path offers.brand.name: offers.brand has no field "name" (fields: legal)');
    expect(r.stderr).not.toMatch(/Failed to generate|query_|_items_|SunpathBrand/);
  }, 120_000);
});
