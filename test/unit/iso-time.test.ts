import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isoTime } from '../../lib/iso-time.js';

describe('isoTime (request records)', () => {
  it('equals Date#toISOString for every time, in any order (the memo of the second never leaks)', () => {
    const time = fc.oneof(
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }),
      fc.double({ min: -1e13, max: 1e13, noNaN: true }),
    );
    fc.assert(
      fc.property(fc.array(time, { minLength: 1, maxLength: 20 }), (times) => {
        for (const t of times) expect(isoTime(t)).toBe(new Date(t).toISOString());
      }),
      { numRuns: 2000 },
    );
  });

  it('consecutive milliseconds of one second, and the edges of a second', () => {
    const base = Date.UTC(2026, 10, 26, 12, 0, 0);
    for (let ms = base - 3; ms < base + 1003; ms++) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    expect(isoTime(-1)).toBe('1969-12-31T23:59:59.999Z');
  });

  it('an invalid time throws as Date#toISOString does', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
