// Answers whose bytes a feed sent before. A feed asked the same thing mostly answers the same
// bytes; each call still goes to the feed (what it answers now is what counts), but when its body,
// status and request key are those of the last answer kept for the key, the call is handed that
// answer's decoded text and what callers derived from it (transport.ts `sharedOf`: the completed
// payload, its mapped records), as callers joining one exchange are. The edge validation, the
// parse, the completion and the mapping are then skipped: together the largest share of a miss
// when every request makes its own feed calls (UPSTREAM_DEDUP=false; docs/benchmark.md, "Uncached
// requests"). What is derived is read-only already (shared between joined callers), and depends
// only on the text, the status and the request, all equal here.
//
// Bounded (entries and bytes), the newest answer per key only. Only answers a shared cache may
// keep: `no-store` and `private` ones (premises: personal data) are not held past their request.
import { Buffer } from 'node:buffer';
import { LRUCache } from 'lru-cache';
import { isStorable } from './stale-cache.js';
import type { BufferedResponse } from './transport.js';

interface Seen {
  status: number;
  body: Uint8Array;
  text: string;
  derived: Map<object, unknown>;
}

export interface AnswerMemo {
  /** `b` with the text and derivations of the answer kept for `key` when its status and bytes are the same; else undefined. */
  match(key: string, b: BufferedResponse): BufferedResponse | undefined;
  /** Keeps a validated answer (its text decoded, `derived` made) as the one for `key`, when a shared cache may keep it. */
  remember(key: string, b: BufferedResponse): void;
  clear(): void;
}

/**
 * Bytes held per byte of body: the body, its text (up to two bytes a character), its parse and what
 * was derived from it, a few times the body's size for JSON of small records.
 */
const HELD_PER_BODY_BYTE = 8;

export function createAnswerMemo(opts: { maxEntries: number; maxBytes: number }): AnswerMemo {
  const lru = new LRUCache<string, Seen>({
    max: opts.maxEntries,
    maxSize: opts.maxBytes,
    sizeCalculation: (s, key) => Math.max(1, HELD_PER_BODY_BYTE * s.body.byteLength + 2 * key.length),
  });
  return {
    match(key, b) {
      const seen = lru.get(key);
      if (!seen || seen.status !== b.status || !sameBytes(seen.body, b.body)) return undefined;
      return { ...b, text: seen.text, derived: seen.derived };
    },
    remember(key, b) {
      if (b.text === undefined || b.derived === undefined) return;
      if (!isStorable(b)) {
        lru.delete(key);
        return;
      }
      lru.set(key, { status: b.status, body: b.body, text: b.text, derived: b.derived });
    },
    clear: () => lru.clear(),
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || (a.byteLength === b.byteLength && Buffer.compare(a, b) === 0);
}
