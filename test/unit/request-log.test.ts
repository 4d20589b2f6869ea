// The request log line is JSON text built by concatenation: whatever a client puts in the values
// that reach it (path, request id, operation name), the line parses and holds exactly those values.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { IncomingMessage } from 'node:http';
import { requestLogLine } from '../../server/observability/request-log.js';
import type { RequestState } from '../../server/http/plugin.js';

function state(over: { url: string; requestId: string; partnerCode: string | null; reason: string; name: string }): RequestState {
  return {
    environment: 'playground',
    requestId: over.requestId,
    clientIp: '192.0.2.1',
    receivedAt: 1000,
    req: { method: 'POST', url: over.url } as IncomingMessage,
    partnerCode: over.partnerCode,
    cache: 'HIT',
    upstreamCalls: [{ feed: 'offers', status: 200, durationMs: 3, url: 'http://u/"x"?address=1' }] as RequestState['upstreamCalls'],
    headers: { 'X-RateLimit-Remaining': '7' },
    notes: { allowance: { counted: false, reason: over.reason }, auth: { ok: false, reason: over.reason } },
    operation: {
      operationName: over.name,
      rootFields: ['residentialPlans'],
      introspectionOnly: false,
    } as unknown as RequestState['operation'],
  };
}

describe('request log line', () => {
  it('is valid JSON holding exactly the values, for any string', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string(),
        fc.option(fc.string({ unit: 'grapheme' })),
        fc.string(),
        (url, requestId, partnerCode, reason) => {
          const line = requestLogLine(
            state({ url: `/graphql${url}`, requestId, partnerCode, reason, name: 'Plans' }),
            { status: 200, headers: {}, body: '' },
            1005,
          );
          expect(line).toMatchObject({
            requestId,
            partnerCode,
            status: 200,
            durationMs: 5,
            cache: 'HIT',
            rootFields: ['residentialPlans'],
            operationName: 'Plans',
          });
          expect(line.auth).toBe(reason || undefined);
          expect(line.allowance).toEqual({ counted: false, ...(reason ? { reason } : {}), remaining: 7 });
          expect(line.upstream).toEqual([{ feed: 'offers', status: 200, ms: 3, url: 'http://u/"x"' }]);
        },
      ),
    );
  });

  it('keeps an operation name only when it is a plain GraphQL name', () => {
    const at = (name: string) =>
      requestLogLine(state({ url: '/graphql', requestId: 'r-1234567', partnerCode: null, reason: 'x', name }), {
        status: 200,
        headers: {},
        body: '',
      }).operationName;
    expect(at('Plans_2')).toBe('Plans_2');
    expect(at('1500 MARILLA ST')).toBeNull();
    expect(at('"}\n{"')).toBeNull();
  });
});

describe('request log line of a partner quota refusal', () => {
  it('names the reason', () => {
    const s = state({ url: '/graphql', requestId: 'r1', partnerCode: 'ACME', reason: '', name: 'Plans' });
    s.environment = 'production';
    s.notes = { quota: { partner: 'ACME', policy: '50/s burst 200', result: 'refused', reason: 'PARTNER_QUOTA' } };
    expect(requestLogLine(s, { status: 429, headers: {}, body: '' }).quota).toBe('PARTNER_QUOTA');
    s.notes = { quota: { partner: 'ACME', policy: 'unlimited', result: 'allowed' } };
    expect(requestLogLine(s, { status: 200, headers: {}, body: '' }).quota).toBeUndefined();
  });
});
