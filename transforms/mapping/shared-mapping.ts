// A feed answer that several calls share (callers joining one exchange, or calls answered with the
// same bytes again, get one payload: sources/upstream/transport.ts sharedOf) is mapped once per set
// of request inputs, and every one of those callers gets the same records, rejections and doubts. Nothing may change them after:
// mapPayload freezes what it returns, records deep (`frozen`), so a step that would write to one
// throws instead of changing another request's answer. It does so wherever the tests run, so every
// step after the mapping is checked read-only there; not under NODE_ENV=production (`npm start`),
// where frozen lists and records slowed V8's optimised code downstream, most at one connection,
// where no exchange is shared (docs/benchmark.md, "Uncached requests").
import { isSharedAnswer } from '../../sources/upstream/transport.js';
import type { FeedInput } from './types.js';

type Map_<T> = (payload: unknown, request: FeedInput) => T;

const MAPPINGS_PER_PAYLOAD = 16;

/** `map`, computed once per shared payload and request inputs; payloads not shared are mapped on every call. */
export function mappedOnce<T>(map: Map_<T>): Map_<T> {
  const byPayload = new WeakMap<object, Map<string, T>>();
  return (payload, request) => {
    if (!isSharedAnswer(payload)) return map(payload, request);
    let byRequest = byPayload.get(payload as object);
    if (!byRequest) byPayload.set(payload as object, (byRequest = new Map()));
    const key = JSON.stringify(request);
    let mapped = byRequest.get(key);
    if (mapped !== undefined) return mapped;
    mapped = map(payload, request);
    // A payload kept for its bytes (sources/upstream/answer-memo.ts) lives past its exchange: a
    // few request inputs per payload (a feed's URL names them), not one per request ever made.
    if (byRequest.size < MAPPINGS_PER_PAYLOAD) byRequest.set(key, mapped);
    return mapped;
  };
}

const FREEZE = process.env.NODE_ENV !== 'production';

/** `value` and every object and array inside it, frozen. Index loops for arrays: cheaper than `for...in`. */
export function frozen<T>(value: T): T {
  if (!FREEZE || value === null || typeof value !== 'object') return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (v !== null && typeof v === 'object') frozen(v);
    }
  } else {
    for (const key in value) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== null && typeof v === 'object') frozen(v);
    }
  }
  return value;
}
