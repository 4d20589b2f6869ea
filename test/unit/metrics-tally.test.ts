// Tallied series (observability/tally.ts) report exactly what prom-client's own Counter and
// Histogram report for the same events.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { tallyCounter, tallyHistogram } from '../../server/observability/tally.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

describe('tallied metrics', () => {
  it("a histogram: the same exposition, text and JSON, as prom-client's for any observations", async () => {
    const value = fc.oneof(
      fc.constantFrom(0, ...BUCKETS, 11),
      fc.double({ min: 0, max: 20, noNaN: true }),
      fc.integer({ min: 0, max: 20_000 }).map((ms) => ms / 1000),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('production', 'playground', 'a"b\\c'), value), { maxLength: 50 }),
        async (events) => {
          const ours = new Registry();
          const theirs = new Registry();
          const t = tallyHistogram(ours, 'd_seconds', 'help "text"', ['environment'], BUCKETS);
          const h = new Histogram({
            name: 'd_seconds',
            help: 'help "text"',
            labelNames: ['environment'],
            buckets: BUCKETS,
            registers: [theirs],
          });
          for (const env of ['production', 'playground']) {
            t.series({ environment: env });
            h.zero({ environment: env });
          }
          for (const [environment, v] of events) {
            t.series({ environment }).observe(v);
            h.observe({ environment }, v);
          }
          expect(await ours.metrics()).toBe(await theirs.metrics());
          // The JSON form too, but for prom-client's exemplar slots (always empty here).
          const withoutExemplars = (m: unknown) => JSON.parse(JSON.stringify(m, (k, v) => (k === 'exemplar' ? undefined : v)));
          expect(withoutExemplars(await ours.getMetricsAsJSON())).toEqual(withoutExemplars(await theirs.getMetricsAsJSON()));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a counter: series exported at 0 from their first mention, then the sum of their increments', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const t = tallyCounter(ours, 'r_total', 'requests', ['environment', 'status']);
    const c = new Counter({ name: 'r_total', help: 'requests', labelNames: ['environment', 'status'], registers: [theirs] });
    const a = t.series({ environment: 'production', status: '200' });
    c.labels({ environment: 'production', status: '200' }).inc(0);
    t.series({ environment: 'production', status: '429' });
    c.labels({ environment: 'production', status: '429' }).inc(0);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    for (let i = 0; i < 5; i++) a.inc();
    t.series({ environment: 'production', status: '200' }).inc(2);
    c.labels({ environment: 'production', status: '200' }).inc(7);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    // Scraping twice reports the same totals (the Counter is refilled, not added to).
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('label values that would collide when joined stay apart', async () => {
    const reg = new Registry();
    const t = tallyCounter(reg, 'x_total', 'x', ['a', 'b']);
    t.series({ a: 'p q', b: 'r' }).inc();
    t.series({ a: 'p', b: 'q r' }).inc(2);
    const text = await reg.metrics();
    expect(text).toContain('x_total{a="p q",b="r"} 1');
    expect(text).toContain('x_total{a="p",b="q r"} 2');
  });

  it('a value that is not a finite number is not counted (prom-client throws on it)', async () => {
    const reg = new Registry();
    const s = tallyHistogram(reg, 'y_seconds', 'y', ['e'], [1]).series({ e: 'x' });
    s.observe(Number.NaN);
    s.observe(Number.POSITIVE_INFINITY);
    s.observe(0.5);
    expect(await reg.metrics()).toContain('y_seconds_count{e="x"} 1');
  });
});
