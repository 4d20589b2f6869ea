// The three environments over real HTTP with a real redis-server: keys on production and
// certification, the one-time playground allowance, client IPs, restarts, Redis outages and
// hostile input. Clients bind to different 127.0.0.x addresses to be different IPs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { launchGateway as startGateway } from '../../start/launch.js';
import type { GatewayHandle } from '../../start/app.js';
import { generateKey, issueKey, revokeKeys } from '../../stores/key-store.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { bundled } from '../support/bundles.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const COUNTED = '{ utilities(zipCode: "75001") { id } }';
const INTROSPECTION =
  '{ __schema { queryType { fields { name args { name type { kind name ofType { kind name } } } type { kind name ofType { kind name } } } } } }';
const EXHAUSTED = 'The playground allowance of 10 calls for your IP address is used up; it does not refill. Ask for a key to use the API.';

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string | string[]>; body?: string | Buffer; ip?: string } = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'POST', agent: false, localAddress: opts.ip ?? '127.0.0.1' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON (GraphiQL page)
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    for (const [k, v] of Object.entries(opts.headers ?? {})) req.setHeader(k, v);
    if (opts.body !== undefined) req.setHeader('content-length', Buffer.byteLength(opts.body));
    req.end(opts.body);
  });
}

function gql(
  url: string,
  query: string,
  opts: { key?: string | string[]; ip?: string; headers?: Record<string, string | string[]> } = {},
): Promise<Res> {
  const headers: Record<string, string | string[]> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.key !== undefined) headers['x-api-key'] = opts.key;
  return request(url, { headers, body: JSON.stringify({ query }), ip: opts.ip });
}

/** Remaining allowance as the playground reports it, without counting (introspection is free). */
async function remaining(url: string, ip: string, headers?: Record<string, string>): Promise<number> {
  const r = await gql(url, '{ __typename }', { ip, headers });
  expect(r.status).toBe(200);
  return Number(r.headers['x-ratelimit-remaining']);
}

function expectRateHeaders(r: Res, remainingValue?: number) {
  expect(r.headers['x-ratelimit-limit']).toBe('10');
  expect(r.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  if (remainingValue !== undefined) expect(Number(r.headers['x-ratelimit-remaining'])).toBe(remainingValue);
}

function expectForbidden(r: Res, environment: string) {
  expect(r.status).toBe(403);
  expect(r.headers['content-type']).toMatch(/application\/json/);
  expect(r.json).toEqual({
    errors: [{ message: `A valid x-api-key header for the ${environment} environment is required.`, extensions: { code: 'FORBIDDEN' } }],
  });
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bundled('keys'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const PORTS = {
  PRODUCTION_PORT: '0',
  CERTIFICATION_PORT: '0',
  PLAYGROUND_PORT: '0',
  UPSTREAM_PORT: '0',
  OPS_PORT: '0',
  LOG_LEVEL: 'silent',
};

let tmp: string;
let keysFile: string;
let redis: TestRedis;
let gwA: GatewayHandle;
let gwB: GatewayHandle;
let liveKey: string;
let certKey: string;
let revokedKey: string;
const extraGateways: GatewayHandle[] = [];

const baseEnv = () => ({ ...PORTS, KEYS_FILE: keysFile, DATA_DIR: path.join(tmp, 'data'), REDIS_URL: redis.url });

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'environments-'));
  keysFile = path.join(tmp, 'keys', 'keys.json');
  redis = await startTestRedis();
  liveKey = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
  certKey = (await issueKey(keysFile, { environment: 'certification', partnerCode: 'ACME' })).key;
  const revoked = await issueKey(keysFile, { environment: 'production', partnerCode: 'GONE' });
  revokedKey = revoked.key;
  await revokeKeys(keysFile, { id: revoked.record.id });
  gwA = await startGateway({ env: baseEnv() });
  // A second process-equivalent on the same Redis, behind a trusted proxy at 127.0.0.1.
  gwB = await startGateway({ env: { ...baseEnv(), TRUST_PROXY: '127.0.0.1' } });
});

afterAll(async () => {
  for (const g of [gwA, gwB, ...extraGateways]) await g?.close().catch(() => {});
  await redis?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('keyed environments', () => {
  it('refuse missing, empty, malformed, duplicated, unknown, revoked and other-environment keys with 403', async () => {
    const prod = gwA.urls.production!;
    const cert = gwA.urls.certification!;
    const mid = liveKey.length >> 1;
    const cases: [string, string | string[] | undefined, string][] = [
      ['missing', undefined, prod],
      ['empty', '', prod],
      ['whitespace inside', `${liveKey.slice(0, mid)} ${liveKey.slice(mid)}`, prod],
      ['tab inside', `${liveKey.slice(0, mid)}\t${liveKey.slice(mid)}`, prod],
      ['bad character', `${liveKey.slice(0, mid)}+${liveKey.slice(mid + 1)}`, prod],
      ['latin-1 character', `${liveKey.slice(0, mid)}\u00e9${liveKey.slice(mid + 1)}`, prod],
      ['truncated', liveKey.slice(0, -1), prod],
      ['too long', `${liveKey}x`, prod],
      ['two headers', [liveKey, liveKey], prod],
      ['two values joined', `${liveKey}, ${liveKey}`, prod],
      ['unknown', generateKey('production'), prod],
      ['revoked', revokedKey, prod],
      ['certification key on production', certKey, prod],
      ['production key on certification', liveKey, cert],
    ];
    for (const [name, key, url] of cases) {
      const r = await gql(url, '{ __typename }', { key });
      expectForbidden(r, url === prod ? 'production' : 'certification');
      if (typeof key === 'string' && key.length > 5) expect(r.text, name).not.toContain(key);
      expect(r.headers['x-ratelimit-limit'], name).toBeUndefined();
    }
  });

  it('checks the key before reading the body or doing GraphQL work', async () => {
    const r = await request(gwA.urls.production!, { headers: { 'content-type': 'text/plain' }, body: 'not json' });
    expectForbidden(r, 'production');
    const get = await request(gwA.urls.production!, { method: 'GET' });
    expectForbidden(get, 'production');
  });

  it('serve a valid key for its own environment (whitespace around the value is HTTP framing)', async () => {
    for (const [url, key] of [
      [gwA.urls.production!, liveKey],
      [gwA.urls.certification!, certKey],
      [gwA.urls.production!, ` ${liveKey} `],
    ] as const) {
      const r = await gql(url, '{ __typename }', { key });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ data: { __typename: 'Query' } });
      expect(r.headers['x-ratelimit-limit']).toBeUndefined();
    }
    // Keyed schema keeps utilityAccounts.
    const intro = await gql(gwA.urls.production!, '{ __schema { queryType { fields { name } } } }', { key: liveKey });
    expect(intro.json.data.__schema.queryType.fields.map((f: { name: string }) => f.name)).toContain('utilityAccounts');
  });

  it('pick up a key issued and revoked with the CLI while running, within a few seconds', async () => {
    const issued = await cli(['issue', '--env', 'certification', '--partner', 'live-test'], { KEYS_FILE: keysFile });
    expect(issued.code, issued.stderr).toBe(0);
    const key = issued.stdout.trimEnd().split('\n').at(-1)!;
    expect(key).toMatch(/^epk_cert_[A-Za-z0-9_-]{43}$/);
    const tookIn = await eventually(async () => (await gql(gwA.urls.certification!, '{ __typename }', { key })).status === 200, 5000);
    expect(tookIn).toBeLessThan(5000);
    // And on the other instance too; the production listener still refuses it.
    await eventually(async () => (await gql(gwB.urls.certification!, '{ __typename }', { key })).status === 200, 5000);
    expectForbidden(await gql(gwA.urls.production!, '{ __typename }', { key }), 'production');

    const revoked = await cli(['revoke', '--partner', 'LIVE-TEST', '--env', 'certification'], { KEYS_FILE: keysFile });
    expect(revoked.code, revoked.stderr).toBe(0);
    await eventually(async () => (await gql(gwA.urls.certification!, '{ __typename }', { key })).status === 403, 5000);
    expectForbidden(await gql(gwA.urls.certification!, '{ __typename }', { key }), 'certification');
    // Other keys are unaffected.
    expect((await gql(gwA.urls.certification!, '{ __typename }', { key: certKey })).status).toBe(200);
  });
});

describe('playground allowance', () => {
  it('counts 10 real calls per IP, then 429 with headers; introspection and the GraphiQL page stay free', async () => {
    const url = gwA.urls.playground!;
    const ip = '127.0.0.2';
    expect(await remaining(url, ip)).toBe(10);
    for (let i = 1; i <= 10; i++) {
      const r = await gql(url, COUNTED, { ip });
      expect(r.status).toBe(200);
      expectRateHeaders(r, 10 - i);
      expect(r.json.errors?.some((e: { extensions?: { code?: string } }) => e.extensions?.code === 'RATE_LIMITED')).toBeFalsy();
    }
    const refused = await gql(url, COUNTED, { ip });
    expect(refused.status).toBe(429);
    expectRateHeaders(refused, 0);
    expect(refused.json).toEqual({
      errors: [{ message: EXHAUSTED, extensions: { code: 'RATE_LIMITED', reason: 'ALLOWANCE_USED_UP', limit: 10 } }],
    });
    // Mixed introspection + real field counts, so it is refused too.
    expect((await gql(url, '{ __typename utilities(zipCode: "75001") { id } }', { ip })).status).toBe(429);

    const intro = await gql(url, INTROSPECTION, { ip });
    expect(intro.status).toBe(200);
    expectRateHeaders(intro, 0);
    expect(intro.json.data.__schema.queryType.fields.length).toBeGreaterThan(0);

    const page = await request(url, { method: 'GET', headers: { accept: 'text/html,application/xhtml+xml' }, ip });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text.toLowerCase()).toContain('graphiql');

    // Another IP is untouched.
    expect(await remaining(url, '127.0.0.3')).toBe(10);
    expect((await gql(url, COUNTED, { ip: '127.0.0.3' })).headers['x-ratelimit-remaining']).toBe('9');
  });

  it('is read-only, hides utilityAccounts, and does not count requests that fail before execution', async () => {
    const url = gwA.urls.playground!;
    const ip = '127.0.0.4';
    const intro = await gql(url, INTROSPECTION, { ip });
    expectRateHeaders(intro, 10);
    const fields = intro.json.data.__schema.queryType.fields as { name: string; args: { name: string }[]; type: unknown }[];
    const names = fields.map((f) => f.name);
    for (const q of ['utilities', 'residentialPlans', 'businessPlans', 'nextStartDate', 'energyInfoByState']) expect(names).toContain(q);
    expect(names).not.toContain('utilityAccounts');
    expect(fields.find((f) => f.name === 'utilities')!.args.map((a) => a.name)).toContain('zipCode');
    const typeQuery = await gql(url, '{ __type(name: "Query") { fields { name } } }', { ip });
    expect(JSON.stringify(typeQuery.json)).not.toContain('utilityAccounts');

    const graphqlError = async (query: string) => {
      const r = await gql(url, query, { ip });
      expect(r.status, query).toBe(200);
      expectRateHeaders(r, 10);
      expect(r.json.data ?? null, query).toBeNull();
      expect(r.json.errors.length, query).toBeGreaterThan(0);
      for (const e of r.json.errors) expect(typeof e.extensions?.code, query).toBe('string');
      return r.json.errors;
    };
    await graphqlError('mutation { utilities(zipCode: "75001") { id } }');
    await graphqlError('subscription { utilities(zipCode: "75001") { id } }');
    const accounts = await graphqlError('{ utilityAccounts(address: "1500 Marilla St", zipCode: "75201") { __typename } }');
    expect(accounts[0].message).toMatch(/utilityAccounts/);
    expect(accounts[0].locations).toEqual([{ line: 1, column: 3 }]);
    await graphqlError('{ utilities(zipCode: "75001") { nope } }');
    await graphqlError('{ utilities { id } }');
    await graphqlError('{ utilities(zipCode: "75001") { id ');

    const badRequests: [Record<string, string>, string | Buffer][] = [
      [{ 'content-type': 'application/json' }, '{not json'],
      [{ 'content-type': 'application/json' }, '[]'],
      [{ 'content-type': 'application/json' }, '"query"'],
      [{ 'content-type': 'application/json' }, '{"variables":{}}'],
      [{ 'content-type': 'text/plain' }, JSON.stringify({ query: COUNTED })],
      [{}, JSON.stringify({ query: COUNTED })],
    ];
    for (const [headers, body] of badRequests) {
      const r = await request(url, { headers, body, ip });
      expect(r.status, String(body)).toBe(400);
      expect(r.json.errors[0].extensions.code).toBe('BAD_REQUEST');
      expectRateHeaders(r, 10);
    }
    expect(await remaining(url, ip)).toBe(10);
    expect((await gql(url, COUNTED, { ip })).headers['x-ratelimit-remaining']).toBe('9');
  });

  it('30 parallel calls from one IP: exactly 10 answered, 20 refused', async () => {
    const url = gwA.urls.playground!;
    const results = await Promise.all(Array.from({ length: 30 }, () => gql(url, COUNTED, { ip: '127.0.0.5' })));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(20);
    expect(ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const r of refused) expectRateHeaders(r, 0);
  });

  it('ignores X-Forwarded-For without TRUST_PROXY', async () => {
    const url = gwA.urls.playground!;
    for (let i = 0; i < 10; i++) {
      const r = await gql(url, COUNTED, { ip: '127.0.0.6', headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } });
      expectRateHeaders(r, 9 - i);
    }
    const r = await gql(url, COUNTED, {
      ip: '127.0.0.6',
      headers: { 'x-forwarded-for': '203.0.113.200', 'x-real-ip': '203.0.113.201', forwarded: 'for=203.0.113.202' },
    });
    expect(r.status).toBe(429);
  });

  it('honours X-Forwarded-For from a trusted proxy only (TRUST_PROXY=127.0.0.1)', async () => {
    const url = gwB.urls.playground!;
    // Through the trusted proxy: each forwarded client has its own allowance.
    expect(
      (await gql(url, COUNTED, { ip: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.1' } })).headers['x-ratelimit-remaining'],
    ).toBe('9');
    expect(
      (await gql(url, COUNTED, { ip: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.2' } })).headers['x-ratelimit-remaining'],
    ).toBe('9');
    expect(
      (await gql(url, COUNTED, { ip: '127.0.0.1', headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.1' } })).headers[
        'x-ratelimit-remaining'
      ],
    ).toBe('8');
    // From an address that is not the trusted proxy, the header is ignored.
    expect(
      (await gql(url, COUNTED, { ip: '127.0.0.7', headers: { 'x-forwarded-for': '198.51.100.1' } })).headers['x-ratelimit-remaining'],
    ).toBe('9');
    expect(
      (await gql(url, COUNTED, { ip: '127.0.0.7', headers: { 'x-forwarded-for': '198.51.100.3' } })).headers['x-ratelimit-remaining'],
    ).toBe('8');
  });

  it('two gateway instances on one Redis share the allowance, also under 30 parallel calls', async () => {
    const a = gwA.urls.playground!;
    const b = gwB.urls.playground!;
    for (let i = 0; i < 5; i++) expect((await gql(i % 2 ? a : b, COUNTED, { ip: '127.0.0.8' })).status).toBe(200);
    expect(await remaining(a, '127.0.0.8')).toBe(5);
    expect(await remaining(b, '127.0.0.8')).toBe(5);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => gql(i % 2 ? a : b, COUNTED, { ip: '127.0.0.9' })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(20);
  });

  it('a restart does not refill (Redis)', async () => {
    const url = gwB.urls.playground!;
    for (let i = 0; i < 3; i++) await gql(url, COUNTED, { ip: '127.0.0.10' });
    await gwB.close();
    gwB = await startGateway({ env: { ...baseEnv(), TRUST_PROXY: '127.0.0.1' } });
    expect(await remaining(gwB.urls.playground!, '127.0.0.10')).toBe(7);
    expect(await remaining(gwB.urls.playground!, '127.0.0.2')).toBe(0);
    expect((await gql(gwB.urls.playground!, COUNTED, { ip: '127.0.0.2' })).status).toBe(429);
  });

  it('a restart does not refill (embedded store, no REDIS_URL)', async () => {
    const env = { ...PORTS, ENVIRONMENTS: 'playground', DATA_DIR: path.join(tmp, 'embedded') };
    const first = await startGateway({ env });
    try {
      for (let i = 0; i < 4; i++) expect((await gql(first.urls.playground!, COUNTED, { ip: '127.0.0.11' })).status).toBe(200);
    } finally {
      await first.close();
    }
    const gw = await startGateway({ env });
    extraGateways.push(gw);
    expect(await remaining(gw.urls.playground!, '127.0.0.11')).toBe(6);
    const results = await Promise.all(Array.from({ length: 10 }, () => gql(gw.urls.playground!, COUNTED, { ip: '127.0.0.11' })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(6);
    expect(results.filter((r) => r.status === 429)).toHaveLength(4);
    expect(fs.readFileSync(path.join(tmp, 'embedded', 'allowance.log'), 'utf8')).toContain('127.0.0.11 10');
  });
});

describe('hostile input', () => {
  it('answers a 20 KB header with 431 JSON', async () => {
    for (const url of [gwA.urls.playground!, gwA.urls.production!]) {
      const r = await gql(url, COUNTED, { ip: '127.0.0.12', headers: { 'x-padding': 'a'.repeat(20 * 1024) } });
      expect(r.status).toBe(431);
      expect(r.json.errors[0].extensions.code).toBe('BAD_REQUEST');
    }
  });

  it('answers a binary body with 400 and does not count it', async () => {
    const url = gwA.urls.playground!;
    const body = randomBytes(4096);
    for (const ct of ['application/json', 'application/octet-stream']) {
      const r = await request(url, { headers: { 'content-type': ct }, body, ip: '127.0.0.12' });
      expect(r.status).toBe(400);
      expect(r.json.errors[0].extensions.code).toBe('BAD_REQUEST');
    }
    // On a keyed listener without a key: 403 before the body is looked at.
    expectForbidden(await request(gwA.urls.production!, { headers: { 'content-type': 'application/json' }, body }), 'production');
    const r = await request(gwA.urls.production!, { headers: { 'content-type': 'application/json', 'x-api-key': liveKey }, body });
    expect(r.status).toBe(400);
    expect(await remaining(url, '127.0.0.12')).toBe(10);
  });

  it('answers deeply nested queries with a GraphQL error, not a crash, and without counting', async () => {
    const url = gwA.urls.playground!;
    const deep = `{ utilities(zipCode: "75001") ${'{ id '.repeat(200)}${'}'.repeat(200)} }`;
    const braces = `${'{'.repeat(20_000)}${'}'.repeat(20_000)}`;
    const chain = Array.from({ length: 50 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} }`).join(' ');
    const fragments = `query { ...F0 } ${chain} fragment F50 on Query { ...F0 }`;
    for (const query of [deep, braces, fragments]) {
      const r = await gql(url, query, { ip: '127.0.0.13' });
      expect([200, 400, 413]).toContain(r.status);
      expect(r.json.errors.length).toBeGreaterThan(0);
      expect(r.json.errors[0].extensions.code).toMatch(/^[A-Z_]+$/);
    }
    expect(await remaining(url, '127.0.0.13')).toBe(10);
    const healthz = await request(url.replace('/graphql', '/healthz'), { method: 'GET' });
    expect(healthz.status).toBe(200);
  });

  it('survives garbage on the socket', async () => {
    const { port } = new URL(gwA.urls.playground!);
    const reply = await new Promise<string>((resolve) => {
      const sock = net.connect(Number(port), '127.0.0.1', () =>
        sock.write(
          Buffer.concat([
            Buffer.from('POST /graphql HTTP/1.1\r\nHost: x\r\nx-api-key: \u0000\u0001\r\n'),
            randomBytes(512),
            Buffer.from('\r\n\r\n'),
          ]),
        ),
      );
      let data = '';
      sock.on('data', (d) => (data += d));
      sock.on('close', () => resolve(data));
      sock.on('error', () => resolve(data));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 4\d\d/);
    expect(await remaining(gwA.urls.playground!, '127.0.0.13')).toBe(10);
  });
});

// Last: stops the shared Redis.
describe('Redis outage', () => {
  it('playground fails closed with 503 while the keyed environments keep answering', async () => {
    const url = gwA.urls.playground!;
    expect((await gql(url, COUNTED, { ip: '127.0.0.14' })).status).toBe(200);
    await redis.stop();
    const r = await gql(url, COUNTED, { ip: '127.0.0.14' });
    expect(r.status).toBe(503);
    expect(r.json).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'SERVICE_UNAVAILABLE' } }] });
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    expectRateHeaders(r, 0);
    // A fresh IP is refused too: no uncounted calls while the count is unknown.
    expect((await gql(url, COUNTED, { ip: '127.0.0.15' })).status).toBe(503);
    // Free requests are still served.
    expect((await gql(url, '{ __typename }', { ip: '127.0.0.14' })).status).toBe(200);
    const ready = await request(url.replace('/graphql', '/readyz'), { method: 'GET' });
    expect(ready.status).toBe(503);
    // Keyed environments do not depend on the allowance store.
    const prod = await gql(gwA.urls.production!, '{ __typename }', { key: liveKey });
    expect(prod.status).toBe(200);
    expect(prod.json).toEqual({ data: { __typename: 'Query' } });
    expectForbidden(await gql(gwA.urls.production!, '{ __typename }', { key: revokedKey }), 'production');
  });
});
