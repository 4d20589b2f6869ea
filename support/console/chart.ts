// A server-rendered SVG chart of a partner's week in one environment: a bar per day for requests
// (the failed part in red), the error rate and p95 latency written under each bar. Each bar links
// to the matching search. Presentation attributes only: no inline style or script, so the strict
// CSP holds.
import type { DayStats } from './partner-activity.js';
import { html, type Html } from './html.js';

const W = 340;
const H = 150;
const TOP = 12;
const BARS = 100;

export function weekChart(title: string, days: DayStats[], hrefOf: (d: DayStats) => string): Html {
  const max = Math.max(1, ...days.map((d) => d.requests));
  const slot = W / days.length;
  const bars = days.map((d, i) => {
    const x = i * slot + slot * 0.15;
    const w = slot * 0.7;
    const h = Math.round((d.requests / max) * BARS);
    const e = d.requests ? Math.round((d.errors / d.requests) * h) : 0;
    const rate = d.requests ? `${((d.errors / d.requests) * 100).toFixed(d.errors && d.errors < d.requests / 100 ? 1 : 0)}%` : '–';
    const day = new Date(d.start).toISOString().slice(5, 10);
    const label = `${day}: ${d.requests} requests, ${rate} errors, p95 ${d.p95Ms ?? '–'} ms`;
    return html`<a href="${hrefOf(d)}" aria-label="${label}"><title>${label}</title>
      <rect x="${x.toFixed(1)}" y="${TOP + BARS - h}" width="${w.toFixed(1)}" height="${h}" fill="#0b57d0"></rect>
      <rect x="${x.toFixed(1)}" y="${TOP + BARS - e}" width="${w.toFixed(1)}" height="${e}" fill="#b42318"></rect>
      <text x="${(x + w / 2).toFixed(1)}" y="${TOP + BARS - h - 2}" font-size="10" text-anchor="middle" fill="#1b1f24">${d.requests}</text>
      <text x="${(x + w / 2).toFixed(1)}" y="${TOP + BARS + 12}" font-size="10" text-anchor="middle" fill="#57606a">${day}</text>
      <text x="${(x + w / 2).toFixed(1)}" y="${TOP + BARS + 24}" font-size="10" text-anchor="middle" fill="#b42318">${rate}</text>
      <text x="${(x + w / 2).toFixed(1)}" y="${TOP + BARS + 36}" font-size="10" text-anchor="middle" fill="#57606a">
        ${d.p95Ms === null ? '–' : `${d.p95Ms}ms`}</text></a>`;
  });
  return html`<figure class="chart"><figcaption>${title}</figcaption>
    <svg role="img" viewBox="0 0 ${W} ${H}" width="100%" aria-label="${title}: requests, error rate and p95 latency per day">${bars}</svg>
    <p class="n">Bars: requests (red: errors). Under each: day, error rate, p95 latency.</p></figure>`;
}
