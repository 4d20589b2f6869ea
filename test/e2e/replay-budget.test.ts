// A replay partition in Redis holds what its budget says, even written one record per chunk (a
// quiet gateway, or a flood of small free calls spread in time): each chunk counts its keys and
// bookkeeping, calibrated against used_memory (before, only body and ids were counted and tiny
// chunks held 3.2 times the budget by MEMORY USAGE over the keys).
import { describe, expect, it } from 'vitest';
import { useTestRedis } from '../support/redis-suite.js';
import { createReplayStore, type ReplayRecord } from '../../stores/replay-store.js';
import type { ReplaySettings } from '../../stores/replay-settings.js';

const BUDGET = 512 * 1024;
const db = useTestRedis({ timeout: 30_000, close: 'quit' });

const settings: ReplaySettings = {
  enabled: true,
  retentionMs: 7 * 24 * 3_600_000,
  maxBytes: BUDGET,
  playgroundMaxBytes: BUDGET,
  personal: { retentionMs: 24 * 3_600_000, maxBytes: BUDGET },
  piiKey: null,
  queueMaxRecords: 10_000,
  queueMaxBytes: 64 * 1024 * 1024,
  segmentBytes: 1024 * 1024,
} as ReplaySettings;

const record = (i: number): ReplayRecord =>
  ({
    id: `req-${String(i).padStart(8, '0')}`,
    time: new Date(Date.now() - 60_000 + i).toISOString(),
    environment: 'playground',
    partnerCode: null,
    clientIp: '198.51.100.7',
    operationName: null,
    query: '{ __typename }',
    variables: null,
    status: 200,
    responseBody: '{"data":{"__typename":"Query"}}',
    responseHeaders: {},
    fromCache: false,
    cache: 'BYPASS',
    durationMs: 1,
  }) as unknown as ReplayRecord;

describe('replay budget in Redis', () => {
  it('holds at most its budget (MEMORY USAGE over its keys) with one record per chunk', async () => {
    await db.client.flushall();
    const store = createReplayStore({ redis: db.client, dataDir: '/nonexistent', settings });
    for (let i = 0; i < 3000; i++) {
      store.enqueue(record(i));
      await store.flush();
    }
    await store.close();
    let held = 0;
    for (const key of await db.client.keys('epg:{replay}:*')) held += Number(await db.client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    expect(held).toBeLessThanOrEqual(BUDGET);
  }, 120_000);
});
