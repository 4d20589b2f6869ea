// What the replay store (replay-store.ts) asks of one partition's storage, Redis (replay-redis.ts)
// or files (replay-segments.ts), and the units a search reads from it.
import type { BatchEncoder, EncodedBatch } from './replay-chunk.js';
import type { ReplayQuery } from './replay-match.js';
import type { ReplayRecord } from './replay-record.js';

/** A unit of a partition's storage a search reads whole, in the partition's newest-first order. */
export interface ScanUnit {
  id: string;
  /** Order within the partition (descending), stable while the unit exists. */
  key: number;
  /** Newest record time (ms), for merging partitions. */
  newest: number;
  /** Budget units it costs to read. */
  cost: number;
}

/** Where a partition's scan stands: units with a greater key are read, and `skip` of those with this key. */
export interface ScanPosition {
  key: number;
  skip: number;
}

export interface Backend {
  /** A new batch, encoded record by record as they are queued. */
  encoder(): BatchEncoder;
  write(batch: EncodedBatch): Promise<void>;
  get(id: string, environment?: string): Promise<ReplayRecord | null>;
  getAll(id: string): Promise<ReplayRecord[]>;
  /** Up to `n` units after `from`, newest first, none wholly older than `since`. */
  peek(from: ScanPosition | null, n: number, since: number): Promise<ScanUnit[]>;
  /** The records of one unit that match `q` (unpacked and filtered on the scan thread). */
  scan(unit: ScanUnit, q: ReplayQuery, summary: boolean): Promise<ReplayRecord[]>;
  close(): Promise<void>;
}
