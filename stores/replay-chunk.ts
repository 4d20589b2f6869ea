// How a batch of replay records is stored, and how it is built: each record is encoded the moment
// it is queued, into bytes outside the JS heap, so a queued batch is one buffer rather than hundreds
// of objects that live through garbage collections until the batch is written (the cost a cache
// hit's record used to carry).
//
// - Redis chunks (v4): JSON in which each distinct response body, query text and variables is
//   stored once, and so is each distinct shape (what records share: environment, partner,
//   operation, status, body, cache state); a record is a small array of its own parts (id, time,
//   client, duration, headers, notes, upstream calls) and its shape's index. A cached answer sent 500 times is one
//   body, one shape and 500 small records (docs/benchmark.md, "Replay storage in Redis").
//   Raw-deflated. v3 and v2 chunks are still read.
// - Embedded segments: one JSON line per record.
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import type { ReplayRecord } from './replay-record.js';
import { recordJson, safeJson } from './replay-privacy.js';
import { jsonString as str, jsonStringOrNull as strOrNull, parseJsonLines } from '../lib/json-text.js';
import { BufferPool, ByteBuilder } from '../lib/byte-builder.js';

/** A batch ready to write: its bytes, its request ids one per line, and the time of its newest record. */
export interface EncodedBatch {
  data: Buffer;
  ids: Buffer;
  count: number;
  /** ms since epoch; 0 when empty. */
  newest: number;
  /**
   * Hands the batch's buffers back for a later batch. Only once nothing reads `data` or `ids` any
   * more: after a write that succeeded (a failed one may still sit in a client's queue).
   */
  release(): void;
}

/**
 * The buffers of written batches, reused by the next ones: a batch is encoded into buffers of its
 * own, and under load a new pair every few milliseconds was tens of MB/s of external memory, to
 * which V8 answers with full collections (docs/benchmark.md, "The cache hit"). Keeps up to 4 MB.
 */
const batchBuffers = new BufferPool(4 * 1024 * 1024);

export interface BatchEncoder {
  readonly count: number;
  /** Adds a record: false when it cannot be serialized (it is left out). */
  add(record: ReplayRecord): boolean;
  finish(): EncodedBatch;
}

/** Request ids of a batch, one per line, and the newest record's time. */
class BatchIds {
  readonly text: ByteBuilder;
  count = 0;
  private newestIso = '';

  constructor(capacity = 16 * 1024) {
    this.text = new ByteBuilder(capacity, { pool: batchBuffers });
  }

  note(r: ReplayRecord): void {
    this.text.append(this.count++ ? `\n${r.id}` : r.id);
    // ISO 8601 times of one format order as strings do.
    if (r.time > this.newestIso) this.newestIso = r.time;
  }

  newest(): number {
    const t = Date.parse(this.newestIso);
    return Number.isFinite(t) ? t : 0;
  }
}

/** Distinct values of one chunk, each stored once. */
class Table<K> {
  readonly values: string[] = [];
  private readonly index = new Map<K | string, number>();
  /** The index of `key`'s value; `text` makes the stored value on first sight. */
  at(key: K, text: () => string): number {
    let i = this.index.get(key);
    if (i !== undefined) return i;
    const value = text();
    i = this.index.get(value);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(value);
      this.index.set(value, i);
    }
    this.index.set(key, i);
    return i;
  }
}

/** The parts of a record that repeat from request to request (a cached answer's partner, operation, body). */
type Shape = Pick<
  ReplayRecord,
  'environment' | 'partnerCode' | 'operationName' | 'query' | 'variables' | 'status' | 'responseBody' | 'fromCache' | 'cache'
>;

function sameShape(a: Shape, b: ReplayRecord): boolean {
  return (
    a.environment === b.environment &&
    a.partnerCode === b.partnerCode &&
    a.operationName === b.operationName &&
    a.query === b.query &&
    a.variables === b.variables &&
    a.status === b.status &&
    a.fromCache === b.fromCache &&
    a.cache === b.cache
  );
}

/**
 * A v4 chunk: each record is a small array of what is its own (id, time, client, duration,
 * headers, notes, upstream calls, then a traced request's trace id) and the index of its shape, the array of what it shares with
 * other records (environment, partner, operation, query, variables, status, body, cache state,
 * digest, personal-data box), each distinct shape stored once. `keep(record)` false leaves a
 * record out without counting it as lost (one already past the retention). `expectedBytes`: room
 * to start with (the size of the partition's last chunk), so a full batch does not grow by copies.
 */
export function chunkEncoder(keep: (r: ReplayRecord) => boolean = () => true, expectedBytes = 16 * 1024): BatchEncoder {
  const bodies = new Table<string>();
  const texts = new Table<string>();
  const vars = new Table<object>();
  const shapes = new Table<string>();
  // The last shape seen with each body: a cache hit's record finds its shape without building it.
  const lastShape = new Map<string, { shape: Shape; index: number }>();
  // The chunk's JSON is gathered in one buffer, records first and the tables they refer to after
  // them (JSON.parse reads the keys in any order): nothing is copied when the batch is finished.
  const records = new ByteBuilder(expectedBytes, { pool: batchBuffers });
  records.append('{"v":4,"records":[');
  // A request id and its newline are ~1/6 of a hit's record.
  const ids = new BatchIds(Math.max(1024, Math.ceil(expectedBytes / 4)));

  function shapeOf(r: ReplayRecord): number {
    // Digests and sealed boxes are a record's own objects: such records build their shape.
    const plain = !r.queryDigest && !r.personalData;
    const last = plain ? lastShape.get(r.responseBody) : undefined;
    if (last && sameShape(last.shape, r)) return last.index;
    const query = r.query === null ? 'null' : String(texts.at(r.query, () => r.query!));
    // Variables come from a parsed body (one frozen object per distinct body): their JSON is made once per chunk.
    const variables = r.variables === null ? 'null' : String(vars.at(r.variables, () => safeJson(r.variables)));
    const body = bodies.at(r.responseBody, () => r.responseBody);
    const json = (v: unknown) => (v ? JSON.stringify(v) : 'null');
    const text =
      `[${str(r.environment)},${strOrNull(r.partnerCode)},${strOrNull(r.operationName)},${query},${variables},${r.status},${body},` +
      `${r.fromCache},${strOrNull(r.cache)},${json(r.queryDigest)},${json(r.personalData)},${json(r.facets)}]`;
    const index = shapes.at(text, () => text);
    if (plain) lastShape.set(r.responseBody, { shape: r, index });
    return index;
  }

  return {
    get count() {
      return ids.count;
    },
    add(r) {
      if (!keep(r)) return true;
      let text: string;
      try {
        // One native JSON.stringify of the record's own parts costs less than joining their texts.
        const own = [r.id, r.time, r.clientIp, r.durationMs, shapeOf(r), r.responseHeaders, r.notes ?? null, r.upstreamCalls];
        // A traced request's trace id comes last: an untraced record keeps the eight fields it always had.
        if (r.traceId) own.push(r.traceId);
        text = JSON.stringify(own);
      } catch {
        return false;
      }
      records.append(ids.count ? `,${text}` : text);
      ids.note(r);
      return true;
    },
    finish() {
      records.append(
        `],"bodies":${JSON.stringify(bodies.values)},"texts":${JSON.stringify(texts.values)},` +
          `"vars":${JSON.stringify(vars.values)},"shapes":[${shapes.values.join(',')}]}`,
      );
      return batchOf(records, ids);
    },
  };
}

function batchOf(data: ByteBuilder, ids: BatchIds): EncodedBatch {
  let released = false;
  return {
    data: data.bytes(),
    ids: ids.text.bytes(),
    count: ids.count,
    newest: ids.newest(),
    release() {
      if (released) return;
      released = true;
      data.release();
      ids.text.release();
    },
  };
}

/** JSON lines, one whole record each (the embedded store's segments). */
export function linesEncoder(): BatchEncoder {
  const lines = new ByteBuilder(16 * 1024, { pool: batchBuffers });
  const ids = new BatchIds();
  return {
    get count() {
      return ids.count;
    },
    add(r) {
      let line: string;
      try {
        line = recordJson(r);
      } catch {
        return false;
      }
      lines.append(`${line}\n`);
      ids.note(r);
      return true;
    },
    finish() {
      return batchOf(lines, ids);
    },
  };
}

/** The records of an embedded segment's text; a torn line (a write cut short) is skipped. */
export const decodeLines = (text: string): ReplayRecord[] => parseJsonLines<ReplayRecord>(text);

/** A whole batch as a chunk's JSON text (tests). */
export function encodeChunk(records: ReplayRecord[]): { json: string; ids: string[]; newest: number; skipped: number } {
  const enc = chunkEncoder();
  let skipped = 0;
  for (const r of records) if (!enc.add(r)) skipped++;
  const batch = enc.finish();
  return {
    json: batch.data.toString('utf8'),
    ids: batch.count ? batch.ids.toString('utf8').split('\n') : [],
    newest: batch.newest,
    skipped,
  };
}

const deflate = promisify(zlib.deflateRaw);

/** A chunk as stored in Redis: raw-deflated JSON (records repeat their partner, headers and notes). */
export async function packChunk(json: Buffer | string): Promise<Buffer> {
  return deflate(typeof json === 'string' ? Buffer.from(json) : json, { level: 1, windowBits: 13, memLevel: 6 });
}

export function unpackChunk(stored: Buffer): string {
  return zlib.inflateRawSync(stored).toString('utf8');
}

type StoredRecord = Omit<ReplayRecord, 'responseBody' | 'query' | 'variables'> & {
  responseBody: number;
  query: number | string | null;
  variables: number | Record<string, unknown> | null;
};

/** A chunk as stored: v4 (records and shapes as arrays), v3 (records refer to bodies, texts and variables), v2 (to bodies). */
interface StoredChunk {
  v: 2 | 3 | 4;
  bodies: string[];
  texts?: string[];
  vars?: string[];
  shapes?: unknown[][];
  records: StoredRecord[] | unknown[][];
}

export function decodeChunk(raw: string): ReplayRecord[] {
  const chunk = JSON.parse(raw) as StoredChunk;
  if ((chunk?.v !== 2 && chunk?.v !== 3 && chunk?.v !== 4) || !Array.isArray(chunk.records)) return [];
  const body = (i: unknown) => (typeof i === 'number' ? (chunk.bodies[i] ?? '') : '');
  if (chunk.v === 2) return (chunk.records as StoredRecord[]).map((r) => ({ ...r, responseBody: body(r.responseBody) }) as ReplayRecord);
  const text = (i: unknown) => (typeof i === 'number' ? (chunk.texts?.[i] ?? null) : null);
  const vars = (i: unknown) =>
    typeof i === 'number' && chunk.vars?.[i] !== undefined ? (JSON.parse(chunk.vars[i]!) as Record<string, unknown> | null) : null;
  if (chunk.v === 3) {
    return (chunk.records as StoredRecord[]).map((r) => ({
      ...r,
      query: text(r.query),
      variables: vars(r.variables),
      responseBody: body(r.responseBody),
    }));
  }
  return (chunk.records as unknown[][]).map(
    ([id, time, clientIp, durationMs, shapeIndex, responseHeaders, notes, upstreamCalls, traceId]) => {
      const [
        environment,
        partnerCode,
        operationName,
        query,
        variables,
        status,
        responseBody,
        fromCache,
        cache,
        queryDigest,
        personalData,
        facets,
      ] = chunk.shapes?.[shapeIndex as number] ?? [];
      // The order of a record as the replay plugin builds it.
      const r = {
        id,
        time,
        environment,
        partnerCode,
        clientIp,
        operationName,
        query: text(query),
        variables: vars(variables),
        status,
        responseBody: body(responseBody),
        responseHeaders,
        fromCache,
        cache,
        upstreamCalls,
        durationMs,
      } as ReplayRecord;
      if (notes !== null && notes !== undefined) r.notes = notes as Record<string, unknown>;
      if (queryDigest) r.queryDigest = queryDigest as ReplayRecord['queryDigest'];
      if (personalData) r.personalData = personalData as ReplayRecord['personalData'];
      if (facets) r.facets = facets as ReplayRecord['facets'];
      if (typeof traceId === 'string') r.traceId = traceId;
      return r;
    },
  );
}
