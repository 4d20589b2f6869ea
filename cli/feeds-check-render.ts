// feeds:check's report (its --json shape) and the table and details a person reads.
import path from 'node:path';
import type { FeedInput } from '../transforms/mapping/types.js';

export interface FeedCheck {
  feed: string;
  kind: string;
  operation: string;
  status: 'ok' | 'FAIL';
  /** The feed's own arguments of the sample call (null when it was not called). */
  input: FeedInput | null;
  latencyMs: number | null;
  /** Calls made (a utility-scoped feed: one per choice territory of the sample ZIP) and pages read. */
  calls: number | null;
  pages: number | null;
  records: number | null;
  rejected: number | null;
  /** Offers feeds: sample offers the gateway would drop for breaking a market rule. */
  noncompliant: { offerId: string; rule: string; source: string; reason: string }[] | null;
  warnings: string[];
  error: string | null;
}

export interface CheckReport {
  ok: boolean;
  dir: string;
  /** Set when the configuration could not be loaded; feeds is then empty. */
  configError: string | null;
  upstream: { referenceStarted: boolean; fallbackUrl: string | null };
  feeds: FeedCheck[];
  summary: { feeds: number; ok: number; failed: number; warnings: number };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const right = new Set([3, 4, 5, 6]);
  return rows
    .map((r) =>
      r
        .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function render(report: CheckReport, strict: boolean): { out: string; err: string } {
  if (report.configError) {
    return { out: '', err: `feeds:check: configuration error in ${path.join(report.dir, '.meshrc.yaml')}:\n  ${report.configError}\n` };
  }
  const dash = (n: number | null, unit = '') => (n === null ? '-' : `${n}${unit}`);
  const rows = [['FEED', 'KIND', 'STATUS', 'LATENCY', 'RECORDS', 'REJECTED', 'WARNINGS']];
  for (const f of report.feeds) {
    rows.push([f.feed, f.kind, f.status, dash(f.latencyMs, ' ms'), dash(f.records), dash(f.rejected), String(f.warnings.length)]);
  }
  const details: string[] = [];
  for (const f of report.feeds) {
    if (f.error) details.push(`${f.feed}: FAIL: ${f.error}`);
    for (const w of f.warnings) details.push(`${f.feed}: warning: ${w}`);
  }
  const lines = [table(rows), '', ...details, ...(details.length ? [''] : [])];
  const { feeds, ok, failed, warnings } = report.summary;
  const upstream = report.upstream.referenceStarted
    ? `reference upstream started at ${report.upstream.fallbackUrl}`
    : report.upstream.fallbackUrl
      ? `upstream ${report.upstream.fallbackUrl}`
      : 'per-feed URLs';
  lines.push(
    `${feeds} feed${feeds === 1 ? '' : 's'}: ${ok} ok, ${failed} failed, ${warnings} ` +
      `warning${warnings === 1 ? '' : 's'}${strict && warnings ? ' (--strict: warnings fail)' : ''}; ${upstream}`,
  );
  return { out: `${lines.join('\n')}\n`, err: '' };
}
