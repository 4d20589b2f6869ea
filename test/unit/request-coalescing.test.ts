// The coalescing plugin's edges, driven hook by hook as the listener calls them.
import { describe, expect, it } from 'vitest';
import { requestCoalescingPlugin } from '../../server/plugins/request-coalescing.js';
import type { PreparedOperation } from '../../server/graphql/prepare.js';
import type { Reply, RequestState } from '../../server/http/plugin.js';

const op = {} as PreparedOperation;
const missing = (key = 'k'): RequestState => ({ cache: 'MISS', cacheKey: key, headers: {}, notes: {} }) as unknown as RequestState;
const reply = (body: string): Reply => ({ status: 200, headers: { 'content-type': 'application/json' }, body });
const executed = { hasErrors: false, upstreamMaxAge: null, stale: false };

describe('request coalescing plugin', () => {
  it('waiters get the leader answer as bytes; the flight ends with the execution', async () => {
    const p = requestCoalescingPlugin({ maxWaitMs: 5_000 });
    const leader = missing();
    expect(await p.onBeforeExecute!(leader, op)).toBeUndefined();
    const waiting = [missing(), missing()].map((s) => ({ s, r: p.onBeforeExecute!(s, op) as Promise<Reply | void> }));
    void p.onExecuted!(leader, op, reply('{"data":1}'), executed);
    for (const { s, r } of waiting) {
      const got = (await r) as Reply;
      expect(got.bytes!.toString()).toBe('{"data":1}');
      expect(s.cache).toBe('COALESCED');
    }
    // Later requests lead a new execution.
    expect(await p.onBeforeExecute!(missing(), op)).toBeUndefined();
  });

  it('a waiter executes on its own after the wait bound', async () => {
    const p = requestCoalescingPlugin({ maxWaitMs: 30 });
    await p.onBeforeExecute!(missing(), op);
    const w = missing();
    expect(await p.onBeforeExecute!(w, op)).toBeUndefined();
    expect(w.cache).toBe('MISS');
  });

  it('a leader that failed without an answer (internal error) releases its waiters to execute', async () => {
    const p = requestCoalescingPlugin({ maxWaitMs: 5_000 });
    const leader = missing();
    await p.onBeforeExecute!(leader, op);
    const w = missing();
    const r = p.onBeforeExecute!(w, op) as Promise<Reply | void>;
    p.onResponse!(leader, { status: 500, headers: {}, body: 'internal' });
    expect(await r).toBeUndefined();
    expect(w.cache).toBe('MISS');
  });

  it('only misses with a cache key take part (hits, bypasses: personal data)', async () => {
    const p = requestCoalescingPlugin({ maxWaitMs: 5_000 });
    const bypass = { ...missing(), cache: 'BYPASS', cacheKey: undefined } as unknown as RequestState;
    expect(await p.onBeforeExecute!(bypass, op)).toBeUndefined();
    expect(await p.onBeforeExecute!({ ...bypass } as RequestState, op)).toBeUndefined();
    expect(bypass.cache).toBe('BYPASS');
  });
});

describe('request coalescing, traced', () => {
  it("reports a waiter's wait as a step of its trace: coalesced, or gave_up after the bound", async () => {
    const steps: [string, Record<string, unknown>][] = [];
    const traced = (): RequestState => {
      const s = missing();
      s.trace = { step: (name: string, _at: number, attributes: Record<string, unknown>) => steps.push([name, attributes]) } as never;
      return s;
    };
    const p = requestCoalescingPlugin({ maxWaitMs: 5_000 });
    const leader = traced();
    await p.onBeforeExecute!(leader, op);
    const waiter = p.onBeforeExecute!(traced(), op) as Promise<Reply | void>;
    void p.onExecuted!(leader, op, reply('{"data":1}'), executed);
    await waiter;
    const short = requestCoalescingPlugin({ maxWaitMs: 20 });
    await short.onBeforeExecute!(traced(), op);
    await short.onBeforeExecute!(traced(), op);
    expect(steps).toEqual([
      ['gateway.cache.coalesce', { 'gateway.cache.result': 'coalesced' }],
      ['gateway.cache.coalesce', { 'gateway.cache.result': 'gave_up' }],
    ]);
  });
});
