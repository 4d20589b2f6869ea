// The APQ document store is bounded by bytes per environment and evicts the least recently used
// document first, the same way embedded and on a real redis-server (Lua script).
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createPersistedQueryStore,
  entryCost,
  persistedQueryKeys,
  PERSISTED_QUERY_DEADLINE_MS,
  type PersistedQueryStore,
} from '../../cache/persisted-query-store.js';
import { useTestRedis } from '../support/redis-suite.js';

const db = useTestRedis({ close: 'quit' });

const doc = (n: number, size = 40) => `{ utilities(zipCode: "${String(n).padStart(5, '0')}") { id } }`.padEnd(size, ' ');

describe.each(['embedded', 'redis'] as const)('%s store', (kind) => {
  let clock = 0;
  const make = (maxBytes: number): PersistedQueryStore =>
    createPersistedQueryStore({ redis: kind === 'redis' ? db.client : null, maxBytes, now: () => ++clock });
  beforeAll(async () => {
    if (kind === 'redis') await db.client.flushall();
  });

  it('stores, finds, and keeps environments apart', async () => {
    const s = make(1000);
    await s.put('production', 'a'.repeat(64), doc(1));
    expect(await s.get('production', 'a'.repeat(64))).toBe(doc(1));
    expect(await s.get('certification', 'a'.repeat(64))).toBeNull();
  });

  it('evicts the least recently used when the byte budget is exceeded', async () => {
    const s = make(3 * entryCost(40, 64) - 1); // two 40-byte documents fit, three do not
    await s.put('playground', '1'.repeat(64), doc(1));
    await s.put('playground', '2'.repeat(64), doc(2));
    expect(await s.get('playground', '1'.repeat(64))).toBe(doc(1)); // 1 is now the most recent
    await s.put('playground', '3'.repeat(64), doc(3));
    expect(await s.get('playground', '2'.repeat(64))).toBeNull();
    expect(await s.get('playground', '1'.repeat(64))).toBe(doc(1));
    expect(await s.get('playground', '3'.repeat(64))).toBe(doc(3));
    if (kind === 'redis') expect(Number(await db.client.get(persistedQueryKeys('playground')[2]))).toBe(2 * entryCost(40, 64));
  });

  it('does not store a document larger than the whole budget, and storing twice costs once', async () => {
    const s = make(1000);
    await s.put('certification', 'b'.repeat(64), doc(9, 1000 - entryCost(0, 64)));
    expect(await s.get('certification', 'b'.repeat(64))).toBeNull();
    await s.put('certification', 'c'.repeat(64), doc(8));
    await s.put('certification', 'c'.repeat(64), doc(8));
    if (kind === 'redis') expect(Number(await db.client.get(persistedQueryKeys('certification')[2]))).toBe(entryCost(40, 64));
  });
});

describe('redis store: a Redis that hangs', () => {
  it('a lookup gives up at the deadline (a miss for the client), not at the command timeout', async () => {
    const s = createPersistedQueryStore({ redis: db.client, maxBytes: 1000 });
    await s.put('production', 'c'.repeat(64), doc(3));
    db.redis.pause();
    try {
      const t0 = Date.now();
      await expect(s.get('production', 'c'.repeat(64))).rejects.toThrow(/timed out/);
      expect(Date.now() - t0).toBeLessThan(PERSISTED_QUERY_DEADLINE_MS + 150);
    } finally {
      db.redis.resume();
    }
    expect(await s.get('production', 'c'.repeat(64))).toBe(doc(3));
  });
});
