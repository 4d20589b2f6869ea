// What the scan thread (scan-thread.ts) is asked and answers, and the work itself, shared by the
// thread (scan-worker.ts) and the calling thread when the scan thread cannot run.
import { decodeChunk, decodeLines, unpackChunk } from './replay-chunk.js';
import { recordMatches, summaryOf, type ReplayQuery } from './replay-match.js';
import type { ReplayRecord } from './replay-record.js';

/** One unit of replay storage and the query; `summary`: matches as summaryOf() gives them (a results table). */
export type ScanJob = ({ kind: 'chunk'; data: Uint8Array } | { kind: 'lines'; path: string }) & { query: ReplayQuery; summary: boolean };
export type ScanRequest = ScanJob & { id: number };
export type ScanResponse = { id: number; records: ReplayRecord[] } | { id: number; error: string };

/** Niceness of the scan thread (the serving thread's is 0): the kernel gives it ~10% of a contended core. */
export const SCAN_THREAD_NICE = 10;
/** The share of one core the scan thread works at most: it rests after each unit as long as the unit took. */
export const SCAN_THREAD_DUTY = 0.5;

/** The records of the job's unit that its query wants; `segmentText` reads an embedded segment ('' once it is gone). */
export function scanUnit(job: ScanJob, segmentText: (path: string) => string): ReplayRecord[] {
  const records = job.kind === 'chunk' ? decodeChunk(unpackChunk(Buffer.from(job.data))) : decodeLines(segmentText(job.path));
  const found = records.filter((r) => recordMatches(r, job.query));
  return job.summary ? found.map(summaryOf) : found;
}
