// Playground persisted-query registrations fill a store, so they count against the free-request
// rate (one point each, kept even when the call is counted) and the playground's own budget:
// counted calls alone never reach the rate; registrations do, and the one refused is not stored.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { loadConfig } from '../../start/config.js';

const FREE = 6;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const doc = (i: number) => `{ utilities(zipCode: "75001") { id } n${i}: __typename }`;

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({
    PLAYGROUND_ALLOWANCE: '1000',
    PLAYGROUND_FREE_REQUESTS: String(FREE),
    PLAYGROUND_FREE_WINDOW_SECONDS: '600',
    TRUST_PROXY: '1',
  });
}, 60_000);
afterAll(async () => t?.close());

async function post(body: unknown, from: string) {
  const res = await fetch(t.g.urls.playground!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

const register = (i: number, from: string) =>
  post({ query: doc(i), extensions: { persistedQuery: { version: 1, sha256Hash: sha256(doc(i)) } } }, from);

describe('playground registrations', () => {
  it('counted calls alone stay within the free rate', async () => {
    for (let i = 0; i < 3 * FREE; i++) expect((await post({ query: doc(i) }, '203.0.113.1')).status).toBe(200);
  });

  it('each registration takes a free request; past the rate it is refused and not stored', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < FREE + 2; i++) statuses.push((await register(100 + i, '203.0.113.2')).status);
    // Each registration costs its request's point (given back: the call is counted) and one more.
    expect(statuses).toEqual([...Array(FREE - 1).fill(200), 429, 429, 429]);
    const lookup = (i: number) => post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(doc(i)) } } }, '203.0.113.3');
    expect((await lookup(100)).json.data).toBeTruthy();
    expect((await lookup(100 + FREE - 1)).json.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('has a budget of its own, an eighth of the environments’ by default', () => {
    const c = loadConfig({ PERSISTED_QUERIES_MAX_BYTES: String(8 * 1024 * 1024) });
    expect(c.persistedQueryPlaygroundMaxBytes).toBe(1024 * 1024);
    expect(loadConfig({ PERSISTED_QUERIES_PLAYGROUND_MAX_BYTES: '100000' }).persistedQueryPlaygroundMaxBytes).toBe(100_000);
  });
});
