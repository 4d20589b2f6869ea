// The replay chunk format (v4: records as small arrays, what they share stored once) and the batch
// encoders: every record reads back exactly as it was queued, whatever it holds.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chunkEncoder, decodeChunk, encodeChunk, linesEncoder } from '../../stores/replay-chunk.js';
import type { ReplayRecord } from '../../stores/replay-record.js';
import { testRecord } from '../support/replay-records.js';

const text = fc.string({ unit: 'binary', maxLength: 40 });
const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const time = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }).map((t) => new Date(t).toISOString());

/** Records drawn from a few shared bodies, queries and variables objects, as a cache's hits are. */
const records = fc
  .tuple(
    fc.array(text, { minLength: 1, maxLength: 3 }),
    fc.array(fc.option(text, { nil: null }), { minLength: 1, maxLength: 3 }),
    fc.array(
      fc.option(
        fc.dictionary(text, json, { maxKeys: 3 }).map((v) => Object.freeze(v)),
        { nil: null },
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .chain(([bodies, queries, variables]) =>
    fc.array(
      fc.record(
        {
          id: text,
          time,
          environment: fc.constantFrom('production', 'certification', 'playground'),
          partnerCode: fc.option(fc.constantFrom('ACME', 'OTHER', 'A"\\B\u2028'), { nil: null }),
          clientIp: fc.constantFrom('127.0.0.1', '::1', '10.0.0.7'),
          operationName: fc.option(fc.constantFrom('Plans', 'Utilities'), { nil: null }),
          query: fc.constantFrom(...queries),
          variables: fc.constantFrom(...variables),
          status: fc.constantFrom(200, 400, 429, 500),
          responseBody: fc.constantFrom(...bodies),
          responseHeaders: fc.dictionary(fc.constantFrom('x-request-id', 'x-cache', 'age', 'retry-after', 'x-ratelimit-remaining'), text),
          fromCache: fc.boolean(),
          cache: fc.option(fc.constantFrom('HIT', 'MISS', 'BYPASS', 'STALE', 'COALESCED'), { nil: null }),
          upstreamCalls: fc.array(
            fc.record(
              {
                feed: text,
                url: text,
                status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
                durationMs: fc.nat(),
                error: fc.option(text, { nil: undefined }),
              },
              { requiredKeys: ['feed', 'url', 'status', 'durationMs'] },
            ),
            { maxLength: 2 },
          ),
          durationMs: fc.nat(),
          notes: fc.option(fc.dictionary(text, json, { maxKeys: 3 }), { nil: undefined }),
          queryDigest: fc.option(fc.record({ sha256: text, bytes: fc.nat(), head: text }), { nil: undefined }),
          personalData: fc.option(fc.record({ sealed: fc.constant(null), unsealed: fc.constant(true as const) }), { nil: undefined }),
        },
        {
          requiredKeys: [
            'id',
            'time',
            'environment',
            'partnerCode',
            'clientIp',
            'operationName',
            'query',
            'variables',
            'status',
            'responseBody',
            'responseHeaders',
            'fromCache',
            'cache',
            'upstreamCalls',
            'durationMs',
          ],
        },
      ),
      { minLength: 1, maxLength: 30 },
    ),
  );

/** What a record reads back as: JSON drops undefined members. */
const asStored = (r: ReplayRecord) => JSON.parse(JSON.stringify(r)) as ReplayRecord;

describe('replay chunks', () => {
  it('every record of a chunk reads back as it was queued (shared and distinct shapes, hostile strings)', () => {
    fc.assert(
      fc.property(records, (recs) => {
        const rs = recs as ReplayRecord[];
        const { json: chunk, ids, skipped } = encodeChunk(rs);
        expect(skipped).toBe(0);
        expect(ids).toEqual(
          rs
            .map((r) => r.id)
            .join('\n')
            .split('\n'),
        );
        expect(decodeChunk(chunk)).toEqual(rs.map(asStored));
      }),
      { numRuns: 300 },
    );
  });

  it('a chunk is the same bytes whatever room its encoder starts with (grown by copies or not)', () => {
    fc.assert(
      fc.property(records, fc.integer({ min: 1, max: 4096 }), (recs, room) => {
        const encode = (expected: number) => {
          const enc = chunkEncoder(() => true, expected);
          for (const r of recs as ReplayRecord[]) enc.add(r);
          const b = enc.finish();
          return { data: Buffer.from(b.data).toString('utf8'), ids: Buffer.from(b.ids).toString('utf8'), count: b.count };
        };
        const small = encode(room);
        expect(small).toEqual(encode(1 << 20));
        expect(decodeChunk(small.data)).toEqual((recs as ReplayRecord[]).map(asStored));
      }),
      { numRuns: 200 },
    );
  });

  it('a cached answer sent 500 times is one body and one shape; each record keeps only its own parts', () => {
    const body = JSON.stringify({ data: { residentialPlans: Array.from({ length: 20 }, (_, i) => ({ title: `Plan ${i}` })) } });
    const variables = Object.freeze({ zipCode: '75001' });
    const base = {
      environment: 'production',
      partnerCode: 'ACME',
      operationName: 'Plans',
      query: 'query Plans { x }',
      variables,
      status: 200,
      responseBody: body,
      fromCache: true,
      cache: 'HIT',
      upstreamCalls: [],
    };
    const recs: ReplayRecord[] = Array.from({ length: 500 }, (_, i) => ({
      ...base,
      id: `req-${i}`,
      time: new Date(Date.UTC(2026, 10, 26, 12) + i).toISOString(),
      clientIp: '10.0.0.1',
      responseHeaders: { 'x-request-id': `req-${i}`, age: String(i % 7), 'x-cache': 'HIT' },
      durationMs: i % 3,
      notes: { cache: { level: 'memory', ageSeconds: i % 7 } },
    }));
    // The same shape from another partner, or with another status, is a shape of its own.
    recs.push({ ...recs[0]!, id: 'other-partner', partnerCode: 'OTHER' }, { ...recs[0]!, id: 'other-status', status: 500 });
    const { json: chunk } = encodeChunk(recs);
    const parsed = JSON.parse(chunk) as { v: number; bodies: string[]; shapes: unknown[]; records: unknown[] };
    expect(parsed.v).toBe(4);
    expect(parsed.bodies).toEqual([body]);
    expect(parsed.shapes).toHaveLength(3);
    // ~150 bytes a record of its own, against the 3.7 KB body stored once.
    expect(chunk.length).toBeLessThan(body.length + 502 * 200);
    expect(decodeChunk(chunk)).toEqual(recs);
  });

  it('reads chunks of the previous formats (v3: records refer to bodies, texts and variables; v2: bodies)', () => {
    const r: ReplayRecord = {
      id: 'r1',
      time: '2026-11-26T12:00:00.000Z',
      environment: 'production',
      partnerCode: 'ACME',
      clientIp: '::1',
      operationName: 'Plans',
      query: 'query Plans { x }',
      variables: { zip: '75001' },
      status: 200,
      responseBody: '{"data":{}}',
      responseHeaders: { 'x-cache': 'HIT' },
      fromCache: true,
      cache: 'HIT',
      upstreamCalls: [],
      durationMs: 1,
      notes: { a: 1 },
    };
    const v3 = JSON.stringify({
      v: 3,
      bodies: [r.responseBody],
      texts: [r.query],
      vars: [JSON.stringify(r.variables)],
      records: [{ ...r, query: 0, variables: 0, responseBody: 0 }],
    });
    expect(decodeChunk(v3)).toEqual([r]);
    const v2 = JSON.stringify({ v: 2, bodies: [r.responseBody], records: [{ ...r, responseBody: 0 }] });
    expect(decodeChunk(v2)).toEqual([r]);
    expect(decodeChunk(JSON.stringify({ v: 9, records: [] }))).toEqual([]);
  });

  it('a record that cannot be serialized is left out and counted; the others are kept', () => {
    const looped: Record<string, unknown> = {};
    looped.self = looped;
    const good = {
      id: 'ok',
      time: '2026-11-26T12:00:00.000Z',
      environment: 'production',
      partnerCode: null,
      clientIp: '::1',
      operationName: null,
      query: null,
      variables: null,
      status: 200,
      responseBody: '{}',
      responseHeaders: {},
      fromCache: false,
      cache: null,
      upstreamCalls: [],
      durationMs: 0,
    } as ReplayRecord;
    const bad = { ...good, id: 'bad', notes: looped } as ReplayRecord;
    const { json: chunk, ids, skipped } = encodeChunk([good, bad, good]);
    expect(skipped).toBe(1);
    expect(ids).toEqual(['ok', 'ok']);
    expect(decodeChunk(chunk)).toEqual([good, good]);
  });

  it('records already past the retention are left out of a chunk without being counted as lost', () => {
    const enc = chunkEncoder((r) => r.time >= '2026-01-01');
    const r = {
      id: 'x',
      time: '2025-12-31T23:59:59.999Z',
      environment: 'production',
      partnerCode: null,
      clientIp: '::1',
      operationName: null,
      query: null,
      variables: null,
      status: 200,
      responseBody: '{}',
      responseHeaders: {},
      fromCache: false,
      cache: null,
      upstreamCalls: [],
      durationMs: 0,
    } as ReplayRecord;
    expect(enc.add(r)).toBe(true);
    expect(enc.add({ ...r, id: 'y', time: '2026-01-01T00:00:00.000Z' })).toBe(true);
    const batch = enc.finish();
    expect(batch.count).toBe(1);
    expect(batch.ids.toString()).toBe('y');
    expect(batch.newest).toBe(Date.UTC(2026, 0, 1));
  });

  it('a written batch’s buffers are the next batch’s; an unreleased batch keeps its own', () => {
    // Small buffers may be slices of one of Node's slabs: the same memory is the same slab and offset.
    const sameMemory = (a: Buffer, b: Buffer) => a.buffer === b.buffer && a.byteOffset === b.byteOffset;
    for (const make of [() => chunkEncoder(), () => linesEncoder()]) {
      const first = make();
      first.add(testRecord());
      const written = first.finish();
      const kept = Buffer.from(written.data);
      // Not released (its write failed, or is still under way): the next batch writes elsewhere.
      const second = make();
      second.add(testRecord({ responseBody: '{"data":{"other":true}}' }));
      const secondBatch = second.finish();
      expect(sameMemory(secondBatch.data, written.data)).toBe(false);
      expect(written.data.equals(kept)).toBe(true);
      // Released after its write: the next batch reuses the buffer.
      written.release();
      secondBatch.release();
      const third = make();
      third.add(testRecord());
      const thirdBatch = third.finish();
      const freed = [written, secondBatch].flatMap((b) => [b.data, b.ids]);
      expect(freed.some((f) => sameMemory(f, thirdBatch.data))).toBe(true);
      thirdBatch.release();
      // Released twice gives nothing back twice.
      thirdBatch.release();
    }
  });

  it('embedded segments: one whole record per line, beginning with its id', () => {
    fc.assert(
      fc.property(records, (recs) => {
        const enc = linesEncoder();
        for (const r of recs as ReplayRecord[]) expect(enc.add(r)).toBe(true);
        const lines = enc.finish().data.toString('utf8').split('\n');
        expect(lines.pop()).toBe('');
        expect(lines.map((l) => JSON.parse(l))).toEqual((recs as ReplayRecord[]).map(asStored));
        for (const [i, l] of lines.entries()) expect(l.startsWith(`{"id":${JSON.stringify(recs[i]!.id)},`)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
