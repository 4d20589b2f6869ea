// What a replay record carries for the console's search, derived when it is written: errors and
// their codes, root fields and ZIPs, and the partner of a key refused for its environment.
import { describe, expect, it } from 'vitest';
import { answerErrors, documentOf, replayFacets, zipsOf } from '../../stores/replay-facets.js';
import { outcomeOf } from '../../stores/replay-match.js';
import { replayRecord } from '../../server/plugins/replay.js';
import { apiKeyPlugin } from '../../server/plugins/api-key.js';
import type { RequestState } from '../../server/http/plugin.js';
import { chunkEncoder, decodeChunk } from '../../stores/replay-chunk.js';

function state(over: Partial<RequestState> = {}): RequestState {
  return {
    requestId: 'req-1',
    environment: 'production',
    clientIp: '203.0.113.9',
    receivedAt: Date.now() - 5,
    req: { rawHeaders: ['x-api-key', 'epk_cert_whatever'], url: '/graphql', method: 'POST' },
    notes: {},
    headers: {},
    partnerCode: null,
    cache: 'BYPASS',
    upstreamCalls: [],
    ...over,
  } as unknown as RequestState;
}

describe('replay facets', () => {
  it('count GraphQL errors and their codes, and tell the outcome', () => {
    const body = '{"data":null,"errors":[{"message":"a","extensions":{"code":"UPSTREAM_TIMEOUT"}},{"message":"b"}]}';
    expect(answerErrors(body)).toEqual({ errors: 2, codes: ['UPSTREAM_TIMEOUT'] });
    expect(answerErrors('{"data":{"x":"errors"}}')).toEqual({ errors: 0, codes: [] });
    expect(outcomeOf(200, { errors: 2, codes: [], rootFields: [], zips: [] })).toBe('graphql-errors');
    expect(outcomeOf(200, undefined)).toBe('ok');
    expect(outcomeOf(403, undefined)).toBe('refused');
    expect(outcomeOf(502, undefined)).toBe('server-errors');
  });

  it('find ZIPs in arguments and in variables named for them', () => {
    expect(zipsOf(documentOf('{ a: residentialPlans(zipCode: "75001") { id } }'), { zip: '77002', other: '12345' }).sort()).toEqual([
      '75001',
      '77002',
    ]);
    expect(replayFacets({ body: '{}', rootFields: ['utilities', 'utilities'], document: null, variables: null })).toEqual({
      errors: 0,
      codes: [],
      rootFields: ['utilities'],
      zips: [],
    });
  });

  it("a cache hit's facets are remembered for its body, query and variables, and derived again when any of them differs", () => {
    const body = '{"data":null,"errors":[{"message":"a","extensions":{"code":"UPSTREAM_TIMEOUT"}}]}';
    const rootFields = ['residentialPlans'];
    const query = documentOf('query P($zip: String!) { residentialPlans(zipCode: $zip) { title } }');
    const variables = Object.freeze({ zip: '75001' });
    const first = replayFacets({ body, rootFields, document: query, variables }, true);
    expect(first).toEqual({ errors: 1, codes: ['UPSTREAM_TIMEOUT'], rootFields, zips: ['75001'] });
    // The same entry hit again: the same facets, not searched again.
    expect(replayFacets({ body, rootFields, document: query, variables }, true)).toBe(first);
    // The same answer asked with other variables, other root fields or another text.
    expect(replayFacets({ body, rootFields, document: query, variables: Object.freeze({ zip: '77002' }) }, true).zips).toEqual(['77002']);
    expect(replayFacets({ body, rootFields: ['utilities'], document: query, variables }, true).rootFields).toEqual(['utilities']);
    expect(
      replayFacets({ body, rootFields, document: documentOf('{ a: residentialPlans(zipCode: "10001") { title } }'), variables: null }, true)
        .zips,
    ).toEqual(['10001']);
    // Another body with the same request.
    expect(replayFacets({ body: '{"data":{}}', rootFields, document: query, variables }, true).errors).toBe(0);
    // An answer that is not a cache entry's is never remembered.
    const fresh = replayFacets({ body: '{"data":{"x":1}}', rootFields, document: query, variables });
    expect(replayFacets({ body: '{"data":{"x":1}}', rootFields, document: query, variables })).not.toBe(fresh);
  });

  it('ZIPs in arguments and input fields are read from the parsed document, on every call', () => {
    const q = documentOf('{ a: residentialPlans(zipCode: "75001") { id } b: residentialPlans(zipCode: "77002") { id } }');
    expect(zipsOf(q, null)).toEqual(['75001', '77002']);
    expect(zipsOf(q, null)).toEqual(['75001', '77002']);
    expect(zipsOf(documentOf('{ utilities(ZIPCODE: "30301") { id } }'), null)).toEqual(['30301']);
    expect(zipsOf(documentOf('{ x(where: { homeZip: "30302" }) { id } }'), null)).toEqual(['30302']);
    // A ZIP in a comment or an alias is not an argument.
    expect(zipsOf(documentOf('# zip: "30303"\n{ zip: utilities { id } }'), null)).toEqual([]);
  });

  it('a key refused for its environment is recorded with its partner, and the record keeps its facets through a chunk', () => {
    const keys = { verify: () => ({ ok: false as const, reason: 'wrong_environment' as const, partnerCode: 'ACME' }) };
    const s = state();
    const reply = apiKeyPlugin({ environment: 'production', keys }).onRequest!(s) as {
      status: number;
      headers: Record<string, string>;
      body: string;
    };
    expect(reply.status).toBe(403);
    const r = replayRecord(s, reply);
    expect(r.partnerCode).toBe('ACME');
    expect(r.facets?.codes).toEqual(['FORBIDDEN']);
    const enc = chunkEncoder();
    enc.add(r);
    const [back] = decodeChunk(enc.finish().data.toString('utf8'));
    expect(back!.facets).toEqual(r.facets);
    expect(back!.partnerCode).toBe('ACME');
  });

  it('an invalid request keeps the operation name its text declares (one named operation; never a guess)', () => {
    const reply = { status: 200, headers: {}, body: '{"errors":[{"message":"x","extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}' };
    const named = replayRecord(state({ query: 'query Plans { residentialPlans(zipCode: "75001") { nope } }' }), reply);
    expect(named.operationName).toBe('Plans');
    const two = replayRecord(state({ query: 'query A { utilities { id } } query B { utilities { id } }' }), reply);
    expect(two.operationName).toBeNull();
    expect(replayRecord(state({ query: '{ utilities { id } }' }), reply).operationName).toBeNull();
  });
});
