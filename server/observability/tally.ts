// Per-request counts kept as plain numbers and handed to prom-client when it is scraped. A
// prom-client label child validates and hashes its labels on every call, a real part of a cache
// hit's cost for four series (docs/benchmark.md, "The cache hit"); a tally is an addition.
// The exposition is prom-client's own: counters fill a Counter from their tallies in its collect()
// hook, and a histogram is a registered metric that reports its buckets in prom-client's format.
import { Counter, type Registry } from 'prom-client';

export interface TallySeries {
  inc(n?: number): void;
}

/** The tally of each label set, made on first mention (a series is exported from then on). */
function seriesTable<L extends string, T>(labelNames: L[], make: (labels: Record<L, string>) => T) {
  const table = new Map<string, T>();
  return {
    table,
    of(labels: Record<L, string>): T {
      const key = JSON.stringify(labelNames.map((l) => labels[l]));
      let s = table.get(key);
      if (!s) table.set(key, (s = make({ ...labels })));
      return s;
    },
  };
}

/** A counter whose series are tallied: `series(labels)` once per label set, `inc()` per event. */
export function tallyCounter<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]) {
  const series = seriesTable(labelNames, (labels) => ({ labels, n: 0 }));
  new Counter<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of series.table.values()) this.inc(s.labels, s.n);
    },
  });
  return {
    /** The series of one label set, exported at 0 from now on. */
    series(labels: Record<L, string>): TallySeries {
      const entry = series.of(labels);
      return {
        inc(n = 1) {
          entry.n += n;
        },
      };
    },
  };
}

export interface TallyHistogramSeries {
  observe(value: number): void;
}

/** A histogram whose series are tallied, reported as prom-client reports its own histograms. */
export function tallyHistogram<L extends string>(registry: Registry, name: string, help: string, labelNames: L[], buckets: number[]) {
  const bounds = [...buckets].sort((a, b) => a - b);
  const series = seriesTable(labelNames, (labels) => ({ labels, counts: bounds.map(() => 0), sum: 0, count: 0 }));
  const values = () => {
    const out: { labels: Record<string, string | number>; sharedLabels: Record<string, string>; value: number; metricName: string }[] = [];
    for (const s of series.table.values()) {
      let acc = 0;
      for (let i = 0; i < bounds.length; i++) {
        acc += s.counts[i]!;
        out.push({ labels: { le: bounds[i]! }, sharedLabels: s.labels, value: acc, metricName: `${name}_bucket` });
      }
      out.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket` });
      out.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum` });
      out.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count` });
    }
    return out;
  };
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    getForPromString: () => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }),
    // The JSON form (getMetricsAsJSON) has the series labels merged in, as prom-client's.
    get: () => ({
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      values: values().map(({ sharedLabels, ...v }) => ({ ...v, labels: { ...v.labels, ...sharedLabels } })),
    }),
    reset() {
      for (const s of series.table.values()) {
        s.counts.fill(0);
        s.sum = 0;
        s.count = 0;
      }
    },
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  return {
    /** The series of one label set, exported (every bucket at 0) from now on. */
    series(labels: Record<L, string>): TallyHistogramSeries {
      const entry = series.of(labels);
      return {
        observe(value: number) {
          if (!Number.isFinite(value)) return;
          entry.sum += value;
          entry.count++;
          for (let i = 0; i < bounds.length; i++) {
            if (value <= bounds[i]!) {
              entry.counts[i]!++;
              return;
            }
          }
        },
      };
    },
  };
}
