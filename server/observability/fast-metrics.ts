// Counters and histograms for the per-request path, exposed through a prom-client Registry.
//
// prom-client hashes the label object on every inc()/observe(), bound children included (~1-2 µs
// per request for our four metrics). These keep one plain record per label set, found once (the
// caller holds the child), so a request costs a few additions; the registry renders them like its
// own metrics (same text format, HELP/TYPE lines, cumulative `le` buckets, _sum and _count).
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface MetricValue {
  value: number;
  labels: Labels | Record<string, string | number>;
  metricName?: string;
}

interface RegistryMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' }>;
  reset(): void;
}

const keyOf = (labelNames: readonly string[], labels: Labels) => labelNames.map((n) => labels[n] ?? '').join('\u0000');

export class FastCounter implements RegistryMetric {
  readonly type = 'counter' as const;
  readonly aggregator = 'sum' as const;
  private series = new Map<string, { labels: Labels; value: number }>();

  constructor(readonly name: string, readonly help: string, private readonly labelNames: readonly string[], registry: Registry) {
    registry.registerMetric(this as never);
  }

  /** The series of one label set (created at 0, so it is exported before its first increment). */
  child(labels: Labels): { inc(n?: number): void } {
    const key = keyOf(this.labelNames, labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: { ...labels }, value: 0 }));
    const series = s;
    return {
      inc(n = 1) {
        series.value += n;
      },
    };
  }

  async get() {
    const values: MetricValue[] = [];
    for (const s of this.series.values()) values.push({ value: s.value, labels: s.labels });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const s of this.series.values()) s.value = 0;
  }
}

export class FastHistogram implements RegistryMetric {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  constructor(readonly name: string, readonly help: string, private readonly labelNames: readonly string[], private readonly buckets: readonly number[], registry: Registry) {
    registry.registerMetric(this as never);
  }

  child(labels: Labels): { observe(v: number): void } {
    const key = keyOf(this.labelNames, labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: { ...labels }, counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 }));
    const series = s;
    const buckets = this.buckets;
    return {
      observe(v: number) {
        if (!Number.isFinite(v)) return;
        series.sum += v;
        series.count++;
        for (let i = 0; i < buckets.length; i++) {
          if (v <= buckets[i]!) {
            series.counts[i]!++;
            return;
          }
        }
      },
    };
  }

  async get() {
    const values: MetricValue[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ value: cumulative, labels: { ...s.labels, le }, metricName: `${this.name}_bucket` });
      });
      values.push({ value: s.count, labels: { ...s.labels, le: '+Inf' }, metricName: `${this.name}_bucket` });
      values.push({ value: s.sum, labels: s.labels, metricName: `${this.name}_sum` });
      values.push({ value: s.count, labels: s.labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const s of this.series.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}
