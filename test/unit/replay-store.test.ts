import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { REPLAY_KEYS, createReplayStore, decodeChunk, encodeChunk, statusMatches, type ReplayRecord } from '../../stores/replay-store.js';
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

it('status filters', () => {
  expect(statusMatches(429, '4xx')).toBe(true);
  expect(statusMatches(429, '429')).toBe(true);
  expect(statusMatches(200, '4xx')).toBe(false);
  expect(statusMatches(503, '5XX')).toBe(true);
});

describe('embedded store (JSONL segments)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'replay-unit-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('writes, finds by id, lists newest first with filters', async () => {
    const store = createReplayStore({ redis: null, dataDir: path.join(dir, 'a'), settings: settings() });
    const t0 = Date.now() - 10_000;
    const recs = [
      testRecord({ partnerCode: 'ACME', status: 200 }, t0),
      testRecord({ partnerCode: 'ACME', status: 429, environment: 'playground' }, t0 + 1000),
      testRecord({ partnerCode: 'OTHER', status: 403 }, t0 + 2000),
      testRecord({ partnerCode: 'ACME', status: 200 }, t0 + 3000),
    ];
    for (const r of recs) store.enqueue(r);
    await store.flush();
    expect(await store.get(recs[1]!.id)).toEqual(recs[1]);
    expect(await store.get('req-missing1')).toBeNull();
    expect((await store.list({ partner: 'ACME' })).map((r) => r.id)).toEqual([recs[3]!.id, recs[1]!.id, recs[0]!.id]);
    expect((await store.list({ status: '4xx' })).map((r) => r.id)).toEqual([recs[2]!.id, recs[1]!.id]);
    expect((await store.list({ environment: 'playground' })).map((r) => r.id)).toEqual([recs[1]!.id]);
    expect((await store.list({ since: t0 + 1500 })).map((r) => r.id)).toEqual([recs[3]!.id, recs[2]!.id]);
    expect(await store.list({ limit: 1 })).toHaveLength(1);
    expect(store.stats()).toMatchObject({ store: 'embedded', written: 4, dropped: 0 });
    await store.close();
  });

  it('a record stored twice (a write retried after it was applied) is one record; two requests sharing an id are two', async () => {
    const d = path.join(dir, 'twice');
    const store = createReplayStore({ redis: null, dataDir: d, settings: settings() });
    const t0 = Date.now() - 10_000;
    const first = testRecord({ id: 'req-shared-id1', partnerCode: 'ACME' }, t0);
    store.enqueue(first);
    await store.flush();
    store.enqueue(first);
    store.enqueue(testRecord({ id: 'req-shared-id1', partnerCode: 'OTHER' }, t0 + 1000));
    await store.flush();
    expect((await store.getAll('req-shared-id1')).map((r) => r.partnerCode)).toEqual(['OTHER', 'ACME']);
    await store.close();
  });

  it('rotates segments and keeps the total under the size bound, oldest first', async () => {
    const d = path.join(dir, 'b');
    const store = createReplayStore({ redis: null, dataDir: d, settings: settings({ maxBytes: 40_000, segmentBytes: 8_000 }) });
    const first = testRecord({ responseBody: 'x'.repeat(900) });
    store.enqueue(first);
    await store.flush();
    let last!: ReplayRecord;
    for (let i = 0; i < 120; i++) {
      last = testRecord({ responseBody: 'y'.repeat(900) });
      store.enqueue(last);
      if (i % 5 === 0) await store.flush();
    }
    await store.flush();
    const files = await fs.readdir(path.join(d, 'replay', 'production'));
    expect(files.length).toBeGreaterThan(1);
    let total = 0;
    for (const f of files) total += (await fs.stat(path.join(d, 'replay', 'production', f))).size;
    expect(total).toBeLessThanOrEqual(40_000);
    expect(await store.get(first.id)).toBeNull();
    expect(await store.get(last.id)).toEqual(last);
    await store.close();
  });

  it('partitions: a keyless record never shadows or evicts a keyed one; personal data kept apart', async () => {
    const d = path.join(dir, 'partitions');
    let now = Date.now();
    const store = createReplayStore({
      redis: null,
      dataDir: d,
      now: () => now,
      settings: settings({
        maxBytes: 1_000_000,
        playgroundMaxBytes: 8192,
        segmentBytes: 1024,
        personal: { retentionMs: 60_000, maxBytes: 1_000_000 },
      }),
    });
    const keyed = testRecord({ id: 'shared-id-0001' }, now);
    const sealed = testRecord({ id: 'personal-0001', personalData: { sealed: null } }, now);
    store.enqueue(keyed);
    store.enqueue(sealed);
    await store.flush();
    for (let i = 0; i < 100; i++) {
      store.enqueue(
        testRecord(
          { id: i === 99 ? 'shared-id-0001' : undefined, environment: 'playground', partnerCode: null, responseBody: 'p'.repeat(900) },
          now + 1 + i,
        ),
      );
      await store.flush();
    }
    expect(await store.get('shared-id-0001')).toEqual(keyed);
    expect((await store.get('shared-id-0001', 'playground'))?.environment).toBe('playground');
    expect(await store.get('shared-id-0001', 'certification')).toBeNull();
    // The playground's budget held (to within a segment); production's record is untouched.
    let total = 0;
    for (const f of await fs.readdir(path.join(d, 'replay', 'playground')))
      total += (await fs.stat(path.join(d, 'replay', 'playground', f))).size;
    expect(total).toBeLessThanOrEqual(8192 + 1024);
    expect(await fs.readdir(path.join(d, 'replay'))).toEqual(expect.arrayContaining(['production', 'production.personal', 'playground']));
    expect((await store.list({ environment: 'production' })).map((r) => r.id).sort()).toEqual(['personal-0001', 'shared-id-0001']);
    // Personal data has its own, shorter retention.
    now += 120_000;
    expect(await store.get('personal-0001')).toBeNull();
    expect(await store.get('shared-id-0001')).toEqual(keyed);
    await store.close();
  });

  it('records older than the retention are not served and old segments go', async () => {
    let now = Date.now();
    const d = path.join(dir, 'c');
    const store = createReplayStore({
      redis: null,
      dataDir: d,
      settings: settings({ retentionMs: 60_000, segmentBytes: 1024 }),
      now: () => now,
    });
    const old = testRecord({ responseBody: 'z'.repeat(1200) }, now);
    store.enqueue(old);
    await store.flush();
    expect(await store.get(old.id)).toEqual(old);
    now += 120_000;
    expect(await store.get(old.id)).toBeNull();
    expect(await store.list({})).toEqual([]);
    // The next write sweeps segments whose last write is older than the retention (by mtime).
    const seg = (await fs.readdir(path.join(d, 'replay', 'production')))[0]!;
    const past = new Date(Date.now() - 3_600_000);
    await fs.utimes(path.join(d, 'replay', 'production', seg), past, past);
    store.enqueue(testRecord({}, now));
    await store.flush();
    expect(await fs.readdir(path.join(d, 'replay', 'production'))).not.toContain(seg);
    await store.close();
  });

  it('records of several partitions queued together each reach their own batch; the queue counts what is not written yet', async () => {
    const store = createReplayStore({ redis: null, dataDir: path.join(dir, 'interleaved'), settings: settings({ queueMaxRecords: 1000 }) });
    const recs = Array.from({ length: 1200 }, (_, i) =>
      testRecord({
        environment: ['production', 'playground', 'certification'][i % 3]!,
        partnerCode: i % 3 === 1 ? null : 'ACME',
        personalData: i % 7 === 0 ? { sealed: null } : undefined,
      }),
    );
    for (const r of recs) store.enqueue(r);
    // 1,000 queued at most: full batches (500 records) of one partition go to be written as they fill.
    expect(store.stats().enqueued + store.stats().dropped).toBe(1200);
    expect(store.stats().queued).toBeLessThanOrEqual(1000);
    await store.flush();
    const { written, dropped } = store.stats();
    expect(written + dropped).toBe(1200);
    expect(store.stats()).toMatchObject({ queued: 0, queuedBytes: 0 });
    for (const r of recs.slice(0, 30)) {
      const found = await store.get(r.id, r.environment);
      if (found) expect(found).toEqual(r);
    }
    for (const env of ['production', 'playground', 'certification']) {
      const listed = await store.list({ environment: env, limit: 2000 });
      expect(listed.every((r) => r.environment === env)).toBe(true);
    }
    await store.close();
  });

  it('a full queue drops and counts instead of growing', async () => {
    const store = createReplayStore({ redis: null, dataDir: path.join(dir, 'd'), settings: settings({ queueMaxRecords: 3 }) });
    for (let i = 0; i < 10; i++) store.enqueue(testRecord());
    expect(store.stats().dropped).toBe(7);
    await store.flush();
    expect(store.stats()).toMatchObject({ written: 3, dropped: 7 });
    await store.close();
  });
});

describe('Redis store', () => {
  const db = useTestRedis();

  const sizesTotal = async () => (await db.client.hvals(REPLAY_KEYS.sizes)).reduce((s, v) => s + Number(v), 0);
  /** The chunk whose id list holds `id` (the store keeps no per-id index). */
  const chunkOf = async (id: string) => {
    for (const cid of await db.client.zrange(REPLAY_KEYS.index, 0, -1)) {
      if ((await db.client.get(REPLAY_KEYS.chunkIds(cid)))?.split('\n').includes(id)) return cid;
    }
    return null;
  };

  it('writes a batch as one chunk with a TTL, its id list, an index and a byte count; finds and lists', async () => {
    const store = createReplayStore({ redis: db.client, dataDir: '/nonexistent', settings: settings({ retentionMs: 3_600_000 }) });
    const t0 = Date.now() - 5000;
    const a = testRecord({ partnerCode: 'ACME' }, t0);
    const b = testRecord({ partnerCode: 'ACME', status: 429 }, t0 + 1000);
    const c = testRecord({ partnerCode: 'OTHER' }, t0 + 2000);
    [a, b, c].forEach((r) => store.enqueue(r));
    await store.flush();
    expect(await store.get(b.id)).toEqual(b);
    expect(await store.get('req-unknown-id')).toBeNull();
    const chunkId = (await chunkOf(b.id))!;
    expect(await db.client.zcard(REPLAY_KEYS.index)).toBe(1);
    expect(await db.client.zscore(REPLAY_KEYS.index, chunkId)).toBe(String(t0 + 2000));
    expect(await db.client.pttl(REPLAY_KEYS.chunk(chunkId))).toBeGreaterThan(3_500_000);
    expect(await db.client.pttl(REPLAY_KEYS.chunkIds(chunkId))).toBeGreaterThan(3_500_000);
    expect((await store.list({ partner: 'ACME' })).map((r) => r.id)).toEqual([b.id, a.id]);
    expect((await store.list({ status: '429' })).map((r) => r.id)).toEqual([b.id]);
    expect((await store.list({ limit: 2 })).map((r) => r.id)).toEqual([c.id, b.id]);
    expect(Number(await db.client.get(REPLAY_KEYS.bytes))).toBe(await sizesTotal());
    // A reused request id: show returns the newest record; both stay listed.
    store.enqueue({ ...a, status: 500, time: new Date(t0 + 3000).toISOString() });
    await store.flush();
    expect((await store.get(a.id))?.status).toBe(500);
    expect((await store.list({ partner: 'ACME' })).map((r) => [r.id, r.status])).toEqual([
      [a.id, 500],
      [b.id, 429],
      [a.id, 200],
    ]);
    expect(Number(await db.client.get(REPLAY_KEYS.bytes))).toBe(await sizesTotal());
    await store.close();
    await db.client.flushall();
  });

  it('finds a record by its whole id only, across more chunks than one search call reads, newest first', async () => {
    const store = createReplayStore({ redis: db.client, dataDir: '/nonexistent', settings: settings({ retentionMs: 3_600_000 }) });
    const t0 = Date.now() - 600_000;
    // 300 chunks (one per flush): the first ones are past the first page of the newest-first search.
    const first = testRecord({ id: 'client-id-1' }, t0);
    const longer = testRecord({ id: 'client-id-10' }, t0 + 1);
    store.enqueue(first);
    store.enqueue(longer);
    await store.flush();
    const all: ReplayRecord[] = [];
    for (let i = 0; i < 299; i++) {
      const r = testRecord({}, t0 + 1000 + i * 100);
      all.push(r);
      store.enqueue(r);
      await store.flush();
    }
    expect(await db.client.zcard(REPLAY_KEYS.index)).toBe(300);
    expect(await store.get('client-id-1')).toEqual(first);
    expect(await store.get('client-id-10')).toEqual(longer);
    // A prefix, a part or a neighbour of an id is not that id; nor is an empty id or one spanning lines.
    for (const missing of ['client-id-', 'lient-id-1', 'client-id-100', 'client', '\nclient-id-1', '', 'client-id-1\nclient-id-10'])
      expect(await store.get(missing)).toBeNull();
    expect(await store.get(all[150]!.id)).toEqual(all[150]);
    expect(await store.get(all[298]!.id)).toEqual(all[298]);
    // A reused id: the newest record.
    store.enqueue({ ...first, status: 503, time: new Date(t0 + 500_000).toISOString() });
    await store.flush();
    expect((await store.get('client-id-1'))?.status).toBe(503);
    await store.close();
    await db.client.flushall();
  });

  it('still finds ids an earlier version indexed in a hash, and drops them with their chunk', async () => {
    let now = Date.now();
    const store = createReplayStore({
      redis: db.client,
      dataDir: '/nonexistent',
      now: () => now,
      settings: settings({ retentionMs: 60_000 }),
    });
    const r = testRecord({}, now);
    store.enqueue(r);
    await store.flush();
    const cid = (await chunkOf(r.id))!;
    // As the earlier version wrote it: the id in the hash, and no longer in the chunk's id list.
    await db.client.hset(REPLAY_KEYS.ids, r.id, cid);
    await db.client.set(REPLAY_KEYS.chunkIds(cid), `${r.id}-other`, 'PX', 60_000);
    expect(await store.get(r.id)).toEqual(r);
    await db.client.set(REPLAY_KEYS.chunkIds(cid), r.id, 'PX', 60_000);
    now += 61_000;
    store.enqueue(testRecord({}, now));
    await store.flush();
    expect(await db.client.hget(REPLAY_KEYS.ids, r.id)).toBeNull();
    expect(await store.get(r.id)).toBeNull();
    await store.close();
    await db.client.flushall();
  });

  it('stores each distinct body of a chunk once (a cached answer sent 200 times)', async () => {
    const store = createReplayStore({ redis: db.client, dataDir: '/nonexistent', settings: settings() });
    const cached = JSON.stringify({
      data: { residentialPlans: Array.from({ length: 20 }, (_, i) => ({ title: `Plan ${i}`, price: 0.1 + i / 1000 })) },
    });
    const recs = Array.from({ length: 200 }, (_, i) =>
      testRecord({ responseBody: i % 50 === 0 ? `{"data":{"n":${i}}}` : cached, fromCache: true, cache: 'HIT' }),
    );
    recs.forEach((r) => store.enqueue(r));
    await store.flush();
    const chunkId = (await chunkOf(recs[0]!.id))!;
    const stored = Number(await db.client.strlen(REPLAY_KEYS.chunk(chunkId)));
    expect(stored).toBeLessThan(200 * 400 + cached.length * 2);
    for (const r of [recs[0]!, recs[1]!, recs[50]!, recs[199]!]) expect(await store.get(r.id)).toEqual(r);
    expect(store.stats()).toMatchObject({ written: 200, dropped: 0 });
    await store.close();
    await db.client.flushall();
  });

  it('stores each distinct query and variables of a chunk once; hostile strings and unserializable variables survive', () => {
    const query = `query Plans($zip: String!) { residentialPlans(zipCode: $zip) { title } } # "quoted" \\ \u2028 \u0001`;
    const variables = Object.freeze({ zip: '75001' });
    const recs = Array.from({ length: 100 }, (_, i) =>
      testRecord({
        query,
        variables: i % 10 === 0 ? { zip: `7500${i % 3}`, '"k"': '\n' } : variables,
        fromCache: true,
        cache: 'HIT',
        partnerCode: i === 5 ? 'A"\\B' : 'ACME',
      }),
    );
    const looped: Record<string, unknown> = { a: 1 };
    looped.self = looped;
    recs.push(testRecord({ variables: looped }));
    const { json, ids, skipped } = encodeChunk(recs);
    expect(skipped).toBe(0);
    expect(ids).toEqual(recs.map((r) => r.id));
    const chunk = JSON.parse(json);
    expect(chunk.v).toBe(4);
    expect(chunk.texts).toHaveLength(2);
    expect(chunk.vars.length).toBeLessThanOrEqual(5);
    expect(json.split(query.slice(0, 30)).length - 1).toBe(1);
    const back = decodeChunk(json);
    expect(back.slice(0, 100)).toEqual(recs.slice(0, 100));
    expect(back[100]!.variables).toMatchObject({ $unrecorded: expect.any(String) });
  });

  it('reads chunks of the previous format (v2: bodies only)', () => {
    const r = testRecord({ fromCache: true, cache: 'HIT' });
    const v2 = JSON.stringify({ v: 2, bodies: [r.responseBody], records: [{ ...r, responseBody: 0 }] });
    expect(decodeChunk(v2)).toEqual([r]);
  });

  it('keeps the total under the size bound, dropping whole chunks, oldest first', async () => {
    const store = createReplayStore({ redis: db.client, dataDir: '/nonexistent', settings: settings({ maxBytes: 20_000 }) });
    const recs: ReplayRecord[] = [];
    for (let chunk = 0; chunk < 10; chunk++) {
      for (let i = 0; i < 6; i++) {
        const r = testRecord(
          { responseBody: `${chunk}-${i}-${randomBytes(675).toString('base64')}` },
          Date.now() - 60_000 + (chunk * 6 + i) * 100,
        );
        recs.push(r);
        store.enqueue(r);
      }
      await store.flush();
    }
    const bytes = Number(await db.client.get(REPLAY_KEYS.bytes));
    expect(bytes).toBe(await sizesTotal());
    expect(bytes).toBeLessThanOrEqual(20_000);
    expect(bytes).toBeGreaterThan(10_000);
    expect(await store.get(recs[0]!.id)).toBeNull();
    expect(await store.get(recs[59]!.id)).toEqual(recs[59]);
    const kept = await db.client.zcard(REPLAY_KEYS.index);
    expect(kept).toBe(await db.client.hlen(REPLAY_KEYS.sizes));
    expect(kept).toBeLessThan(10);
    // No index entry per id is written: ids are found in the chunks' id lists.
    expect(await db.client.exists(REPLAY_KEYS.ids)).toBe(0);
    expect((await store.list({ limit: 100 })).length).toBe(kept * 6);
    await store.close();
    await db.client.flushall();
  });

  it('drops chunks past the retention with their ids, and never writes a record already past it', async () => {
    let now = Date.now();
    const store = createReplayStore({
      redis: db.client,
      dataDir: '/nonexistent',
      now: () => now,
      settings: settings({ retentionMs: 60_000 }),
    });
    const old = testRecord({}, now - 120_000);
    const fresh = testRecord({}, now);
    store.enqueue(old);
    store.enqueue(fresh);
    await store.flush();
    expect(await chunkOf(old.id)).toBeNull();
    expect(await store.get(old.id)).toBeNull();
    expect(await store.get(fresh.id)).toEqual(fresh);
    // The record left out is not lost (it would have been trimmed at once), and the queue is empty.
    expect(store.stats()).toMatchObject({ written: 2, dropped: 0, queued: 0, queuedBytes: 0 });
    now += 61_000;
    const later = testRecord({}, now);
    store.enqueue(later);
    await store.flush();
    expect(await store.get(fresh.id)).toBeNull();
    expect(await chunkOf(fresh.id)).toBeNull();
    expect(await db.client.zcard(REPLAY_KEYS.index)).toBe(1);
    expect(await store.get(later.id)).toEqual(later);
    expect(Number(await db.client.get(REPLAY_KEYS.bytes))).toBe(await sizesTotal());
    await store.close();
    await db.client.flushall();
  });

  it('a record queued while a batch is being written is written after it, with nothing more queued and no flush', async () => {
    const store = createReplayStore({ redis: db.client, dataDir: '/nonexistent', settings: settings() });
    const first = testRecord();
    store.enqueue(first);
    // Redis holds writes for 400 ms: the first batch's write is under way when the second record comes.
    await db.client.call('CLIENT', 'PAUSE', '400', 'WRITE');
    await new Promise((r) => setTimeout(r, 120));
    const second = testRecord();
    store.enqueue(second);
    const deadline = Date.now() + 5000;
    while (!(await store.get(second.id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await store.get(first.id)).toEqual(first);
    expect(await store.get(second.id)).toEqual(second);
    await store.close();
    await db.client.flushall();
  });

  it('batches sealed while earlier ones are being written keep every record whole (written batches’ buffers are reused)', async () => {
    const store = createReplayStore({ redis: db.client, dataDir: '/nonexistent', settings: settings() });
    const sent: ReplayRecord[] = [];
    // Redis holds writes for a while, three times: each time more full batches are sealed behind
    // the one being written, then all are written, and later batches reuse the written ones' buffers.
    for (let round = 0; round < 3; round++) {
      await db.client.call('CLIENT', 'PAUSE', '150', 'WRITE');
      for (let i = 0; i < 1200; i++) {
        const r = testRecord({ responseBody: JSON.stringify({ data: { round, i, pad: 'x'.repeat(i % 97) } }) });
        sent.push(r);
        store.enqueue(r);
      }
      await store.flush();
    }
    expect(store.stats()).toMatchObject({ written: sent.length, dropped: 0 });
    for (const r of sent.filter((_, i) => i % 37 === 0 || i === sent.length - 1)) expect(await store.get(r.id)).toEqual(r);
    await store.close();
    await db.client.flushall();
  });

  it('Redis down: records are dropped and counted, enqueue never throws', async () => {
    const store = createReplayStore({ redis: db.client, dataDir: '/nonexistent', settings: settings({ writeRetryMs: 0 }) });
    await db.redis.stop();
    await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 5; i++) store.enqueue(testRecord());
    await store.flush();
    expect(store.stats()).toMatchObject({ written: 0, dropped: 5 });
    await db.redis.start();
    await store.close();
  });
});
