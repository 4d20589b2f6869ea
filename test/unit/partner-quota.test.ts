// The pieces of partner isolation on their own: quota values (bounds, hostile input), the token
// bucket's arithmetic (in memory, on a fake clock), the fair share's turn order and its adapting
// to the event loop's load (on a fake clock and load).
import { describe, expect, it } from 'vitest';
import { parseQuota, parseQuotas, QuotaError } from '../../stores/partner-quota.js';
import { MemoryQuotaCounter, RefusalMemo } from '../../cache/partner-quota.js';
import { FairShare, type Admission, type Slot } from '../../lib/fair-share.js';
import { partnerQuotaPlugin, policyHeader } from '../../server/plugins/partner-quota.js';
import type { Reply, RequestState } from '../../server/http/plugin.js';
import type { PreparedOperation } from '../../server/graphql/prepare.js';

describe('quota values', () => {
  it('takes whole numbers within the bounds, or "unlimited"', () => {
    expect(parseQuota({ requestsPerSecond: 50, burst: 200 })).toEqual({ requestsPerSecond: 50, burst: 200 });
    expect(parseQuota({ requestsPerSecond: ' 7 ', burst: '1' })).toEqual({ requestsPerSecond: 7, burst: 1 });
    expect(parseQuota({ requestsPerSecond: 10_000, burst: 100_000 })).toEqual({ requestsPerSecond: 10_000, burst: 100_000 });
    expect(parseQuota('unlimited')).toBe('unlimited');
  });

  it.each([
    [{ requestsPerSecond: 0, burst: 5 }, /at least 1/],
    [{ requestsPerSecond: -3, burst: 5 }, /whole number/],
    [{ requestsPerSecond: 10_001, burst: 5 }, /at most 10,000/],
    [{ requestsPerSecond: 5, burst: 100_001 }, /burst is at most 100,000/],
    [{ requestsPerSecond: Number.MAX_SAFE_INTEGER * 10, burst: 5 }, /whole number/],
    [{ requestsPerSecond: Infinity, burst: 5 }, /whole number/],
    [{ requestsPerSecond: NaN, burst: 5 }, /whole number/],
    [{ requestsPerSecond: 1.5, burst: 5 }, /whole number/],
    [{ requestsPerSecond: '0x10', burst: 5 }, /whole number/],
    [{ requestsPerSecond: '9'.repeat(5000), burst: 5 }, /whole number/],
    [{ requestsPerSecond: 5 }, /burst is required/],
    [{ requestsPerSecond: 5, burst: 5, extra: 1 }, /unknown quota field "extra"/],
    ['Unlimited', /"unlimited" or/],
    [null, /"unlimited" or/],
    [[5, 5], /"unlimited" or/],
  ])('refuses %j', (value, message) => {
    expect(() => parseQuota(value)).toThrow(QuotaError);
    expect(() => parseQuota(value)).toThrow(message);
  });

  it('refuses quotas of environments that have none, and keeps error text short', () => {
    expect(() => parseQuotas({ playground: 'unlimited' })).toThrow(/production or certification/);
    expect(() => parseQuotas([])).toThrow(/object by environment/);
    let message = '';
    try {
      parseQuota({ requestsPerSecond: 'x'.repeat(100_000), burst: 1 });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.length).toBeLessThan(200);
  });

  it('states the policy as a burst and the seconds to refill it', () => {
    expect(policyHeader({ requestsPerSecond: 50, burst: 200 })).toBe('"default";q=200;w=4');
    expect(policyHeader({ requestsPerSecond: 100, burst: 10 })).toBe('"default";q=10;w=1');
  });
});

describe('token bucket (in memory)', () => {
  it('lets a burst through, then the rate, and refusals take nothing', async () => {
    let now = 1e15;
    const bucket = new MemoryQuotaCounter(() => now);
    const q = { requestsPerSecond: 2, burst: 3 };
    const taken = [];
    for (let i = 0; i < 5; i++) taken.push(await bucket.take('p', q));
    expect(taken.map((v) => v.allowed)).toEqual([true, true, true, false, false]);
    expect(taken.map((v) => v.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(taken[3]).toMatchObject({ retryAfterSeconds: 1, waitMs: 500 });
    now += 499_000;
    expect((await bucket.take('p', q)).allowed).toBe(false);
    now += 1_000;
    expect((await bucket.take('p', q)).allowed).toBe(true);
    expect((await bucket.take('p', q)).allowed).toBe(false);
    // Another subject has a bucket of its own.
    expect((await bucket.take('other', q)).allowed).toBe(true);
    // A long quiet spell fills the bucket, never beyond its size.
    now += 3_600e6;
    const after = [];
    for (let i = 0; i < 4; i++) after.push((await bucket.take('p', q)).allowed);
    expect(after).toEqual([true, true, true, false]);
  });

  it('starts a changed quota with a full bucket, as Redis does (its key names the quota)', async () => {
    const now = 1e15;
    const bucket = new MemoryQuotaCounter(() => now);
    // Drained under a slow quota: its next request would pass 10 s from now.
    for (let i = 0; i < 10; i++) expect((await bucket.take('p', { requestsPerSecond: 1, burst: 10 })).allowed).toBe(true);
    const q = { requestsPerSecond: 2, burst: 3 };
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push((await bucket.take('p', q)).allowed);
    expect(taken).toEqual([true, true, true, false]);
  });

  it('remembers a refusal until one request may pass', () => {
    const memo = new RefusalMemo();
    const v = { allowed: false, remaining: 0, resetSeconds: 3, retryAfterSeconds: 2, waitMs: 1500 };
    memo.remember('p', v, 1500, 1000);
    expect(memo.refusedNow('p', 1000)).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
    expect(memo.refusedNow('p', 2000)).toMatchObject({ retryAfterSeconds: 1, waitMs: 500 });
    expect(memo.refusedNow('p', 2500)).toBeNull();
  });
});

describe('fair share', () => {
  const isSlot = (a: Admission): a is Slot => 'release' in a;

  it('gives freed slots to waiting tenants in turn, and refuses past the queue', async () => {
    const share = new FairShare({ total: 2, share: 2, queue: 3, maxWaitMs: 60_000 });
    const a1 = share.admit('A') as Slot;
    const a2 = share.admit('A') as Slot;
    expect(isSlot(a1) && isSlot(a2)).toBe(true);
    const order: string[] = [];
    const wait = (t: string) => Promise.resolve(share.admit(t)).then((s) => (order.push(t), s));
    const queued = [wait('A'), wait('A'), wait('A'), wait('B'), wait('B')];
    expect(share.admit('A')).toEqual({ refused: 'queue_full', queuedMs: 0 });
    a1.release();
    a1.release(); // a second release does nothing
    await new Promise((r) => setImmediate(r));
    a2.release();
    await new Promise((r) => setImmediate(r));
    // A then B: B's first request did not wait behind all of A's.
    expect(order).toEqual(['A', 'B']);
    expect(share.stats()).toMatchObject({ running: 2, waitingBy: { A: 2, B: 1 } });
    for (const s of await Promise.all(queued.slice(0, 1).concat(queued.slice(3, 4)))) (s as Slot).release();
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['A', 'B', 'A', 'B']);
  });

  it("keeps a tenant within its share while others' slots stay free", () => {
    const share = new FairShare({ total: 4, share: 1, queue: 0, maxWaitMs: 1000 });
    expect(isSlot(share.admit('A') as Admission)).toBe(true);
    expect(share.admit('A')).toEqual({ refused: 'queue_full', queuedMs: 0 });
    expect(isSlot(share.admit('B') as Admission)).toBe(true);
  });

  it('refuses a wait past its bound', async () => {
    const share = new FairShare({ total: 1, share: 1, queue: 5, maxWaitMs: 20 });
    expect(isSlot(share.admit('A') as Admission)).toBe(true);
    const waited = await share.admit('A');
    expect(waited).toMatchObject({ refused: 'wait_timeout' });
    expect(share.stats().waitingBy).toEqual({});
  });

  describe('adapting to the event loop', () => {
    /** A clock and a loop load the test sets; each read of the load is one tick's. */
    const pressure = () => {
      const p = { t: 0, load: 0, loopLoad: () => p.load, now: () => p.t };
      return p;
    };
    const tick = (p: ReturnType<typeof pressure>, load: number, share: FairShare, tenant: string) => {
      p.t += 100;
      p.load = load;
      share.seen(tenant);
    };

    it("halves the busiest tenant's share while the loop is busy and another tenant is active, and gives it back as the loop eases", async () => {
      const p = pressure();
      const share = new FairShare({ total: 8, share: 4, queue: 10, maxWaitMs: 60_000 }, p);
      share.seen('B'); // B's requests are cache hits: no slot, but active
      const a = [1, 2, 3, 4].map(() => share.admit('A') as Slot);
      expect(a.every(isSlot)).toBe(true);
      tick(p, 0.95, share, 'B');
      expect(share.shareOf('A')).toBe(2);
      expect(share.shareOf('B')).toBe(4); // runs nothing, keeps its share
      tick(p, 0.95, share, 'B');
      expect(share.shareOf('A')).toBe(1);
      tick(p, 0.95, share, 'B');
      expect(share.shareOf('A')).toBe(1); // never below one
      // A waits behind its own while the pool has room; B is let through at once.
      let admitted: Slot | null = null;
      void Promise.resolve(share.admit('A')).then((s) => (admitted = s as Slot));
      expect(isSlot(share.admit('B') as Admission)).toBe(true);
      a[0]!.release();
      a[1]!.release();
      a[2]!.release();
      await new Promise((r) => setImmediate(r));
      expect(admitted).toBeNull();
      expect(share.stats()).toMatchObject({ runningBy: { A: 1, B: 1 }, waitingBy: { A: 1 }, cutTo: { A: 1 } });
      // Loop busy but not saturated: the cut holds; with room, it grows back by one a tick.
      tick(p, 0.7, share, 'B');
      expect(share.shareOf('A')).toBe(1);
      tick(p, 0.3, share, 'B');
      expect(share.shareOf('A')).toBe(2);
      await new Promise((r) => setImmediate(r));
      expect(admitted).not.toBeNull();
      tick(p, 0.3, share, 'B');
      tick(p, 0.3, share, 'B');
      expect(share.shareOf('A')).toBe(4);
      expect(share.stats().cutTo).toEqual({});
    });

    it('gives a lone tenant the whole share back once the other goes idle', () => {
      const p = pressure();
      const share = new FairShare({ total: 8, share: 4, queue: 10, maxWaitMs: 60_000 }, p);
      share.seen('B');
      for (let i = 0; i < 4; i++) expect(isSlot(share.admit('A') as Admission)).toBe(true);
      tick(p, 1, share, 'A');
      expect(share.shareOf('A')).toBe(2);
      // B's last request is over a second old: A is alone, its share whole although the loop is busy.
      p.t += 1000;
      tick(p, 1, share, 'A');
      expect(share.shareOf('A')).toBe(4);
      tick(p, 1, share, 'A');
      expect(share.shareOf('A')).toBe(4);
    });

    it('keeps the share of tenants whose jobs leave the loop idle (waiting on slow feeds)', () => {
      const p = pressure();
      const share = new FairShare({ total: 8, share: 4, queue: 10, maxWaitMs: 60_000 }, p);
      share.seen('B');
      for (let i = 0; i < 4; i++) expect(isSlot(share.admit('A') as Admission)).toBe(true);
      for (let i = 0; i < 5; i++) tick(p, 0.2, share, 'B');
      expect(share.shareOf('A')).toBe(4);
      expect(share.admit('A')).not.toHaveProperty('release'); // its fifth waits: the share still bounds it
    });

    it('cuts the tenant whose jobs the loop spent itself on (the most finished in the tick), not one waiting on a slow feed', () => {
      const p = pressure();
      const share = new FairShare({ total: 16, share: 4, queue: 10, maxWaitMs: 60_000 }, p);
      // SLOW's four jobs wait on a slow feed; FAST runs two at a time, finishing six in the tick.
      for (let i = 0; i < 4; i++) expect(isSlot(share.admit('SLOW') as Admission)).toBe(true);
      for (let i = 0; i < 6; i++) (share.admit('FAST') as Slot).release();
      for (let i = 0; i < 2; i++) expect(isSlot(share.admit('FAST') as Admission)).toBe(true);
      tick(p, 0.95, share, 'SLOW');
      expect(share.stats().cutTo).toEqual({ FAST: 2 });
      // Nothing finished in the next tick: the one running the most is cut.
      tick(p, 0.95, share, 'SLOW');
      expect(share.stats().cutTo).toEqual({ FAST: 2, SLOW: 2 });
    });

    it('reads the load at most once a tick', () => {
      let reads = 0;
      const share = new FairShare({ total: 8, share: 4, queue: 10, maxWaitMs: 60_000 }, { loopLoad: () => (reads++, 1), now: () => 50 });
      for (let i = 0; i < 20; i++) share.seen(i % 2 ? 'A' : 'B');
      expect(reads).toBe(1);
    });

    it("counts another partner's cache hits as activity: the busy partner's next uncached request is refused at its cut share", () => {
      const run = (bravoActive: boolean) => {
        const p = pressure();
        const share = new FairShare({ total: 8, share: 4, queue: 0, maxWaitMs: 1000 }, p);
        const plugin = partnerQuotaPlugin({
          environment: 'production',
          counter: new MemoryQuotaCounter(),
          share,
          quotaOf: () => 'unlimited',
        });
        const state = (partner: string) =>
          ({ partnerCode: partner, environment: 'production', requestId: 'r', notes: {}, headers: {} }) as unknown as RequestState;
        const op = { introspectionOnly: false } as PreparedOperation;
        // An unlimited quota: onRequest answers at once (no promise).
        const uncached = () => {
          const s = state('ALPHA');
          void plugin.onRequest!(s);
          return plugin.onBeforeExecute!(s, op) as Reply | undefined;
        };
        // BRAVO's requests are cache hits: onRequest only, they never reach an execution slot.
        if (bravoActive) void plugin.onRequest!(state('BRAVO'));
        expect([uncached(), uncached()]).toEqual([undefined, undefined]);
        p.t += 100;
        p.load = 1;
        if (bravoActive) void plugin.onRequest!(state('BRAVO'));
        return uncached();
      };
      // Alone, ALPHA keeps its share of 4 however busy the loop.
      expect(run(false)).toBeUndefined();
      const refused = run(true)!;
      expect(refused.status).toBe(429);
      expect(refused.headers['Retry-After']).toBe('1');
      const error = JSON.parse(refused.body).errors[0];
      expect(error.extensions).toMatchObject({ code: 'RATE_LIMITED', reason: 'PARTNER_CONCURRENCY' });
      expect(error.message).toContain('at most 2 run at once now');
    });
  });
});
