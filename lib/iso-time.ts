// ISO 8601 times of request records, one per answer: Date#toISOString cost more than the rest of a
// record (docs/benchmark.md, "The cache hit"), while within one second only the milliseconds
// change, so the rest is formatted once a second.
let second = Number.NaN;
let prefix = '';

/** `new Date(ms).toISOString()`, for a time in milliseconds since the epoch. */
export function isoTime(time: number): string {
  // A Date drops the fraction of a millisecond, toward zero.
  const ms = Math.trunc(time);
  const s = Math.floor(ms / 1000);
  if (s !== second) {
    const full = new Date(ms).toISOString();
    // Years outside 0000-9999 (and invalid times) have another shape: not memoized.
    if (full.length !== 24) return full;
    second = s;
    prefix = full.slice(0, 20);
  }
  const rest = ms - s * 1000;
  return `${prefix}${rest < 10 ? '00' : rest < 100 ? '0' : ''}${rest}Z`;
}
