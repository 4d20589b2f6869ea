// feeds:check's table and details, as a person reads them (--json prints the report instead).
import path from 'node:path';
import type { CheckReport } from './feeds-check.js';

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
