// Noise is counted, not written one by one: refused and limited sign-ins, searches and audit views
// become one entry per actor, action and client address per minute, carrying a count and the
// details of the first occurrence. The first occurrence is written at once (like every entry,
// before the action answers); its count is rewritten once the minute is over (a timer every few
// seconds, and on close), and until then this process's list() shows the running count. A crash
// loses at most the last minute's counts, never an entry.
import { NOISE_ACTIONS, completeEntry, type AuditEntry, type AuditLog } from './audit-entry.js';

const FLUSH_EVERY_MS = 5000;
/** Distinct (actor, action, address) of a minute held in memory; beyond it the counts are written early. */
const MAX_PENDING = 10_000;

export function aggregateNoise(store: AuditLog, opts: { now: () => number }): AuditLog {
  const { now } = opts;
  const pending = new Map<string, { minute: number; entry: AuditEntry; written: number }>();
  const byId = new Map<string, AuditEntry>();
  let flushing: Promise<void> = Promise.resolve();

  const flush = (all: boolean): Promise<void> => {
    const current = Math.floor(now() / 60_000);
    const due = [...pending].filter(([, p]) => all || p.minute < current);
    for (const [k, p] of due) {
      pending.delete(k);
      byId.delete(p.entry.id);
    }
    flushing = flushing.then(async () => {
      for (const [, p] of due) if ((p.entry.count ?? 1) !== p.written) await store.write({ ...p.entry });
    });
    return flushing;
  };
  const timer = setInterval(() => {
    flush(false).catch(() => {}); // those counts stay at what was last written
  }, FLUSH_EVERY_MS);
  timer.unref();

  return {
    async write(e) {
      if (!NOISE_ACTIONS.has(e.action)) return store.write(e);
      const t = e.time ? Date.parse(e.time) : now();
      const minute = Math.floor(t / 60_000);
      const key = `${minute}\n${e.actor}\n${e.action}\n${e.from}`;
      const held = pending.get(key);
      if (held) {
        held.entry.count = (held.entry.count ?? 1) + 1;
        return { ...held.entry };
      }
      const entry = await store.write({ ...completeEntry({ ...e, time: new Date(t).toISOString() }, now), count: 1 });
      const kept = { ...entry, count: 1 };
      pending.set(key, { minute, entry: kept, written: 1 });
      byId.set(kept.id, kept);
      if (pending.size > MAX_PENDING) await flush(true);
      return entry;
    },
    async list(q = {}) {
      // The store holds every entry; this process may know a higher count for this minute's.
      return (await store.list(q)).map((e) => {
        const live = byId.get(e.id);
        return live && (live.count ?? 1) > (e.count ?? 1) ? { ...e, count: live.count } : e;
      });
    },
    async close() {
      clearInterval(timer);
      await flush(true);
      await store.close?.();
    },
  };
}
