// The free-request rate of the playground, counted beside the allowance: in memory (embedded store)
// and in a real redis-server (one script per round trip). End to end: test/e2e/request-defences.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import { allowancePlugin, FREE_REQUEST_RATE } from '../../server/plugins/playground-allowance.js';
import { EmbeddedAllowanceStore, RedisAllowanceStore, allowanceKey, freeRateKey, type AllowanceStore } from '../../cache/allowance.js';
import type { FreeRate } from '../../cache/free-rate.js';
import { connectRedis, type RedisClient } from '../../cache/redis-connection.js';
import type { PreparedOperation } from '../../server/graphql/prepare.js';
import type { RequestState } from '../../server/http/plugin.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import calculateSlot from 'cluster-key-slot';

function stateFor(ip: string): RequestState {
  return {
    environment: 'playground',
    requestId: 'r-0000001',
    clientIp: ip,
    receivedAt: 0,
    req: {} as IncomingMessage,
    partnerCode: null,
    cache: 'BYPASS',
    upstreamCalls: [],
    headers: {},
    notes: {},
  };
}

const countedQuery = { operation: { operation: 'query' }, introspectionOnly: false } as unknown as PreparedOperation;

let redis: TestRedis;
const clients: RedisClient[] = [];
const dirs: string[] = [];
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redis?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const stores: Record<string, (freeRate: FreeRate) => Promise<AllowanceStore>> = {
  memory: async (freeRate) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-free-rate-'));
    dirs.push(dir);
    return EmbeddedAllowanceStore.open(dir, 10, { freeRate });
  },
  redis: async (freeRate) => {
    const c = await connectRedis(redis.url);
    clients.push(c);
    await c.flushall();
    return new RedisAllowanceStore(c, 10, freeRate);
  },
};

describe.each(Object.keys(stores))('free-request rate (%s)', (kind) => {
  const open = stores[kind]!;

  it('lets `points` requests through per IP, then 429 FREE_REQUEST_RATE with Retry-After and the allowance headers', async () => {
    const warnings: object[] = [];
    const plugin = allowancePlugin({
      store: await open({ points: 3, windowSeconds: 60 }),
      limit: 10,
      logger: { warn: (o: object) => void warnings.push(o), error: () => {} },
    });
    for (let i = 0; i < 3; i++) expect(await plugin.onRequest!(stateFor('192.0.2.1'))).toBeUndefined();
    const refused = stateFor('192.0.2.1');
    const reply = (await plugin.onRequest!(refused)) as { status: number; body: string; headers: Record<string, string> };
    expect(reply.status).toBe(429);
    const error = JSON.parse(reply.body).errors[0];
    expect(error.extensions).toMatchObject({ code: 'RATE_LIMITED', reason: FREE_REQUEST_RATE });
    expect(error.message).toMatch(/at most 3 per 60 s/);
    expect(Number(reply.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(Number(reply.headers['Retry-After'])).toBeLessThanOrEqual(60);
    expect(refused.headers).toMatchObject({ 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '10' });
    expect(refused.notes.allowance).toMatchObject({ counted: false, reason: 'free_request_rate' });
    // Refused again, from memory, with one warning for both.
    expect(((await plugin.onRequest!(stateFor('192.0.2.1'))) as { status: number }).status).toBe(429);
    expect(warnings).toHaveLength(1);
    // Another address, and another IPv6 /64, have their own budget; the same /64 shares one.
    expect(await plugin.onRequest!(stateFor('192.0.2.2'))).toBeUndefined();
    for (let i = 0; i < 3; i++) expect(await plugin.onRequest!(stateFor(`2001:db8:1:2::${i + 1}`))).toBeUndefined();
    expect(((await plugin.onRequest!(stateFor('2001:db8:1:2::99'))) as { status: number }).status).toBe(429);
  });

  it('gives a counted call its point back, and counts the allowance exactly', async () => {
    const plugin = allowancePlugin({ store: await open({ points: 2, windowSeconds: 60 }), limit: 10 });
    for (let i = 0; i < 10; i++) {
      const s = stateFor('192.0.2.9');
      expect(await plugin.onRequest!(s)).toBeUndefined();
      expect(s.headers['X-RateLimit-Remaining']).toBe(String(10 - i));
      expect(await plugin.onOperation!(s, countedQuery)).toBeUndefined();
      expect(s.notes.allowance).toMatchObject({ counted: true, remaining: 9 - i });
    }
    // The allowance is spent: those calls are free now, and two of them use the free rate up.
    for (let i = 0; i < 2; i++) {
      const s = stateFor('192.0.2.9');
      expect(await plugin.onRequest!(s)).toBeUndefined();
      expect(((await plugin.onOperation!(s, countedQuery)) as { status: number }).status).toBe(429);
    }
    const last = (await plugin.onRequest!(stateFor('192.0.2.9'))) as { body: string };
    expect(JSON.parse(last.body).errors[0].extensions.reason).toBe(FREE_REQUEST_RATE);
  });

  it('points 0 turns the limit off', async () => {
    const plugin = allowancePlugin({ store: await open({ points: 0, windowSeconds: 60 }), limit: 10 });
    for (let i = 0; i < 50; i++) expect(await plugin.onRequest!(stateFor('192.0.2.30'))).toBeUndefined();
  });
});

describe('free-request rate in Redis', () => {
  it('keeps the counter in the allowance key hash slot, with the window as its TTL; Redis down falls back to memory', async () => {
    const c = await connectRedis(redis.url);
    clients.push(c);
    const store = new RedisAllowanceStore(c, 10, { points: 2, windowSeconds: 30 });
    expect(calculateSlot(freeRateKey('192.0.2.40'))).toBe(calculateSlot(allowanceKey('192.0.2.40')));
    expect(await store.admit('192.0.2.40')).toEqual({ remaining: 10, freeRefusedMs: 0 });
    expect(await c.get(freeRateKey('192.0.2.40'))).toBe('1');
    const ttl = await c.pttl(freeRateKey('192.0.2.40'));
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    // A consume without a charged point (no admit) never takes the counter below zero.
    await c.del(freeRateKey('192.0.2.41'));
    expect((await store.consume('192.0.2.41')).allowed).toBe(true);
    expect(await c.get(freeRateKey('192.0.2.41'))).toBeNull();

    await redis.stop();
    try {
      const down = await store.admit('192.0.2.42');
      expect(down.remaining).toBeNull();
      expect(down.freeRefusedMs).toBe(0);
      await store.admit('192.0.2.42');
      expect((await store.admit('192.0.2.42')).freeRefusedMs).toBeGreaterThan(0);
    } finally {
      await redis.start();
    }
  });
});
