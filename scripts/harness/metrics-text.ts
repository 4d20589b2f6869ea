// Reads a Prometheus text exposition (the gateway's /metrics) for tests and the bench.

/** Scrapes `url` once; the returned function sums a metric's samples whose labels include every `match` label. */
export async function scrape(url: string): Promise<(name: string, match?: Record<string, string>) => number> {
  const text = await (await fetch(url)).text();
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const l of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(l);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const lm of (m[2] ?? '').matchAll(/(?<!\w)(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[lm[1]!] = lm[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return (name, match = {}) =>
    samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}
