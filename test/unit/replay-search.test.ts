// The console's search reads the replay log in bounded slices: at most a budget of chunks (Redis)
// or segment bytes (embedded) per call, newest first across partitions, yielding to the event loop
// between them; a cursor continues where a slice stopped and every record is seen exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createReplayStore, LIST_UNITS, type ReplayRecord, type ReplayStore } from '../../stores/replay-store.js';
import type { ReplaySettings } from '../../stores/replay-settings.js';
import { useTestRedis } from '../support/redis-suite.js';
import { testRecord } from '../support/replay-records.js';

const settings = (over: Partial<ReplaySettings> = {}): ReplaySettings => ({
  enabled: true,
  retentionMs: 7 * 24 * 3_600_000,
  maxBytes: 256 * 1024 * 1024,
  playgroundMaxBytes: 32 * 1024 * 1024,
  personal: { retentionMs: 24 * 3_600_000, maxBytes: 64 * 1024 * 1024 },
  piiKey: null,
  queueMaxRecords: 10_000,
  queueMaxBytes: 64 * 1024 * 1024,
  segmentBytes: 1024 * 1024,
  ...over,
});

/** 30 batches of 20 records in two environments, the oldest holding the one rare match. */
async function fill(store: ReplayStore): Promise<{ all: Set<string>; rare: string }> {
  const all = new Set<string>();
  const start = Date.now() - 3_600_000;
  let rare = '';
  for (let b = 0; b < 30; b++) {
    for (let i = 0; i < 20; i++) {
      const r = testRecord({ environment: i % 2 ? 'certification' : 'production' }, start + b * 60_000 + i * 100);
      if (b === 0 && i === 0) {
        r.clientIp = '203.0.113.77';
        rare = r.id;
      }
      all.add(r.id);
      store.enqueue(r);
    }
    await store.flush();
  }
  return { all, rare };
}

async function exercise(store: ReplayStore, maxUnits: number): Promise<void> {
  const { all, rare } = await fill(store);
  // One slice reads at most its budget, and says where to go on.
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 0);
  const first = await store.search({ clientIp: '203.0.113.77', since: 0, limit: 1000 }, { maxUnits });
  clearInterval(ticker);
  expect(first.units).toBeLessThanOrEqual(maxUnits);
  expect(first.records).toEqual([]);
  expect(first.next).not.toBeNull();
  expect(first.searchedBack).toBeLessThan(Date.now());
  // It yielded to the event loop while it read (timers ran in between).
  expect(ticks).toBeGreaterThan(0);
  // Continuing finds the rare match in the oldest chunk.
  let cursor = first.next;
  let found: ReplayRecord[] = [];
  for (let i = 0; cursor && i < 100 && !found.length; i++) {
    const slice = await store.search({ clientIp: '203.0.113.77', since: 0, limit: 1000 }, { cursor, maxUnits });
    found = slice.records;
    cursor = slice.next;
  }
  expect(found.map((r) => r.id)).toEqual([rare]);
  // Every record once, newest first within each slice, slices going back in time.
  const seen: string[] = [];
  let last = Infinity;
  cursor = null;
  for (let i = 0; i < 200; i++) {
    const slice = await store.search({ since: 0, limit: 100_000 }, { cursor, maxUnits });
    const times = slice.records.map((r) => Date.parse(r.time));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    if (times.length) {
      expect(Math.max(...times)).toBeLessThanOrEqual(last);
      last = Math.min(...times);
    }
    seen.push(...slice.records.map((r) => r.id));
    cursor = slice.next;
    if (!cursor) break;
  }
  expect(seen.length).toBe(all.size);
  expect(new Set(seen)).toEqual(all);
  // A damaged cursor starts again from the newest rather than failing.
  expect((await store.search({ since: 0, limit: 5 }, { cursor: 'not-a-cursor!', maxUnits })).records.length).toBeGreaterThan(0);
}

describe('bounded search slices', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'replay-search-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });
  const db = useTestRedis();

  it('Redis: a slice reads at most its budget of chunks, and the cursor covers every chunk once', async () => {
    const store = createReplayStore({ redis: db.client, dataDir: dir, settings: settings() });
    await exercise(store, 6);
    await store.close();
  });

  it('a listing (admin GET /replay, replay list) reads at most LIST_UNITS chunks, says how far back it got, and its cursor reads on', async () => {
    await db.client.flushall();
    const store = createReplayStore({ redis: db.client, dataDir: dir, settings: settings() });
    const start = Date.now() - 3_600_000;
    let rare = '';
    for (let b = 0; b < LIST_UNITS + 20; b++) {
      const r = testRecord({ environment: 'certification' }, start + b * 1000);
      if (b === 0) {
        r.clientIp = '203.0.113.78';
        rare = r.id;
      }
      store.enqueue(r);
      await store.flush();
    }
    const first = await store.listing({ clientIp: '203.0.113.78', environment: 'certification', since: 0, limit: 10 });
    expect(first.records).toEqual([]);
    expect(first.complete).toBe(false);
    expect(first.searchedBack).toBeLessThan(start + 21 * 1000);
    const rest = await store.listing({ clientIp: '203.0.113.78', environment: 'certification', since: 0, limit: 10 }, first.next);
    expect(rest.records.map((r) => r.id)).toEqual([rare]);
    expect(rest.complete).toBe(true);
    // A listing that finds its limit is complete: the newest records, no cursor.
    const newest = await store.listing({ environment: 'certification', since: 0, limit: 5 });
    expect(newest).toMatchObject({ complete: true });
    expect(newest.records).toHaveLength(5);
    expect(newest.next).toBeUndefined();
    await store.close();
  });

  it('embedded: the same over segment files', async () => {
    const store = createReplayStore({ redis: null, dataDir: dir, settings: settings({ segmentBytes: 4096 }) });
    await exercise(store, 4);
    await store.close();
  });
});
