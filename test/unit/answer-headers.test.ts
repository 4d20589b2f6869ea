import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { answerHeaderList, mergedHeaderList } from '../../server/http/answer-headers.js';
import { API_HEADERS } from '../../server/http/security-headers.js';

// Header names: the listener's own, plugin-like ones in either case, and random tokens.
const name = fc.oneof(
  fc.constantFrom(
    ...Object.keys(API_HEADERS),
    'content-type',
    'x-request-id',
    'x-cache',
    'content-length',
    'age',
    'retry-after',
    'X-RateLimit-Remaining',
    'allow',
    'vary',
  ),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
);
const value = fc.oneof(fc.constant(''), fc.stringMatching(/^[ -~]{1,20}$/));
const headers = fc.dictionary(name, value, { maxKeys: 5 });
const args = fc.tuple(
  fc.option(headers, { nil: null }),
  fc.uuid(),
  headers,
  headers,
  fc.option(fc.constantFrom('HIT', 'MISS', 'BYPASS', 'COALESCED'), { nil: null }),
  fc.nat(1 << 20),
);

/** What the list must be: everything spread into one object, '' removing a name. */
function spread(...[cors, requestId, state, reply, cache, length]: Parameters<typeof answerHeaderList>): string[] {
  const all: Record<string, string> = {
    ...API_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    ...(cors ?? {}),
    'x-request-id': requestId,
    ...state,
    ...reply,
  };
  if (cache) all['x-cache'] = cache;
  all['content-length'] = String(length);
  return Object.entries(all)
    .filter(([, v]) => v !== '')
    .flat();
}

describe('answer headers', () => {
  it('lists the same names, order and values on the fast path as merged, and as one spread object', () => {
    fc.assert(
      fc.property(args, (a) => {
        expect(answerHeaderList(...a)).toEqual(mergedHeaderList(...a));
        expect(mergedHeaderList(...a)).toEqual(spread(...a));
      }),
      { numRuns: 2000 },
    );
  });

  it('a cache hit: base headers, its id, age, x-cache and length', () => {
    expect(answerHeaderList(null, 'req-1', {}, { age: '3' }, 'HIT', 42).slice(-8)).toEqual([
      'x-request-id',
      'req-1',
      'age',
      '3',
      'x-cache',
      'HIT',
      'content-length',
      '42',
    ]);
  });
});
