// Answers of utility-scoped feeds kept per feed and arguments (the utility, the customer class),
// so other ZIPs of the same territory reuse them, and concurrent asks share one call. Never longer
// than the mapping's cacheSeconds, nor than the feed's own Cache-Control allows.
import { LRUCache } from 'lru-cache';

export interface FeedMemo {
  /** `load` unless a live entry for `key` exists; `keepSeconds(value)` says how long to keep it (0: not kept). */
  get<T>(key: string, load: () => Promise<T>, keepSeconds: (value: T) => number): Promise<T>;
  clear(): void;
}

export function createFeedMemo(maxEntries = 5000): FeedMemo {
  const lru = new LRUCache<string, { value: Promise<unknown> }>({ max: maxEntries, ttlAutopurge: false });
  return {
    get<T>(key: string, load: () => Promise<T>, keepSeconds: (value: T) => number): Promise<T> {
      const hit = lru.get(key);
      if (hit) return hit.value as Promise<T>;
      const entry = { value: load() as Promise<unknown> };
      // In flight: joined by concurrent asks; settled: kept for its time, or dropped.
      lru.set(key, entry, { ttl: 0 });
      entry.value.then(
        (v) => {
          if (lru.peek(key) !== entry) return;
          const s = keepSeconds(v as T);
          if (s > 0) lru.set(key, entry, { ttl: s * 1000 });
          else lru.delete(key);
        },
        () => {
          if (lru.peek(key) === entry) lru.delete(key);
        },
      );
      return entry.value as Promise<T>;
    },
    clear: () => lru.clear(),
  };
}
