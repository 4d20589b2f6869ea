// Issue 37, item 3: behind one trusted proxy (TRUST_PROXY=1) that appends the address it saw as it
// writes it (`ip:port`, `[v6]:port`, `unknown`, IPv4-mapped IPv6), a client rotating its own first
// X-Forwarded-For entry still gets 10 playground calls, not one more: before, non-address entries
// were dropped before the hops were counted, so the client's own entry was believed. Against a
// real redis-server; the allowance CLI reads the mapped forms as the IPv4 address too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { runAllowanceCli } from '../../cli/allowance.js';

const ALLOWANCE = 10;
const QUERY = JSON.stringify({ query: '{ utilities(zipCode: "75001") { id } }' });
let redis: TestRedis;
let gw: TestGateway;

beforeAll(async () => {
  redis = await startTestRedis();
  gw = await startTestGateway({ REDIS_URL: redis.url, TRUST_PROXY: '1', PLAYGROUND_ALLOWANCE: String(ALLOWANCE) });
});
afterAll(async () => {
  await gw?.close();
  await redis?.stop();
});

/** Status codes of 15 counted calls, the client's own entry new each time, the proxy's as `proxied(i)`. */
async function calls(proxied: (i: number) => string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 15; i++) {
    const res = await fetch(gw.g.urls.playground!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.18.${i}.${i + 1}, ${proxied(i)}` },
      body: QUERY,
    });
    await res.text();
    statuses.push(res.status);
  }
  return statuses;
}

const ten = [...Array<number>(ALLOWANCE).fill(200), ...Array<number>(15 - ALLOWANCE).fill(429)];

async function shown(ip: string): Promise<string> {
  const out: string[] = [];
  const env = { PATH: process.env.PATH!, DATA_DIR: gw.dataDir, KEYS_FILE: `${gw.dataDir}/keys.json`, REDIS_URL: redis.url };
  const code = await runAllowanceCli(
    ['show', '--ip', ip],
    { ...env, PLAYGROUND_ALLOWANCE: String(ALLOWANCE) },
    { out: (l) => out.push(l), err: (l) => out.push(l) },
  );
  expect(code).toBe(0);
  return out.join('\n');
}

describe('the playground allowance behind a proxy, whatever it writes', () => {
  it('ip:port', async () => {
    expect(await calls((i) => `203.0.113.21:${40000 + i}`)).toEqual(ten);
    expect(await shown('203.0.113.21')).toMatch(/^203\.0\.113\.21: 10 of 10 calls used/);
  });

  it('[v6]:port', async () => {
    expect(await calls((i) => `[2001:db8:21::${i + 1}]:${40000 + i}`)).toEqual(ten);
    expect(await shown('2001:db8:21::1')).toMatch(/^2001:db8:21:0::\/64: 10 of 10 calls used/);
  });

  it('unknown: the call counts for the proxy it came through, never for the client-written entry', async () => {
    expect(await calls(() => 'unknown')).toEqual(ten);
    expect(await shown('127.0.0.1')).toMatch(/^127\.0\.0\.1: 10 of 10 calls used/);
  });

  it('IPv4-mapped IPv6, dotted and hex, bracketed or not: one IPv4 allowance', async () => {
    const forms = ['::ffff:203.0.113.11', '::ffff:cb00:710b', '[::ffff:cb00:710b]:8080', '203.0.113.11:9', '0:0:0:0:0:ffff:cb00:710b'];
    expect(await calls((i) => forms[i % forms.length]!)).toEqual(ten);
    expect(await shown('203.0.113.11')).toMatch(/^203\.0\.113\.11: 10 of 10 calls used/);
    expect(await shown('::ffff:cb00:710b')).toMatch(/^203\.0\.113\.11: 10 of 10 calls used/);
    expect(await shown('::ffff:203.0.113.11')).toMatch(/^203\.0\.113\.11: 10 of 10 calls used/);
  });
});
