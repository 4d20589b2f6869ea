// Injectable upstream failures, so gateway resilience (timeouts, breakers, validation,
// stale caches) can be exercised against a real socket.

export const FEEDS = ['territories', 'voltify', 'brightgrid', 'eia', 'premises', 'gridwise'] as const;
export type FeedName = (typeof FEEDS)[number];

export type Fault =
  | { kind: 'down' } // connection reset without a response
  | { kind: 'slow'; ms: number } // normal response after a delay
  | { kind: 'garbage' } // 200 with a body that is not JSON
  | { kind: 'status'; status: number } // that HTTP status with a JSON error body
  | { kind: 'null' }; // 200 with the JSON literal null

export const isFeed = (name: string): name is FeedName => (FEEDS as readonly string[]).includes(name);

const MAX_SLOW_MS = 10 * 60 * 1000;

/** Validates an untrusted fault description (from the control endpoint or a test). */
export function parseFault(value: unknown): Fault | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('fault must be an object or null');
  const v = value as Record<string, unknown>;
  switch (v.kind) {
    case 'down':
    case 'garbage':
    case 'null':
      return { kind: v.kind };
    case 'slow':
      if (typeof v.ms !== 'number' || !Number.isFinite(v.ms) || v.ms < 0 || v.ms > MAX_SLOW_MS) {
        throw new Error(`slow fault needs ms between 0 and ${MAX_SLOW_MS}`);
      }
      return { kind: 'slow', ms: v.ms };
    case 'status':
      if (typeof v.status !== 'number' || !Number.isInteger(v.status) || v.status < 200 || v.status > 599) {
        throw new Error('status fault needs an integer status between 200 and 599');
      }
      return { kind: 'status', status: v.status };
    default:
      throw new Error("fault kind must be one of 'down', 'slow', 'garbage', 'status', 'null'");
  }
}

/** Deliberately truncated, binary-laced text served as application/json. */
export const GARBAGE_BODY = '{"offers": [{"offerId": "VOL-\u0000\u00ff<html><body>502 Bad Gateway</body></html>';
