// A plausible-looking wrong unit (issue 40, rows 1-3): each value inside its plausible range, the feed
// off the other feeds of its territory by a unit. feeds:check fails naming the feed, the field, the
// likely unit and the YAML line; a production start refuses it (exit 78), so it is never served,
// unless the feed's block says `unitCheck: serve-anyway`. Row 5: feeds:check never crashes on a
// mapping it rejects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gatewayEnv, mappingOf, ROOT, writeConfigDir } from '../support/feed-config.js';
import { feedsCheck } from '../support/feeds-check-cli.js';
import { spawnMain } from '../support/main-process.js';
import { startSunpath, type Upstream } from '../support/sunpath-upstream.js';
import { launchGateway } from '../../start/launch.js';

let tmp: string;
let sunpath: Upstream;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'feeds-units-'));
  sunpath = await startSunpath();
});
afterAll(async () => {
  await sunpath?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const ROWS = [
  {
    row: 1,
    name: 'voltify-price-mills',
    blocks: [] as string[],
    feed: 'Voltify',
    field: 'energyBlocks.price',
    mutate: (c: { sources: any[] }) => void (mappingOf(c, 'Voltify').fields.energyBlocks.fields.price.unit = 'mills_per_kwh'),
    declared: 'mills_per_kwh',
    likely: /looks like cents\/kWh, not mills\/kWh \(unit: cents_per_kwh\)/,
  },
  {
    row: 2,
    name: 'gridwise-permwh-cents',
    blocks: ['examples/gridwise-feed.yaml'],
    feed: 'Gridwise',
    field: 'energyBlocks.price',
    mutate: (c: { sources: any[] }) => void (mappingOf(c, 'Gridwise').fields.energyBlocks.fields.price.unit = 'cents_per_kwh'),
    declared: 'cents_per_kwh',
    likely: /looks like USD\/MWh or mills\/kWh, not cents\/kWh \(unit: usd_per_mwh or mills_per_kwh\)/,
  },
  {
    row: 3,
    name: 'voltify-fee-cents',
    blocks: [] as string[],
    feed: 'Voltify',
    field: 'cancellationFee',
    mutate: (c: { sources: any[] }) => void (mappingOf(c, 'Voltify').fields.cancellationFee.unit = 'cents'),
    declared: 'cents',
    likely: /looks like USD, not cents \(unit: usd\)/,
  },
];

describe('a plausible-looking wrong unit is caught before a partner sees it', () => {
  it('rows 1-3: feeds:check fails naming feed, field, likely unit and YAML line', async () => {
    const dirs = ROWS.map((r) => writeConfigDir(tmp, r.name, r.blocks, r.mutate));
    const runs = await Promise.all(dirs.map((d) => feedsCheck(['--dir', d])));
    runs.forEach((run, i) => {
      const r = ROWS[i]!;
      expect(run.code, `row ${r.row}: ${run.stdout}${run.stderr}`).toBe(1);
      const line = new RegExp(
        `^${r.feed}: FAIL: .*feed ${r.feed}: a unit mistake: ${r.field.replace('.', '\\.')}: median .*; \\.meshrc\\.yaml line (\\d+)`,
        'm',
      ).exec(run.stdout);
      expect(line, `row ${r.row}: ${run.stdout}`).not.toBeNull();
      expect(run.stdout).toMatch(r.likely);
      // The line named is the field's, declaring the wrong unit.
      const lines = fs.readFileSync(path.join(dirs[i]!, '.meshrc.yaml'), 'utf8').split('\n');
      const at = Number(line![1]) - 1;
      expect(lines[at]).toMatch(new RegExp(`^\\s*${r.field.split('.').at(-1)}:`));
      expect(lines.slice(at, at + 4).join('\n')).toContain(`unit: ${r.declared}`);
    });
  }, 180_000);

  it('rows 1-3: a production start refuses each, naming it; nothing is served', async () => {
    for (const r of ROWS) {
      const dir = path.join(tmp, r.name);
      const started = launchGateway({ env: gatewayEnv(tmp, dir, { NODE_ENV: 'production' }) });
      await expect(started, `row ${r.row}`).rejects.toMatchObject({
        name: 'FeedUnitError',
        message: expect.stringMatching(
          new RegExp(`feed ${r.feed}: a unit mistake: ${r.field.replace('.', '\\.')}: .*\\.meshrc\\.yaml line \\d+`),
        ),
      });
    }
  }, 180_000);

  it('`npm start`: exits 78 with the feed named on stderr', async () => {
    const s = spawnMain({
      ...(gatewayEnv(tmp, path.join(tmp, ROWS[0]!.name)) as Record<string, string>),
      NODE_ENV: 'production',
      PLAYGROUND_PROCESS: 'off',
    });
    expect(await s.exited).toBe(78);
    expect(s.stderr()).toMatch(
      /^gateway: refusing to serve a feed with a unit mistake .*\n {2}feed Voltify: a unit mistake: energyBlocks\.price: /m,
    );
  }, 120_000);

  it('unitCheck: serve-anyway: reported by feeds:check as a warning, and served', async () => {
    const r = ROWS[0]!;
    const dir = writeConfigDir(tmp, 'serve-anyway', r.blocks, (c) => {
      r.mutate(c);
      mappingOf(c, 'Voltify').unitCheck = 'serve-anyway';
    });
    const run = await feedsCheck(['--dir', dir]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^Voltify: warning: feed Voltify: a unit mistake: energyBlocks\.price: .*\(unitCheck: serve-anyway: served\)$/m,
    );
    const g = await launchGateway({ env: gatewayEnv(tmp, dir, { NODE_ENV: 'production' }) });
    await g.close();
  }, 180_000);

  it('an unknown unitCheck value is a configuration error naming the key', async () => {
    const dir = writeConfigDir(tmp, 'unit-check-typo', [], (c) => void (mappingOf(c, 'Voltify').unitCheck = 'ignore'));
    const run = await feedsCheck(['--dir', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/feed Voltify: unitCheck: /);
  }, 120_000);
});

describe('feeds:check never crashes on a mapping it rejects', () => {
  it('row 5: a base charge in cents declared usd fails with its reasons, and no internal error', async () => {
    // A contract sample whose every base charge (cents) is implausible read as USD: dropped together.
    const contract = path.join(tmp, 'sunpath-contract');
    fs.mkdirSync(contract, { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'sources/sunpath/schema.json'), path.join(contract, 'schema.json'));
    const sample = JSON.parse(fs.readFileSync(path.join(ROOT, 'sources/sunpath/sample.json'), 'utf8'));
    sample.offers[1].monthlyCents = 650;
    fs.writeFileSync(path.join(contract, 'sample.json'), JSON.stringify(sample));
    const dir = writeConfigDir(tmp, 'sunpath-base-usd', ['examples/sunpath-feed.yaml'], (c) => {
      mappingOf(c, 'Sunpath').fields.baseMonthly.unit = 'usd';
      c.sources.find((s) => s.name === 'Sunpath').handler.jsonSchema.operations[0].responseSchema = path.join(contract, 'schema.json');
    });
    const run = await feedsCheck(['--dir', dir], { SUNPATH_URL: sunpath.url });
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toMatch(/read only|Cannot assign|not mapped as the feed's answer/);
    expect(run.stdout).toMatch(
      /^Sunpath: FAIL: a unit mistake: .*baseMonthly.*; .*sample\.json: record \d+: implausible: every one of the 2 non-zero baseMonthly/m,
    );
  }, 120_000);
});
