// The pieces of partner isolation on their own: quota values (bounds, hostile input), the token
// bucket's arithmetic (in memory, on a fake clock) and the fair share's turn order.
import { describe, expect, it } from 'vitest';
import { parseQuota, parseQuotas, QuotaError } from '../../stores/partner-quota.js';
import { MemoryQuotaCounter, RefusalMemo } from '../../cache/partner-quota.js';
import { FairShare, type Admission, type Slot } from '../../lib/fair-share.js';
import { policyHeader } from '../../server/plugins/partner-quota.js';

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
});
