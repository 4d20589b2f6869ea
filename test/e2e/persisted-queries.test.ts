// Automatic persisted queries (APQ) end to end: urql's persisted-query exchange, unchanged, against a
// started gateway (embedded store, then two gateways sharing a real redis-server); the protocol's
// errors for hostile or broken requests; and the playground counting what really runs.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, fetchExchange, gql } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** An urql client with the persisted-query exchange, recording every request body it sends. */
function urqlClient(url: string, key?: string) {
  const sent: Record<string, unknown>[] = [];
  const client = new Client({
    url,
    exchanges: [persistedExchange({ preferGetForPersistedQueries: false }), fetchExchange],
    fetchOptions: { headers: key ? { 'x-api-key': key } : {} },
    fetch: async (input, init) => {
      sent.push(JSON.parse(String(init?.body)));
      return fetch(input, init);
    },
  });
  return { client, sent };
}

const UTILITIES = gql`
  query Utilities($zip: String!) {
    utilities(zipCode: $zip) { id name }
  }
`;

/** POST a raw body to an environment (keyed ones with their key). */
async function raw(t: TestGateway, env: 'production' | 'playground', body: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (env === 'production') headers['x-api-key'] = t.keys.production;
  const res = await fetch(t.g.urls[env]!, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

describe('APQ with the embedded store', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ PLAYGROUND_ALLOWANCE: '5' });
  });
  afterAll(async () => t?.close());

  it('urql registers on a miss, then sends the hash alone', async () => {
    const { client, sent } = urqlClient(t.g.urls.production!, t.keys.production);
    const first = await client.query(UTILITIES, { zip: '75001' }, { requestPolicy: 'network-only' }).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data.utilities.map((u: { id: string }) => u.id)).toContain('ONCOR');
    // Miss (hash only) then registration (hash + document).
    expect(sent.map((b) => typeof b.query)).toEqual(['undefined', 'string']);
    const second = await client.query(UTILITIES, { zip: '77002' }, { requestPolicy: 'network-only' }).toPromise();
    expect(second.error).toBeUndefined();
    expect(second.data.utilities.map((u: { id: string }) => u.id)).toContain('CENTERPOINT');
    expect(sent).toHaveLength(3);
    expect(sent[2]!.query).toBeUndefined();
    expect((sent[2]!.extensions as any).persistedQuery.sha256Hash).toBe((sent[1]!.extensions as any).persistedQuery.sha256Hash);
  });

  it('answers an unknown hash with PersistedQueryNotFound (200, not cacheable)', async () => {
    const r = await raw(t, 'production', { extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ never sent }') } } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
    expect(r.headers.get('cache-control')).toMatch(/no-cache/);
  });

  it('keeps each environment apart', async () => {
    const query = '{ utilities(zipCode: "19103") { id } }';
    const pq = { version: 1, sha256Hash: sha256(query) };
    expect((await raw(t, 'production', { query, extensions: { persistedQuery: pq } })).json.data.utilities[0].id).toBe('PECO');
    const cert = await fetch(t.g.urls.certification!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.keys.certification },
      body: JSON.stringify({ extensions: { persistedQuery: pq } }),
    });
    expect(((await cert.json()) as any).errors[0].message).toBe('PersistedQueryNotFound');
  });

  it.each([
    [
      "a hash that is not the document's",
      { query: '{ utilities(zipCode: "75001") { id } }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ other }') } } },
      /provided sha does not match query/,
    ],
    ['version 2', { extensions: { persistedQuery: { version: 2, sha256Hash: sha256('x') } } }, /Unsupported persisted query version/],
    ['no version', { extensions: { persistedQuery: { sha256Hash: sha256('x') } } }, /Unsupported persisted query version/],
    ['a short hash', { extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }, /64 characters/],
    ['a huge hash', { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(50_000) } } }, /64 characters/],
    ['a hash with a newline', { extensions: { persistedQuery: { version: 1, sha256Hash: `${sha256('x')}\n` } } }, /64 characters/],
    ['a numeric hash', { extensions: { persistedQuery: { version: 1, sha256Hash: 12 } } }, /64 characters/],
    ['persistedQuery null', { extensions: { persistedQuery: null } }, /must be a JSON object/],
    ['persistedQuery a list', { extensions: { persistedQuery: [] } }, /must be a JSON object/],
  ])('refuses %s with 400 and a clear message', async (_what, body, message) => {
    const r = await raw(t, 'production', body);
    expect(r.status).toBe(400);
    expect(r.json.errors[0].message).toMatch(message);
    expect(JSON.stringify(r.json)).not.toMatch(/\n\s+at /);
  });

  it('stores only documents that validate', async () => {
    const query = '{ utilities(zipCode: "75001") { nope } }';
    const pq = { version: 1, sha256Hash: sha256(query) };
    const first = await raw(t, 'production', { query, extensions: { persistedQuery: pq } });
    expect(first.status).toBe(200);
    expect(first.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await raw(t, 'production', { extensions: { persistedQuery: pq } })).json.errors[0].message).toBe('PersistedQueryNotFound');
  });

  it('requires the key on keyed environments whatever the request carries', async () => {
    const res = await fetch(t.g.urls.production!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256('x') } } }),
    });
    expect(res.status).toBe(403);
  });

  it('playground: a miss and introspection are free, a persisted real query counts', async () => {
    const remaining = async () => Number((await raw(t, 'playground', { query: '{ __typename }' })).headers.get('x-ratelimit-remaining'));
    const start = await remaining();
    const query = '{ energyInfoByState(state: "TX") { name } }';
    const pq = { version: 1, sha256Hash: sha256(query) };
    expect((await raw(t, 'playground', { extensions: { persistedQuery: pq } })).json.errors[0].message).toBe('PersistedQueryNotFound');
    expect(await remaining()).toBe(start);
    const intro = '{ __schema { queryType { name } } }';
    const ipq = { version: 1, sha256Hash: sha256(intro) };
    await raw(t, 'playground', { query: intro, extensions: { persistedQuery: ipq } });
    expect((await raw(t, 'playground', { extensions: { persistedQuery: ipq } })).json.data.__schema.queryType.name).toBe('Query');
    expect(await remaining()).toBe(start);
    expect((await raw(t, 'playground', { query, extensions: { persistedQuery: pq } })).json.data.energyInfoByState.name).toBe('Texas');
    expect((await raw(t, 'playground', { extensions: { persistedQuery: pq } })).json.data.energyInfoByState.name).toBe('Texas');
    expect(await remaining()).toBe(start - 2);
  });

  it('urql works on the playground too', async () => {
    const { client } = urqlClient(t.g.urls.playground!);
    const r = await client.query(gql`query Introspect { __schema { queryType { name } } }`, {}).toPromise();
    expect(r.data.__schema.queryType.name).toBe('Query');
  });
});

describe('APQ on Redis, shared by gateway instances', () => {
  let redis: TestRedis;
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    redis = await startTestRedis();
    a = await startTestGateway({ REDIS_URL: redis.url });
    b = await startTestGateway({ REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('a document registered through one instance is found by the other', async () => {
    const query = '{ nextStartDate(zipCode: "75001") { utilityId } }';
    const pq = { version: 1, sha256Hash: sha256(query) };
    expect((await raw(a, 'production', { query, extensions: { persistedQuery: pq } })).json.data.nextStartDate.utilityId).toBe('ONCOR');
    // The write is not awaited by the request; poll until the other instance sees it.
    let r: Awaited<ReturnType<typeof raw>> | undefined;
    for (let i = 0; i < 50; i++) {
      r = await raw(b, 'production', { extensions: { persistedQuery: pq }, query: undefined });
      if (!r.json.errors) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(r!.json.data.nextStartDate.utilityId).toBe('ONCOR');
  });

  it('urql against one instance, then the other, sends the document once', async () => {
    const one = urqlClient(a.g.urls.production!, a.keys.production);
    await one.client.query(UTILITIES, { zip: '60601' }).toPromise();
    const two = urqlClient(b.g.urls.production!, b.keys.production);
    const r = await two.client.query(UTILITIES, { zip: '60601' }).toPromise();
    expect(r.data.utilities[0].id).toBe('COMED');
    expect(two.sent.map((s) => typeof s.query)).toEqual(['undefined']);
  });

  it('answers (the client resends the document) while Redis is down', async () => {
    await redis.stop();
    try {
      const { client } = urqlClient(a.g.urls.production!, a.keys.production);
      const r = await client.query(UTILITIES, { zip: '43215' }).toPromise();
      expect(r.error).toBeUndefined();
      expect(r.data.utilities[0].id).toBe('AEP_OHIO');
    } finally {
      await redis.start();
    }
  });
});
