// Request coalescing: requests that miss the response cache under the same cache key while an
// execution for that key is running wait for it and answer with its bytes, instead of parsing,
// executing, pricing and serializing the same answer again (a popular entry expiring under
// traffic costs one execution, not one per waiting request).
//
// Each waiter keeps its own request id, headers, allowance count, log line and replay record (it
// goes through every other plugin as usual); `x-cache: COALESCED` says what happened. The cache
// key already separates environments, schema variants and purge epochs, and operations with
// personal data are never cacheable (BYPASS), so they never get here and are never shared across
// partners. An answer, errors included, is handed only to the requests already waiting: the flight
// ends when its execution does, and the next request starts a new one. A waiter gives up after
// `maxWaitMs` (the longest the execution may take) or when the execution failed without an answer
// (an internal error), and executes on its own.
import type { PreparedOperation } from '../graphql/prepare.js';
import type { HttpPlugin, Reply, RequestState } from '../http/plugin.js';

interface CoalescingOptions {
  /** Longest wait for the leading execution (its own deadline), ms. */
  maxWaitMs: number;
}

/** The answer a flight hands to its waiters: encoded once, shared by all of them. */
interface SharedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  bytes: Buffer;
}

interface Flight {
  done: Promise<SharedAnswer | null>;
  settle(answer: SharedAnswer | null): void;
  waiters: number;
}

function newFlight(): Flight {
  let settle!: (a: SharedAnswer | null) => void;
  const done = new Promise<SharedAnswer | null>((resolve) => (settle = resolve));
  return { done, settle, waiters: 0 };
}

function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => (timer = setTimeout(resolve, ms, fallback)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export function requestCoalescingPlugin(opts: CoalescingOptions): HttpPlugin {
  const flights = new Map<string, Flight>();
  /** The flight a request leads, until its answer is handed over. */
  const leading = new WeakMap<RequestState, { key: string; flight: Flight }>();

  const end = (state: RequestState, reply: Reply | null) => {
    const lead = leading.get(state);
    if (!lead) return;
    leading.delete(state);
    // Only this flight: a timed-out waiter may have started a newer one under the same key.
    if (flights.get(lead.key) === lead.flight) flights.delete(lead.key);
    const shared =
      reply && lead.flight.waiters > 0
        ? { status: reply.status, headers: reply.headers, body: reply.body, bytes: reply.bytes ?? Buffer.from(reply.body) }
        : null;
    lead.flight.settle(shared);
  };

  return {
    name: 'request-coalescing',
    async onBeforeExecute(state: RequestState, _op: PreparedOperation): Promise<Reply | void> {
      const key = state.cacheKey;
      if (state.cache !== 'MISS' || key === undefined) return undefined;
      const flight = flights.get(key);
      if (!flight) {
        const mine = newFlight();
        flights.set(key, mine);
        leading.set(state, { key, flight: mine });
        return undefined;
      }
      flight.waiters++;
      const started = state.trace ? performance.now() : 0;
      const answer = await within(flight.done, opts.maxWaitMs, null);
      // The wait for the identical request's execution (gave_up: it timed out or failed; executed on its own).
      state.trace?.step('gateway.cache.coalesce', started, { 'gateway.cache.result': answer ? 'coalesced' : 'gave_up' });
      if (!answer) return undefined;
      state.cache = 'COALESCED';
      return { status: answer.status, headers: answer.headers, body: answer.body, bytes: answer.bytes };
    },

    onExecuted(state: RequestState, _op: PreparedOperation, reply: Reply): void {
      end(state, reply);
    },

    // The execution threw (the leader answers 500 with its own request id): waiters run their own.
    onResponse(state: RequestState): void {
      end(state, null);
    },
  };
}
