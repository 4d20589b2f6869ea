// The persisted-query budget counts what the store holds: 30,000 unique registrations against a
// 1 MiB budget leave at most 1.5 MiB in a real redis-server (MEMORY USAGE over the keys, and the
// used_memory delta) and at most 1.5 MiB more V8 heap in the embedded store. Before, only document
// bytes were counted: short documents held 15-19 times their budget.
import { createHash } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createPersistedQueryStore, persistedQueryKeys } from '../../cache/persisted-query-store.js';
import { useTestRedis } from '../support/redis-suite.js';

const BUDGET = 1024 * 1024;
const HELD_MAX = 1.5 * 1024 * 1024;
const REGISTRATIONS = 30_000;
const db = useTestRedis({ timeout: 30_000, close: 'quit' });

/** Short documents, like a scripted registration flood: the overhead of each entry dominates. */
function registration(i: number): [string, string] {
  const doc = `{ utilities(zipCode: "${String(i % 100_000).padStart(5, '0')}") { id } n${i}: __typename }`;
  return [createHash('sha256').update(doc).digest('hex'), doc];
}

const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await db.client.info('memory'))![1]);

describe('persisted-query budget', () => {
  it('holds at most 1.5 MiB in Redis after 30,000 registrations against 1 MiB', async () => {
    await db.client.flushall();
    const before = await usedMemory();
    const store = createPersistedQueryStore({ redis: db.client, maxBytes: BUDGET });
    for (let i = 0; i < REGISTRATIONS; i += 500)
      await Promise.all(Array.from({ length: 500 }, (_, j) => store.put('playground', ...registration(i + j))));
    let held = 0;
    for (const key of persistedQueryKeys('playground')) held += Number(await db.client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    expect(held).toBeLessThanOrEqual(HELD_MAX);
    expect((await usedMemory()) - before).toBeLessThanOrEqual(HELD_MAX);
    // The newest registrations are there, the oldest were evicted.
    expect(await store.get('playground', registration(REGISTRATIONS - 1)[0])).toBe(registration(REGISTRATIONS - 1)[1]);
    expect(await store.get('playground', registration(0)[0])).toBeNull();
  }, 120_000);

  it('grows the V8 heap by at most 1.5 MiB in the embedded store', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const store = createPersistedQueryStore({ redis: null, maxBytes: BUDGET });
    // Warm the code paths first, so the measure is the entries, not the compiled code.
    await store.put('certification', ...registration(-1));
    const before = heap();
    for (let i = 0; i < REGISTRATIONS; i++) await store.put('production', ...registration(i));
    const grown = heap() - before;
    expect(grown).toBeLessThanOrEqual(HELD_MAX);
    expect(await store.get('production', registration(REGISTRATIONS - 1)[0])).toBe(registration(REGISTRATIONS - 1)[1]);
    expect(await store.get('production', registration(0)[0])).toBeNull();
    expect(process.memoryUsage().rss).toBeLessThanOrEqual(250 * 1024 * 1024);
  });
});
