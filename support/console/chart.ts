// A server-rendered SVG chart of a partner's week in one environment: a bar per day for requests
// (the failed part in red), the error rate and p95 latency written under each bar. Each bar links
// to the matching search. Presentation attributes only: no inline style or script, so the strict
// CSP holds. Drawn at its own size (never scaled down), so its labels are LABEL_PX on screen.
import type { DayStats } from './partner-activity.js';
import { html, type Html } from './html.js';

const W = 320;
/** Font size of every label, in CSS pixels. */
const LABEL_PX = 12;
const LINE = LABEL_PX + 3;
const TOP = LINE;
const BARS = 100;
const H = TOP + BARS + 3 * LINE + 6;

/** A p95 short enough to sit under a bar: "850ms", "1.2s". */
const latency = (ms: number | null) => (ms === null ? '–' : ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`);

export function weekChart(title: string, days: DayStats[], hrefOf: (d: DayStats) => string): Html {
  const max = Math.max(1, ...days.map((d) => d.requests));
  const slot = W / days.length;
  const label = (x: number, y: number, fill: string, text: string) =>
    html`<text x="${x.toFixed(1)}" y="${y}" font-size="${LABEL_PX}" text-anchor="middle" fill="${fill}">${text}</text>`;
  const bars = days.map((d, i) => {
    const x = i * slot + slot * 0.15;
    const w = slot * 0.7;
    const mid = x + w / 2;
    const h = Math.round((d.requests / max) * BARS);
    const e = d.requests ? Math.round((d.errors / d.requests) * h) : 0;
    const rate = d.requests ? `${((d.errors / d.requests) * 100).toFixed(d.errors && d.errors < d.requests / 100 ? 1 : 0)}%` : '–';
    const day = new Date(d.start).toISOString().slice(5, 10);
    const text = `${day}: ${d.requests} requests, ${rate} errors, p95 ${d.p95Ms ?? '–'} ms`;
    return html`<a href="${hrefOf(d)}" aria-label="${text}"><title>${text}</title>
      <rect x="${x.toFixed(1)}" y="${TOP + BARS - h}" width="${w.toFixed(1)}" height="${h}" fill="#0b57d0"></rect>
      <rect x="${x.toFixed(1)}" y="${TOP + BARS - e}" width="${w.toFixed(1)}" height="${e}" fill="#b42318"></rect>
      ${label(mid, TOP + BARS - h - 3, '#1b1f24', String(d.requests))}
      ${label(mid, TOP + BARS + LINE, '#57606a', day)}
      ${label(mid, TOP + BARS + 2 * LINE, '#b42318', rate)}
      ${label(mid, TOP + BARS + 3 * LINE, '#57606a', latency(d.p95Ms))}</a>`;
  });
  return html`<figure class="chart"><figcaption>${title}</figcaption>
    <svg role="img" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" aria-label="${title}: requests, error rate and p95 latency per day">${bars}</svg>
    <p class="n">Bars: requests (red: errors). Under each: day, error rate, p95 latency.</p></figure>`;
}
