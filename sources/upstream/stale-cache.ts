// Stale-if-error: the last good answer per request key, kept in a bounded in-process LRU (entries
// and bytes) for at most STALE_IF_ERROR_SECONDS. Only successful, validated GET answers the feed
// allows a shared cache to keep are stored: `Cache-Control: no-store` or `private` (e.g. premises,
// which identify customers) are never kept, so personal data is never replayed from here.
//
// In-process only: each gateway process has its own copies (the response cache in Redis is a
// separate layer). A copy is served only when the live call failed; the age is reported to the
// partner in `extensions.stale`.
import { LRUCache } from 'lru-cache';
import { headerOf, type BufferedResponse } from './transport.js';

interface StaleCache {
  /** Keeps `b` if it is a storable answer; returns whether it was stored. */
  remember(key: string, b: BufferedResponse): boolean;
  /** The copy for `key` if younger than the bound, with its age in whole seconds. */
  lookup(key: string, now?: number): { response: BufferedResponse; ageSeconds: number } | null;
  clear(): void;
  readonly size: number;
}

/** Whether a shared cache may keep `b`: a 2xx with a body, neither `no-store` nor `private`. */
export function isStorable(b: BufferedResponse): boolean {
  if (b.status < 200 || b.status >= 300 || b.status === 204) return false;
  const cc = headerOf(b, 'cache-control');
  return !cc || !/(?:^|,)\s*(?:no-store|private)\s*(?:[,=]|$)/i.test(cc);
}

export function createStaleCache(opts: { maxAgeSeconds: number; maxEntries: number; maxBytes: number }): StaleCache {
  const maxAgeMs = opts.maxAgeSeconds * 1000;
  if (maxAgeMs <= 0) {
    return { remember: () => false, lookup: () => null, clear() {}, size: 0 };
  }
  const lru = new LRUCache<string, BufferedResponse>({
    max: opts.maxEntries,
    maxSize: opts.maxBytes,
    // The key (an upstream URL a client's arguments shaped) is held too.
    sizeCalculation: (b, key) => Math.max(1, b.body.byteLength + 64 * b.headers.length + 2 * key.length),
    ttl: maxAgeMs,
    ttlAutopurge: false,
    updateAgeOnGet: false,
  });
  return {
    remember(key, b) {
      if (!isStorable(b)) {
        // A newer answer says "do not keep": forget the older copy too.
        lru.delete(key);
        return false;
      }
      lru.set(key, b);
      return lru.has(key);
    },
    lookup(key, now = Date.now()) {
      const b = lru.get(key);
      if (!b) return null;
      const ageMs = now - b.receivedAt;
      if (ageMs > maxAgeMs) {
        lru.delete(key);
        return null;
      }
      return { response: b, ageSeconds: Math.max(0, Math.floor(ageMs / 1000)) };
    },
    clear: () => lru.clear(),
    get size() {
      return lru.size;
    },
  };
}
