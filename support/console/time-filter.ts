// The console's from – to filters (search and audit log): UTC, ISO-like, 24-hour, as every time
// the console shows ("2026-03-01 14:05:09Z"; a "T" for the space, seconds, fraction and Z are
// optional). Anything else is refused with what a time looks like, never read as some other date.

/** At most this many characters per time. */
export const MAX_TIME_CHARS = 40;

const WHEN = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?Z?$/i;

/** A UTC time in the console's format: its start (ms) and how long the text spans (a day, a minute). */
function parse(value: string): { start: number; span: number } | null {
  const m = WHEN.exec(value.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s, fraction] = m.slice(1);
  const start = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0));
  const back = new Date(start);
  // 2026-02-30 or 25:00 would roll over into another date: refused instead.
  const exact =
    back.getUTCFullYear() === Number(y) &&
    back.getUTCDate() === Number(d) &&
    back.getUTCHours() === Number(h ?? 0) &&
    back.getUTCMinutes() === Number(mi ?? 0) &&
    back.getUTCSeconds() === Number(s ?? 0);
  if (!exact) return null;
  const ms = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  const span = h === undefined ? 86_400_000 : s === undefined ? 60_000 : fraction ? 1 : 1000;
  return { start: start + ms, span };
}

/**
 * The bounds (ms, inclusive) of a from – to filter, each end optional; what is wrong is added to
 * `problems`. A "to" takes in all it names: a date that whole day, a minute that whole minute.
 */
export function timeRange(from: string, to: string, problems: string[]): { from?: number; to?: number } {
  const f = from ? parse(from) : null;
  const t = to ? parse(to) : null;
  if (from && f === null) problems.push('From is a date and time, such as 2026-03-01 14:00 (UTC, 24-hour)');
  if (to && t === null) problems.push('To is a date and time, such as 2026-03-01 15:00 (UTC, 24-hour)');
  if (f && t && f.start > t.start) problems.push('From is after to');
  return { ...(f ? { from: f.start } : {}), ...(t ? { to: t.start + t.span - 1 } : {}) };
}
