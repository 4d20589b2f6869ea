// graphql-http's audit of the GraphQL-over-HTTP specification against our listeners: every MUST
// holds, and every SHOULD for POST (GET execution is deliberately not offered) except the 4xx the
// spec suggests for GraphQL-level failures under application/graphql-response+json: the contract
// answers those with 200 whatever Accept says (docs/partners.md "HTTP status codes").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditServer } from 'graphql-http';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ PLAYGROUND_ALLOWANCE: '1000' });
});
afterAll(async () => t?.close());

describe('GraphQL over HTTP audit', () => {
  /** The SHOULDs we decline on purpose: 4xx for parse, validation and variable failures under graphql-response+json. */
  const DECLINED = ['865D', '556A', '51FE', '74FF', '86EE'];

  it.each(['playground', 'production'] as const)('%s passes every MUST and every SHOULD but the declined ones', async (environment) => {
    const key = environment === 'production' ? t.keys.production : undefined;
    const results = await auditServer({
      url: t.g.urls[environment]!,
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) =>
        fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...(key ? { 'x-api-key': key } : {}) } }),
    });
    expect(results.filter((r) => r.status === 'error').map((r) => `${r.id} ${r.name}: ${'reason' in r ? r.reason : ''}`)).toEqual([]);
    expect(
      results
        .filter((r) => r.status === 'warn')
        .map((r) => r.id)
        .sort(),
    ).toEqual([...DECLINED].sort());
  });
});
