// The support console's record page shows a traced request's trace id, linked through
// TRACE_URL_TEMPLATE to the operators' trace UI (plain text without a template, absent untraced).
import { describe, expect, it } from 'vitest';
import { recordPage } from '../../support/console/pages.js';
import type { ReplayRecord } from '../../stores/replay-store.js';

const session = { id: 's', user: 'ana', keyId: 'k', csrf: 'c', expiresAt: Date.now() + 60_000, roles: ['viewer' as const] };
const record: ReplayRecord = {
  id: 'req-trace-link-1',
  time: '2026-11-26T20:00:00.000Z',
  environment: 'production',
  partnerCode: 'ACME',
  clientIp: '203.0.113.9',
  operationName: 'Plans',
  query: '{ utilities(zipCode: "75001") { id } }',
  variables: null,
  status: 200,
  responseBody: '{"data":{"utilities":[]}}',
  responseHeaders: { 'x-request-id': 'req-trace-link-1' },
  fromCache: false,
  cache: 'MISS',
  upstreamCalls: [],
  durationMs: 12,
};
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const view = (r: ReplayRecord, traceUrlTemplate: string | null) =>
  recordPage(session, {
    record: r,
    masked: false,
    canOpen: false,
    personal: false,
    unmasked: false,
    responseBytes: r.responseBody.length,
    traceUrlTemplate,
  });

describe('record page trace id', () => {
  it('links the trace id through the template', () => {
    const page = view({ ...record, traceId: TRACE }, 'https://jaeger.example/trace/{traceId}?from=console&x=<b>');
    expect(page).toContain(
      `<dt>Trace</dt><dd class="mono" id="trace"><a href="https://jaeger.example/trace/${TRACE}?from=console&amp;x=&lt;b&gt;"`,
    );
    expect(page).toContain(`>${TRACE}</a>`);
  });

  it('shows it as text without a template, and nothing for an untraced record', () => {
    expect(view({ ...record, traceId: TRACE }, null)).toContain(`<dd class="mono" id="trace">${TRACE}</dd>`);
    expect(view(record, 'https://jaeger.example/trace/{traceId}')).not.toContain('id="trace"');
  });
});
