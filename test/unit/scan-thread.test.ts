// A support search's unpacking, parsing and filtering run on the scan thread (stores/scan-thread.ts)
// at a lower priority, not on the thread that serves partners; a corrupt unit
// fails as before; a thread that is gone is replaced; what it returns is what the filter wants.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packChunk, encodeChunk } from '../../stores/replay-chunk.js';
import { recordMatches } from '../../stores/replay-match.js';
import { SCAN_THREAD_NICE } from '../../stores/scan-job.js';
import { scanThread } from '../../stores/scan-thread.js';
import { testRecord } from '../support/replay-records.js';

const records = Array.from({ length: 200 }, (_, i) =>
  testRecord({ id: `req-${i}`, partnerCode: i % 2 ? 'ACME' : 'GLOBEX', status: i % 5 === 0 ? 500 : 200 }),
);
const query = { partner: 'ACME', status: '5xx' };
const expected = records.filter((r) => recordMatches(r, query)).map((r) => r.id);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-scan-'));
// The calling thread keeps whatever niceness the test run was started with (`nice npm test` too).
const callerNice = os.getPriority(0);

afterAll(async () => {
  await scanThread.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Niceness of every thread of this process. */
const niceness = () => fs.readdirSync('/proc/self/task').map((tid) => os.getPriority(Number(tid)));

describe('scan thread', () => {
  it('filters a Redis chunk on a thread of its own, at a lower priority than the calling one', async () => {
    const chunk = await packChunk(encodeChunk(records).json);
    const before = { scanned: scanThread.scanned, fallbacks: scanThread.fallbacks };
    const found = await scanThread.chunk(chunk, query);
    expect(found.map((r) => r.id)).toEqual(expected);
    expect(scanThread.scanned).toBe(before.scanned + 1);
    expect(scanThread.fallbacks).toBe(before.fallbacks);
    expect(os.getPriority(0)).toBe(callerNice);
    expect(niceness()).toContain(SCAN_THREAD_NICE);
  });

  it('a summary leaves out the answer, its headers, the upstream calls, the variables, and the query where facets name its fields', async () => {
    const rich = records.map((r, i) =>
      i % 2 ? { ...r, facets: { errors: 0, codes: [], rootFields: ['utilities'], zips: ['75001'] }, variables: { zip: '75001' } } : r,
    );
    const found = await scanThread.chunk(await packChunk(encodeChunk(rich).json), query, true);
    expect(found.map((r) => r.id)).toEqual(expected);
    for (const r of found) {
      expect(r).toMatchObject({ responseBody: '', responseHeaders: {}, upstreamCalls: [], variables: null });
      expect(r.query).toBe(r.facets ? '' : '{ utilities(zipCode: "75001") { id } }');
    }
  });

  it('reads an embedded segment file, skipping a torn last line, and a missing file as empty', async () => {
    const file = path.join(dir, 'segment.jsonl');
    fs.writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n{"id":"torn`);
    expect((await scanThread.lines(file, query)).map((r) => r.id)).toEqual(expected);
    expect(await scanThread.lines(path.join(dir, 'gone.jsonl'), query)).toEqual([]);
  });

  it('a corrupt chunk fails the read, as on the calling thread; the next one is read', async () => {
    const fallbacks = scanThread.fallbacks;
    await expect(scanThread.chunk(Buffer.from('not deflated at all'), query)).rejects.toThrow();
    expect(scanThread.fallbacks).toBe(fallbacks);
    const chunk = await packChunk(encodeChunk(records).json);
    expect((await scanThread.chunk(chunk, query)).map((r) => r.id)).toEqual(expected);
  });

  it('a thread that has gone is replaced on the next unit', async () => {
    const chunk = await packChunk(encodeChunk(records).json);
    await scanThread.chunk(chunk, query);
    await scanThread.close();
    const scanned = scanThread.scanned;
    expect((await scanThread.chunk(chunk, query)).map((r) => r.id)).toEqual(expected);
    expect(scanThread.scanned).toBe(scanned + 1);
  });
});
