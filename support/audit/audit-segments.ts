// The audit trail without Redis: append-only JSONL segment files under <DATA_DIR>/audit/, one
// series for noise (aggregated sign-in refusals, searches, audit views) and one for everything
// else, each segment closed at SEGMENT_BYTES. Every segment has a summary (time span, count, the
// actions, actors and action+actor pairs it holds), built incrementally from the bytes appended
// since it was last read and saved beside a full segment (<segment>.sum), so a list reads only the
// segments that can hold a match, newest first, and stops once the page is full: never the whole
// trail on a request path. Several processes (gateway, CLI) may append to the same segment:
// appends of one line are atomic, and the summaries only trust bytes up to the last newline.
// Trimming drops whole segments: past AUDIT_RETENTION, then the oldest noise segments (then the
// oldest others) while the trail holds more than AUDIT_MAX_ENTRIES.
import fsp from 'node:fs/promises';
import { parseJsonLines } from '../../lib/json-text.js';
import path from 'node:path';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  NOISE_ACTIONS,
  completeEntry,
  newestFirst,
  normaliseQuery,
  trimAfterWrites,
  type AuditEntry,
  type AuditLog,
} from './audit-entry.js';

const SEGMENT_BYTES = 256 * 1024;
/** A full segment untouched this long is not stat-ed again. */
const SETTLED_MS = 10_000;
const SEGMENT = /^(main|noise)-(\d{15})\.jsonl$/;

type SegmentClass = 'main' | 'noise';

interface Summary {
  file: string;
  cls: SegmentClass;
  /** Bytes summarised (up to the last complete line). */
  size: number;
  count: number;
  min: number;
  max: number;
  actions: Set<string>;
  actors: Set<string>;
  /** "action\nactor". */
  pairs: Set<string>;
  settled: boolean;
}

function auditDir(dataDir: string): string {
  return path.join(dataDir, 'audit');
}

function emptySummary(file: string, cls: SegmentClass): Summary {
  return {
    file,
    cls,
    size: 0,
    count: 0,
    min: Infinity,
    max: -Infinity,
    actions: new Set(),
    actors: new Set(),
    pairs: new Set(),
    settled: false,
  };
}

const parseLines = (text: string) => parseJsonLines<AuditEntry>(text);

/** An aggregated entry is appended again with its final count: the highest count wins. */
function dedupe(entries: AuditEntry[]): AuditEntry[] {
  const byId = new Map<string, AuditEntry>();
  for (const e of entries) {
    const seen = byId.get(e.id);
    if (!seen || (e.count ?? 1) > (seen.count ?? 1)) byId.set(e.id, e);
  }
  return [...byId.values()];
}

function addTo(s: Summary, e: AuditEntry): void {
  const t = Date.parse(e.time);
  s.count++;
  s.min = Math.min(s.min, t);
  s.max = Math.max(s.max, t);
  s.actions.add(e.action);
  s.actors.add(e.actor);
  s.pairs.add(`${e.action}\n${e.actor}`);
}

async function readSidecar(dir: string, name: string, size: number, cls: SegmentClass): Promise<Summary | null> {
  try {
    const raw = JSON.parse(await fsp.readFile(path.join(dir, `${name}.sum`), 'utf8')) as {
      size: number;
      count: number;
      min: number;
      max: number;
      pairs: string[];
    };
    if (raw.size !== size) return null;
    const s = emptySummary(name, cls);
    Object.assign(s, { size: raw.size, count: raw.count, min: raw.min, max: raw.max, settled: true });
    for (const p of raw.pairs) {
      const [action, actor] = p.split('\n') as [string, string];
      s.pairs.add(p);
      s.actions.add(action);
      s.actors.add(actor);
    }
    return s;
  } catch {
    return null;
  }
}

async function writeSidecar(dir: string, s: Summary): Promise<void> {
  const tmp = path.join(dir, `${s.file}.sum.${process.pid}.tmp`);
  const body = JSON.stringify({ size: s.size, count: s.count, min: s.min, max: s.max, pairs: [...s.pairs] });
  await fsp.writeFile(tmp, body, { mode: 0o600 });
  await fsp.rename(tmp, path.join(dir, `${s.file}.sum`));
}

/** Reads the bytes appended since the summary was last brought up to date. */
async function catchUp(dir: string, s: Summary, size: number, mtimeMs: number, now: number): Promise<void> {
  if (size > s.size) {
    const fh = await fsp.open(path.join(dir, s.file), 'r');
    try {
      const buf = Buffer.alloc(size - s.size);
      const { bytesRead } = await fh.read(buf, 0, buf.length, s.size);
      const end = buf.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
      for (const e of parseLines(buf.subarray(0, end).toString('utf8'))) addTo(s, e);
      s.size += end;
    } finally {
      await fh.close();
    }
  }
  const wasSettled = s.settled;
  s.settled = s.size >= SEGMENT_BYTES && s.size === size && now - mtimeMs > SETTLED_MS;
  if (s.settled && !wasSettled) await writeSidecar(dir, s).catch(() => {});
}

/** The summaries of every segment in the directory, brought up to date by refresh(). */
function summaryIndex(dir: string, now: () => number) {
  const summaries = new Map<string, Summary>();
  let refreshing: Promise<Summary[]> | null = null;
  const full = (name: string) => path.join(dir, name);

  async function doRefresh(): Promise<Summary[]> {
    const names = await fsp.readdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    const present = new Set<string>();
    for (const name of names) {
      const m = SEGMENT.exec(name);
      if (!m) continue;
      present.add(name);
      let s = summaries.get(name);
      if (s?.settled) continue;
      const st = await fsp.stat(full(name)).catch(() => null);
      if (!st) continue;
      if (!s) {
        s = (await readSidecar(dir, name, st.size, m[1] as SegmentClass)) ?? emptySummary(name, m[1] as SegmentClass);
        summaries.set(name, s);
      }
      await catchUp(dir, s, st.size, st.mtimeMs, now());
    }
    for (const name of summaries.keys()) if (!present.has(name)) summaries.delete(name);
    return [...summaries.values()];
  }

  const refresh = (): Promise<Summary[]> => {
    refreshing ??= doRefresh().finally(() => {
      refreshing = null;
    });
    return refreshing;
  };

  return { refresh, forget: (file: string) => summaries.delete(file) };
}

/** Appends entries to the open segment of each class; concurrent writes go out together. */
function segmentWriter(dir: string) {
  const current: Partial<Record<SegmentClass, { file: string; size: number }>> = {};
  const full = (name: string) => path.join(dir, name);
  let madeDir = false;

  // Writes that arrive while an append is in flight go out together in the next one.
  const chain: Record<SegmentClass, Promise<void>> = { main: Promise.resolve(), noise: Promise.resolve() };
  const queued: Record<SegmentClass, { entries: AuditEntry[]; done: Promise<void> } | null> = { main: null, noise: null };
  function enqueue(cls: SegmentClass, entry: AuditEntry): Promise<void> {
    let q = queued[cls];
    if (!q) {
      const batch: AuditEntry[] = [];
      const done = chain[cls]
        .catch(() => {})
        .then(() => {
          queued[cls] = null;
          return append(cls, batch);
        });
      q = queued[cls] = { entries: batch, done };
      chain[cls] = done;
    }
    q.entries.push(entry);
    return q.done;
  }

  /** Appends lines to the open segment of a class, starting a new one when it is full. */
  async function append(cls: SegmentClass, entries: AuditEntry[]): Promise<void> {
    if (!madeDir) await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    madeDir = true;
    let i = 0;
    while (i < entries.length) {
      let cur = current[cls];
      if (!cur || cur.size >= SEGMENT_BYTES) cur = current[cls] = await openSegment(cls, Date.parse(entries[i]!.time));
      let chunk = `${JSON.stringify(entries[i++])}\n`;
      while (i < entries.length && cur.size + Buffer.byteLength(chunk) < SEGMENT_BYTES) chunk += `${JSON.stringify(entries[i++])}\n`;
      await fsp.appendFile(full(cur.file), chunk, { mode: 0o600 });
      cur.size += Buffer.byteLength(chunk);
    }
  }

  /** The newest segment of a class with room (another process may have started it), else a new one. */
  async function openSegment(cls: SegmentClass, t: number): Promise<{ file: string; size: number }> {
    const names = (await fsp.readdir(dir))
      .filter((n) => SEGMENT.exec(n)?.[1] === cls)
      .sort()
      .reverse();
    if (names[0]) {
      const st = await fsp.stat(full(names[0])).catch(() => null);
      if (st && st.size < SEGMENT_BYTES) return { file: names[0], size: st.size };
    }
    // Named after its first entry's time, and always after the newest (entries may share a millisecond).
    const after = names[0] ? Number(SEGMENT.exec(names[0])![2]) + 1 : 0;
    const file = `${cls}-${String(Math.max(t, after, 0)).padStart(15, '0')}.jsonl`;
    return { file, size: 0 };
  }

  return {
    enqueue,
    append,
    /** A dropped segment: the next write opens another, and the directory is made again. */
    forget(cls: SegmentClass, file: string) {
      madeDir = false;
      if (current[cls]?.file === file) delete current[cls];
    },
  };
}

export function createSegmentAudit(dataDir: string, o: { retentionMs: number; maxEntries: number; now: () => number }): AuditLog {
  const dir = auditDir(dataDir);
  const { refresh, forget } = summaryIndex(dir, o.now);
  const { enqueue, append, forget: close } = segmentWriter(dir);
  const trimSometimes = trimAfterWrites(() => trim(), o.now);
  let migrated: Promise<void> | null = null;

  const full = (name: string) => path.join(dir, name);

  async function drop(s: Summary): Promise<void> {
    await fsp.rm(full(s.file), { force: true });
    await fsp.rm(full(`${s.file}.sum`), { force: true });
    forget(s.file);
    close(s.cls, s.file);
  }

  async function trim(): Promise<void> {
    const all = await refresh();
    const cutoff = o.now() - o.retentionMs;
    for (const s of all.filter((x) => x.max < cutoff)) await drop(s);
    const left = all.filter((x) => x.max >= cutoff).sort((a, b) => a.max - b.max);
    let total = left.reduce((n, s) => n + s.count, 0);
    const order = [...left.filter((s) => s.cls === 'noise'), ...left.filter((s) => s.cls === 'main')];
    for (const s of order) {
      if (total <= o.maxEntries) break;
      total -= s.count;
      await drop(s);
    }
  }

  /** The single file this store replaced (audit/audit.jsonl) is split into segments once. */
  async function migrate(): Promise<void> {
    const legacy = full('audit.jsonl');
    const claimed = `${legacy}.migrating-${process.pid}`;
    try {
      await fsp.rename(legacy, claimed);
    } catch {
      return; // none, or another process is at it
    }
    const batch: Record<SegmentClass, AuditEntry[]> = { main: [], noise: [] };
    const lines = createInterface({ input: createReadStream(claimed, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      const [e] = parseLines(line);
      if (!e) continue;
      const cls = NOISE_ACTIONS.has(e.action) ? 'noise' : 'main';
      batch[cls].push(e);
      if (batch[cls].length >= 1000) await append(cls, batch[cls].splice(0));
    }
    for (const cls of ['main', 'noise'] as const) await append(cls, batch[cls]);
    await fsp.rm(claimed, { force: true });
  }
  const ready = () => (migrated ??= migrate());
  // Summaries are built off the request path, at start-up.
  void ready()
    .then(refresh)
    .catch(() => {});

  return {
    async write(e) {
      await ready();
      const entry = completeEntry(e, o.now);
      await enqueue(NOISE_ACTIONS.has(entry.action) ? 'noise' : 'main', entry);
      await trimSometimes();
      return entry;
    },
    async list(q = {}) {
      await ready();
      const n = normaliseQuery(q, o.now() - o.retentionMs);
      const pairOk = (s: Summary) => {
        if (n.actions && n.actor) return n.actions.some((a) => s.pairs.has(`${a}\n${n.actor}`));
        if (n.actions) return n.actions.some((a) => s.actions.has(a));
        return !n.actor || s.actors.has(n.actor);
      };
      const candidates = (await refresh())
        .filter((s) => s.count > 0 && s.max >= n.from && s.min <= n.to && pairOk(s))
        .sort((a, b) => b.max - a.max);
      const want = n.offset + n.limit;
      let found: AuditEntry[] = [];
      for (const s of candidates) {
        if (found.length >= want && Date.parse(found[want - 1]!.time) > s.max) break;
        const fh = await fsp.open(full(s.file), 'r').catch(() => null);
        if (!fh) continue;
        try {
          const buf = Buffer.alloc(s.size);
          const { bytesRead } = await fh.read(buf, 0, s.size, 0);
          const hits = parseLines(buf.subarray(0, bytesRead).toString('utf8')).filter((e) => {
            const t = Date.parse(e.time);
            return (!n.actor || e.actor === n.actor) && (!n.actions || n.actions.includes(e.action)) && t >= n.from && t <= n.to;
          });
          found = dedupe([...found, ...hits])
            .sort(newestFirst)
            .slice(0, want);
        } finally {
          await fh.close();
        }
      }
      return found.slice(n.offset, want);
    },
  };
}
