// The embedded replay log (no Redis): append-only JSONL segment files under <DATA_DIR>/replay/,
// rotated by size, deleted whole when older than the retention or beyond the size bound.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ReplaySettings } from './replay-settings.js';
import type { ReplayRecord } from './replay-record.js';
import type { ReplayQuery } from './replay-match.js';
import { scanThread } from './scan-thread.js';
import { linesEncoder, type BatchEncoder, type EncodedBatch } from './replay-chunk.js';
import type { Backend, ScanPosition, ScanUnit } from './replay-backend.js';

const SEGMENT = /^replay-(\d{13})-(\d+)-(\d+)\.jsonl$/;

interface Segment {
  file: string;
  startedAt: number;
  size: number;
  mtimeMs: number;
}

/** The record on the line starting at `start`, if it is whole (a torn last line is not) and after `cutoff`. */
function recordLineAt(text: string, start: number, cutoff: number): ReplayRecord | null {
  const end = text.indexOf('\n', start);
  try {
    const r = JSON.parse(text.slice(start, end < 0 ? undefined : end)) as ReplayRecord;
    return Date.parse(r.time) >= cutoff ? r : null;
  } catch {
    return null;
  }
}

export class FileBackend implements Backend {
  private current: Segment | null = null;
  private seq = 0;
  private lastAgeSweep = 0;

  constructor(
    private readonly dir: string,
    private readonly settings: ReplaySettings,
    private readonly now: () => number,
  ) {}

  private async segments(): Promise<Segment[]> {
    let names: string[];
    try {
      names = await fsp.readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: Segment[] = [];
    for (const name of names) {
      const m = SEGMENT.exec(name);
      if (!m) continue;
      const file = path.join(this.dir, name);
      try {
        const st = await fsp.stat(file);
        out.push({ file, startedAt: Number(m[1]), size: st.size, mtimeMs: st.mtimeMs });
      } catch {
        // Deleted meanwhile (another process trimming).
      }
    }
    // Oldest first: by start time, then name.
    return out.sort((a, b) => a.startedAt - b.startedAt || a.file.localeCompare(b.file));
  }

  encoder(): BatchEncoder {
    return linesEncoder();
  }

  async write(batch: EncodedBatch): Promise<void> {
    if (batch.count === 0) return;
    const bytes = batch.data.length;
    // Make room first, so the total stays within the bound after the append.
    await this.trim(bytes);
    if (!this.current || this.current.size >= this.settings.segmentBytes) {
      await fsp.mkdir(this.dir, { recursive: true });
      const startedAt = this.now();
      const name = `replay-${String(startedAt).padStart(13, '0')}-${process.pid}-${this.seq++}.jsonl`;
      this.current = { file: path.join(this.dir, name), startedAt, size: 0, mtimeMs: startedAt };
    }
    await fsp.appendFile(this.current.file, batch.data, { mode: 0o600 });
    this.current.size += bytes;
  }

  /**
   * Deletes whole segments, oldest first: those older than the retention, then while the total
   * plus `incoming` bytes would exceed the size bound.
   */
  private async trim(incoming: number): Promise<void> {
    const segs = await this.segments();
    let total = segs.reduce((s, x) => s + x.size, 0);
    const cutoff = this.now() - this.settings.retentionMs;
    const doAgeSweep = this.now() - this.lastAgeSweep > 1000;
    if (doAgeSweep) this.lastAgeSweep = this.now();
    for (const s of segs) {
      const expired = doAgeSweep && s.mtimeMs < cutoff;
      if (!expired && total + incoming <= this.settings.maxBytes) continue;
      try {
        await fsp.unlink(s.file);
        total -= s.size;
      } catch {
        // Already gone (another process trimming).
      }
      if (s.file === this.current?.file) this.current = null;
    }
  }

  /** Segments newest first, limited to those that may hold records at or after `since`. */
  private async newestFirst(since: number): Promise<Segment[]> {
    return (await this.segments()).filter((s) => s.mtimeMs >= since).reverse();
  }

  /** The text of each segment holding records after `cutoff`, newest first (one deleted meanwhile is skipped). */
  private async *segmentTexts(cutoff: number): AsyncGenerator<string> {
    for (const s of await this.newestFirst(cutoff)) {
      try {
        yield await fsp.readFile(s.file, 'utf8');
      } catch {
        // deleted by retention or the size bound since it was listed
      }
    }
  }

  async getAll(id: string): Promise<ReplayRecord[]> {
    const needle = `{"id":${JSON.stringify(id)},`;
    const cutoff = this.now() - this.settings.retentionMs;
    const found: ReplayRecord[] = [];
    for await (const text of this.segmentTexts(cutoff)) {
      for (let at = text.startsWith(needle) ? 0 : text.indexOf(`\n${needle}`); at >= 0; at = text.indexOf(`\n${needle}`, at + 1)) {
        const r = recordLineAt(text, text[at] === '\n' ? at + 1 : at, cutoff);
        if (r) found.push(r);
      }
    }
    return found.sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
  }

  async get(id: string): Promise<ReplayRecord | null> {
    const needle = `{"id":${JSON.stringify(id)},`;
    const cutoff = this.now() - this.settings.retentionMs;
    for await (const text of this.segmentTexts(cutoff)) {
      // The latest record with this id (a reused request id replaces the earlier one).
      const at = text.lastIndexOf(`\n${needle}`);
      const r = at >= 0 ? recordLineAt(text, at + 1, cutoff) : text.startsWith(needle) ? recordLineAt(text, 0, cutoff) : null;
      if (r) return r;
    }
    return null;
  }

  /** A segment is read in pieces of this many bytes' worth of budget. */
  private static readonly UNIT_BYTES = 512 * 1024;

  async peek(from: ScanPosition | null, n: number, since: number): Promise<ScanUnit[]> {
    const cutoff = Math.max(since, this.now() - this.settings.retentionMs);
    // Newest first by start time (stable while a segment grows), then name.
    const segs = (await this.segments()).filter((x) => x.mtimeMs >= cutoff).reverse();
    const out: ScanUnit[] = [];
    let skip = from?.skip ?? 0;
    for (const x of segs) {
      if (from && x.startedAt > from.key) continue;
      if (from && x.startedAt === from.key && skip > 0) {
        skip--;
        continue;
      }
      out.push({ id: x.file, key: x.startedAt, newest: x.mtimeMs, cost: Math.max(1, Math.ceil(x.size / FileBackend.UNIT_BYTES)) });
      if (out.length >= n) break;
    }
    return out;
  }

  scan(unit: ScanUnit, q: ReplayQuery, summary: boolean): Promise<ReplayRecord[]> {
    return scanThread.lines(unit.id, q, summary);
  }

  async close(): Promise<void> {}
}
