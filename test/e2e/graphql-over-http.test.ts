// graphql-http's audit of the GraphQL-over-HTTP specification against our listeners: every MUST
// holds, and every SHOULD for POST (GET execution is deliberately not offered).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditServer } from 'graphql-http';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ PLAYGROUND_ALLOWANCE: '1000' });
});
afterAll(async () => t?.close());

describe('GraphQL over HTTP audit', () => {
  it.each(['playground', 'production'] as const)('%s passes every MUST and SHOULD', async (environment) => {
    const key = environment === 'production' ? t.keys.production : undefined;
    const results = await auditServer({
      url: t.g.urls[environment]!,
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) =>
        fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...(key ? { 'x-api-key': key } : {}) } }),
    });
    const failing = results.filter((r) => r.status === 'error' || r.status === 'warn').map((r) => `${r.id} ${r.name}: ${"reason" in r ? r.reason : ""}`);
    expect(failing).toEqual([]);
  });
});
