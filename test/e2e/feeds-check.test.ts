// `npm run feeds:check` (cli/feeds-check.ts) as a deploy pipeline runs it: a child process,
// judged by its exit status and output. Exit 0 on the repo's config (and with the Gridwise example
// added), 1 for a broken configuration or a feed that is down, 2 for a usage error; never a stack
// trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { feedsCheck, type Run } from '../support/feeds-check-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function expectNoStackTrace(r: Run): void {
  expect(`${r.stdout}\n${r.stderr}`).not.toMatch(/^\s+at .+[:(]/m);
}

/** Table row of a feed: [feed, kind, status, latency, records, rejected, warnings]. */
function row(stdout: string, feed: string): string[] {
  const line = stdout.split('\n').find((l) => l.startsWith(`${feed} `));
  expect(line, `row of ${feed} in:\n${stdout}`).toBeDefined();
  return line!.split(/\s{2,}/);
}

/** The repo's .meshrc.yaml with examples/gridwise-feed.yaml appended (sources: is last), `./` paths made absolute. */
function writeGridwiseConfig(dir: string, mutate?: (mapping: Record<string, any>) => void): string {
  const base = fs.readFileSync(path.join(ROOT, '.meshrc.yaml'), 'utf8');
  const block = fs.readFileSync(path.join(ROOT, 'examples/gridwise-feed.yaml'), 'utf8');
  const config = yaml.load(base + block) as { sources: any[] }; // appended, as docs/adding-a-feed.md does
  if (mutate) mutate(config.sources.find((s) => s.name === 'Gridwise').transforms[0]['./transforms/feed-mapping.ts']);
  const fix = (s: string) => (s.startsWith('./') ? path.join(ROOT, s) : s);
  const absolute = (v: unknown): unknown =>
    typeof v === 'string'
      ? fix(v)
      : Array.isArray(v)
        ? v.map(absolute)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [fix(k), absolute(x)]))
          : v;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '.meshrc.yaml'), yaml.dump(absolute(config), { lineWidth: -1 }));
  return dir;
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let tmp: string;
let gridwiseDir: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'feeds-check-'));
  gridwiseDir = writeGridwiseConfig(path.join(tmp, 'gridwise'));
});
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('npm run feeds:check', () => {
  it('exits 0 on the default configuration and prints a table of every feed', async () => {
    const r = await feedsCheck([]);
    expect(r.code, r.stderr).toBe(0);
    expectNoStackTrace(r);
    expect(r.stdout.split('\n')[0]).toMatch(/^FEED\s+KIND\s+STATUS\s+LATENCY\s+RECORDS\s+REJECTED\s+WARNINGS$/);
    for (const [feed, kind] of [
      ['Territories', 'territories'],
      ['Voltify', 'offers'],
      ['Brightgrid', 'offers'],
      ['Eia', 'stateStats'],
      ['EiaMonthlySales', 'usageShape'],
      ['Premises', 'premises'],
    ]) {
      const [name, k, status, latency, records, rejected] = row(r.stdout, feed!);
      expect([name, k, status]).toEqual([feed, kind, 'ok']);
      expect(latency).toMatch(/^\d+ ms$/);
      expect(Number(records)).toBeGreaterThan(0);
      expect(rejected).toBe('0');
    }
    expect(r.stdout).toMatch(/6 feeds: 6 ok, 0 failed, 0 warnings; reference upstream started at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('checks an added feed (--dir) and reports it as JSON (--json)', async () => {
    const r = await feedsCheck(['--dir', gridwiseDir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      ok: true,
      dir: gridwiseDir,
      configError: null,
      upstream: { referenceStarted: true },
      summary: { feeds: 7, ok: 7, failed: 0, warnings: 0 },
    });
    const gridwise = report.feeds.find((f: any) => f.feed === 'Gridwise');
    expect(gridwise).toMatchObject({
      kind: 'offers',
      operation: 'gridwiseFeed',
      status: 'ok',
      input: { zipCode: '75001', customerClass: 'RESIDENTIAL' },
      records: 6,
      rejected: 0,
      warnings: [],
      error: null,
    });
    expect(gridwise.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('exits 1 with the feed and key named when the configuration is broken', async () => {
    const broken = writeGridwiseConfig(path.join(tmp, 'broken'), (m) => void (m.fields.termMonths.unit = 'decades'));
    const missingPath = writeGridwiseConfig(path.join(tmp, 'broken-path'), (m) => void (m.fields.title = 'Name'));
    const [a, b, empty] = await Promise.all([
      feedsCheck(['--dir', broken]),
      feedsCheck(['--json'], { MESH_DIR: missingPath }),
      feedsCheck(['--dir', path.join(tmp, 'nowhere')]),
    ]);
    expect(a.code).toBe(1);
    expect(a.stdout).toBe('');
    expect(a.stderr).toContain('configuration error');
    expect(a.stderr).toContain('feed Gridwise: fields.termMonths.unit: unknown unit "decades"');
    expect(b.code).toBe(1);
    expect(JSON.parse(b.stdout)).toMatchObject({
      ok: false,
      dir: missingPath,
      configError: expect.stringMatching(
        /feed Gridwise: fields\.title: path Envelope\.Body\.OfferList\.Offer\.Name: Envelope\.Body\.OfferList\.Offer has no field "Name"/,
      ),
      feeds: [],
    });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/no \.meshrc\.yaml in .*nowhere/);
    for (const r of [a, b, empty]) expectNoStackTrace(r);
  }, 120_000);

  it('exits 1 when a feed is down (its per-feed URL points to a closed port); the others are still checked', async () => {
    const port = await closedPort();
    const [added, builtIn] = await Promise.all([
      feedsCheck(['--dir', gridwiseDir], { GRIDWISE_URL: `http://127.0.0.1:${port}` }),
      feedsCheck([], { VOLTIFY_URL: `http://127.0.0.1:${port}` }),
    ]);
    expect(added.code).toBe(1);
    expectNoStackTrace(added);
    expect(row(added.stdout, 'Gridwise').slice(0, 3)).toEqual(['Gridwise', 'offers', 'FAIL']);
    for (const feed of ['Territories', 'Voltify', 'Brightgrid', 'Eia', 'EiaMonthlySales', 'Premises'])
      expect(row(added.stdout, feed)[2], feed).toBe('ok');
    expect(added.stdout).toMatch(new RegExp(`Gridwise: FAIL: .*127\\.0\\.0\\.1:${port}/gridwise/feed/75001`));
    expect(added.stdout).toContain('7 feeds: 6 ok, 1 failed');

    expect(builtIn.code).toBe(1);
    expect(row(builtIn.stdout, 'Voltify')[2]).toBe('FAIL');
    expect(row(builtIn.stdout, 'Brightgrid')[2]).toBe('ok');
  }, 120_000);

  it('warns about a sample without records, and fails on it only with --strict', async () => {
    const dir = writeGridwiseConfig(path.join(tmp, 'empty-sample'), (m) => void (m.sampleZip = '78701'));
    const [plain, strict] = await Promise.all([feedsCheck(['--dir', dir]), feedsCheck(['--dir', dir, '--strict'])]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(row(plain.stdout, 'Gridwise').slice(2)).toEqual(['ok', expect.stringMatching(/ms$/), '0', '0', '1']);
    expect(plain.stdout).toContain('Gridwise: warning: no records for the sample ZIP 78701');
    expect(strict.code).toBe(1);
  }, 120_000);

  it('exits 2 on a usage error', async () => {
    const r = await feedsCheck(['--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option '--frobnicate'");
    expect(r.stderr).toContain('Usage: npm run feeds:check');
  });
});
