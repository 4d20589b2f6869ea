// The free-request rate limit in memory (no REDIS_URL); the Redis mode is in
// test/e2e/request-defences.test.ts against a real redis-server.
import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { freeRequestRatePlugin } from '../../server/plugins/free-request-rate.js';
import type { PreparedOperation } from '../../server/graphql/prepare.js';
import type { RequestState } from '../../server/http/plugin.js';

function stateFor(ip: string): RequestState {
  return { environment: 'playground', requestId: 'r-0000001', clientIp: ip, receivedAt: 0, req: {} as IncomingMessage, partnerCode: null, cache: 'BYPASS', upstreamCalls: [], headers: {}, notes: {} };
}

describe('free-request rate (memory)', () => {
  it('lets `points` requests through per IP, then 429 FREE_REQUEST_RATE with Retry-After', async () => {
    const warnings: object[] = [];
    const plugin = freeRequestRatePlugin({ points: 3, windowSeconds: 60, redis: null, logger: { warn: (o) => void warnings.push(o) } });
    for (let i = 0; i < 3; i++) expect(await plugin.onRequest!(stateFor('192.0.2.1'))).toBeUndefined();
    const refused = stateFor('192.0.2.1');
    const reply = (await plugin.onRequest!(refused))!;
    expect(reply.status).toBe(429);
    expect(JSON.parse(reply.body).errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', reason: 'FREE_REQUEST_RATE' });
    expect(Number(reply.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(Number(reply.headers['Retry-After'])).toBeLessThanOrEqual(60);
    expect(refused.notes.allowance).toMatchObject({ counted: false, reason: 'free_request_rate' });
    expect(warnings).toHaveLength(1);
    // Another address, and another IPv6 /64, have their own budget; the same /64 shares one.
    expect(await plugin.onRequest!(stateFor('192.0.2.2'))).toBeUndefined();
    for (let i = 0; i < 3; i++) expect(await plugin.onRequest!(stateFor(`2001:db8:1:2::${i + 1}`))).toBeUndefined();
    expect((await plugin.onRequest!(stateFor('2001:db8:1:2::99')))?.status).toBe(429);
  });

  it('gives a counted call its point back', async () => {
    const plugin = freeRequestRatePlugin({ points: 2, windowSeconds: 60, redis: null });
    for (let i = 0; i < 5; i++) {
      const s = stateFor('192.0.2.9');
      expect(await plugin.onRequest!(s)).toBeUndefined();
      s.notes.allowance = { counted: true };
      plugin.onOperation!(s, {} as PreparedOperation);
      await new Promise((r) => setImmediate(r));
    }
  });

  it('points 0 turns the limit off', async () => {
    const plugin = freeRequestRatePlugin({ points: 0, windowSeconds: 60, redis: null });
    expect(plugin.onRequest).toBeUndefined();
    expect(plugin.onOperation).toBeUndefined();
  });
});
