// Client text (query, variables, operationName) is read by a replay record only as a parsed document
// (the prepared one, or a parse bounded in tokens): no regular expression ever runs over it, so a
// crafted body costs linear work whatever patterns it repeats (issue 37, item 1).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'graphql';
import { replayRecord } from '../../server/plugins/replay.js';
import { FACET_MAX_TOKENS, documentOf } from '../../stores/replay-facets.js';
import type { RequestState, Reply } from '../../server/http/plugin.js';
import { CRAFTED_PREFIXES, craftedQuery } from '../../bench/crafted-bodies.js';

const KB64 = 64 * 1024;

function state(over: Partial<RequestState> = {}): RequestState {
  return {
    requestId: 'req-crafted-1',
    environment: 'certification',
    clientIp: '203.0.113.9',
    receivedAt: Date.now() - 5,
    req: { rawHeaders: [], url: '/graphql', method: 'POST' },
    notes: {},
    headers: {},
    partnerCode: 'ACME',
    cache: 'BYPASS',
    upstreamCalls: [],
    ...over,
  } as unknown as RequestState;
}

const refused: Reply = {
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: '{"errors":[{"message":"too complex","extensions":{"code":"QUERY_TOO_COMPLEX"}}]}',
};

/** The gateway's own code (not a library's, nor this file's) in a stack frame. */
const OURS = /\/(?:server|resolvers|cache|lib|domain)\/[\w/.-]+\.ts:/;

/** Lengths of every string a regular expression of the gateway's own code ran over while `fn` ran. */
function regexInputs(fn: () => void): number[] {
  const seen: number[] = [];
  const exec = RegExp.prototype.exec;
  let inside = false;
  const spy = vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, s: string) {
    if (!inside) {
      inside = true;
      // The first frame outside the spy and RegExp's own methods says who ran the pattern.
      const caller = new Error().stack!.split('\n').find((l) => !/node_modules|<anonymous>|client-text-bounds|^Error/.test(l));
      if (caller && OURS.test(caller)) seen.push(String(s).length);
      inside = false;
    }
    return exec.call(this, s);
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return seen;
}

afterEach(() => vi.restoreAllMocks());

describe('client text in replay records', () => {
  it.each(CRAFTED_PREFIXES)('a 64 KB body repeating %j is never searched with a pattern', (prefix) => {
    const query = craftedQuery(prefix, KB64);
    expect(query.length).toBeGreaterThanOrEqual(KB64 - prefix.length);
    let record: ReturnType<typeof replayRecord> | undefined;
    const inputs = regexInputs(() => {
      record = replayRecord(state({ query, operationName: 'zip', variables: { zipCode: query } }), refused);
    });
    // Only bounded values (header names, the sent operation name, short codes) meet a pattern.
    expect(Math.max(0, ...inputs)).toBeLessThan(1024);
    expect(record!.facets!.zips).toEqual([]);
    expect(record!.facets!.codes).toEqual(['QUERY_TOO_COMPLEX']);
    expect(record!.operationName).toBe('<unknown>');
  });

  it('the facets read the prepared document, not the text sent', () => {
    // The text names one ZIP, the prepared document (what actually ran) another: the document wins.
    const document = parse('query P { residentialPlans(zipCode: "22222") { title } }');
    const op = { document, rootFields: ['residentialPlans'], operationName: 'P', introspectionOnly: false } as never;
    const r = replayRecord(state({ query: '{ residentialPlans(zipCode: "11111") { title } }', operation: op }), {
      status: 200,
      headers: {},
      body: '{"data":{"residentialPlans":[]}}',
    });
    expect(r.facets!.zips).toEqual(['22222']);
    expect(r.facets!.rootFields).toEqual(['residentialPlans']);
  });

  it('an unprepared text is parsed up to a bounded number of tokens only', () => {
    const fits = `{ ${'a '.repeat(FACET_MAX_TOKENS - 10)}}`;
    expect(documentOf(fits)).not.toBeNull();
    // Past the bound the parse stops (and the record keeps no literal ZIP from it).
    const long = `{ residentialPlans(zipCode: "75001") { ${'a '.repeat(FACET_MAX_TOKENS)}} }`;
    expect(documentOf(long)).toBeNull();
    expect(replayRecord(state({ query: long }), refused).facets!.zips).toEqual([]);
    // Within it, the ZIP and a declared operation name are found in the document.
    const named = 'query Plans { residentialPlans(zipCode: "75001") { title } }';
    const r = replayRecord(state({ query: named, operationName: 'Plans' }), refused);
    expect(r.facets!.zips).toEqual(['75001']);
    expect(r.operationName).toBe('Plans');
  });
});
