// Issue 37, item 4: a persisted query never holds personal data in clear. A document giving a
// literal (or a variable's default value) to a @personalData argument is refused registration with
// a GraphQL error telling the partner to use variables, and nothing of it reaches the store; the
// same operation written with variables registers and is found by its hash. Against a real
// redis-server, whose every persisted-query key is read back.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { PERSISTED_QUERY_KEY_PREFIX, persistedQueryKeys } from '../../cache/persisted-query-store.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ADDRESS = '90 W Broad St';

let redis: TestRedis;
let client: Redis;
let t: TestGateway;

beforeAll(async () => {
  redis = await startTestRedis();
  client = new Redis(redis.url);
  t = await startTestGateway({ REDIS_URL: redis.url });
});
afterAll(async () => {
  client?.disconnect();
  await t?.close();
  await redis?.stop();
});

async function register(query: string, variables?: Record<string, unknown>, env: 'production' | 'certification' = 'production') {
  const res = await fetch(t.g.urls[env]!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': t.keys[env] },
    body: JSON.stringify({ query, variables, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } }),
  });
  return { status: res.status, json: (await res.json()) as any };
}

/** Everything the persisted-query key space holds, as text. */
async function storedText(): Promise<string> {
  const out: string[] = [];
  for (const key of await client.keys(`${PERSISTED_QUERY_KEY_PREFIX}*`)) {
    const type = await client.type(key);
    if (type === 'hash') out.push(key, JSON.stringify(await client.hgetall(key)));
    else if (type === 'zset') out.push(key, JSON.stringify(await client.zrange(key, 0, -1)));
    else if (type === 'string') out.push(key, (await client.get(key)) ?? '');
    else out.push(key, type);
  }
  return out.join('\n');
}

const refusals = [
  ['a literal', `{ utilityAccounts(address: "${ADDRESS}", zipCode: "43215") { utilityId } }`],
  [
    'a literal in a named fragment',
    `query A { ...F } fragment F on Query { utilityAccounts(address: "${ADDRESS}", zipCode: "43215") { utilityId } }`,
  ],
  [
    'a literal in an inline fragment, aliased',
    `{ ... on Query { mine: utilityAccounts(address: "${ADDRESS}", zipCode: "43215") { utilityId } } }`,
  ],
  [
    'a variable with a default value',
    `query A($a: String! = "${ADDRESS}") { utilityAccounts(address: $a, zipCode: "43215") { utilityId } }`,
  ],
] as const;

describe('persisted queries and personal data', () => {
  it.each(refusals)('a document giving the address as %s is refused, and nothing of it is stored', async (_how, query) => {
    for (const env of ['production', 'certification'] as const) {
      const r = await register(query, undefined, env);
      expect(r.status).toBe(400);
      expect(r.json.data).toBeUndefined();
      expect(r.json.errors[0].extensions.code).toBe('PERSISTED_QUERY_PERSONAL_DATA');
      expect(r.json.errors[0].message).toMatch(/utilityAccounts\(address:\) as a variable/);
      expect(r.json.errors[0].message).toMatch(/\$address/);
      expect(JSON.stringify(r.json)).not.toContain(ADDRESS);
      // Its hash stays unknown.
      const miss = await fetch(t.g.urls[env]!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': t.keys[env] },
        body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } }),
      });
      expect(((await miss.json()) as any).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(await storedText()).not.toContain('Broad');
    expect(await client.hlen(persistedQueryKeys('production')[0])).toBe(0);
  });

  it('the same operation with variables registers, is found by its hash, and the store holds no address', async () => {
    const query = 'query Accounts($address: String!, $zip: String!) { utilityAccounts(address: $address, zipCode: $zip) { utilityId } }';
    const r = await register(query, { address: ADDRESS, zip: '43215' });
    expect(r.status).toBe(200);
    expect(r.json.errors).toBeUndefined();
    const docs = persistedQueryKeys('production')[0];
    let stored: string | null = null;
    for (let i = 0; i < 50 && stored === null; i++) {
      stored = await client.hget(docs, sha256(query));
      if (stored === null) await new Promise((res) => setTimeout(res, 20));
    }
    expect(stored).toBe(query);
    expect(await storedText()).not.toContain('Broad');
    const hit = await fetch(t.g.urls.production!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.keys.production },
      body: JSON.stringify({
        variables: { address: ADDRESS, zip: '43215' },
        extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } },
      }),
    });
    const body = (await hit.json()) as any;
    expect(body.errors).toBeUndefined();
    expect(Array.isArray(body.data.utilityAccounts)).toBe(true);
  });

  it('a document with no personal argument registers with its literals, as before', async () => {
    const query = '{ utilities(zipCode: "43215") { id } }';
    const r = await register(query);
    expect(r.status).toBe(200);
    expect(r.json.data.utilities[0].id).toBe('AEP_OHIO');
  });
});
