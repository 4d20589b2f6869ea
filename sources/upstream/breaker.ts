// One circuit breaker (opossum) per feed and upstream origin. Closed: calls pass and outcomes are
// counted in a rolling window. When more than `errorThresholdPercentage` of at least
// `volumeThreshold` calls in the window failed, it opens: calls are refused at once with
// UpstreamError('circuit_open') (no socket, no timer: microseconds). After `resetTimeoutMs` it is
// half-open: the next call is let through as a trial (others are still refused); success closes
// it, failure opens it again.
//
// Keyed by feed *and* origin, so certification pointing a feed at a partner sandbox cannot open the
// production breaker of the same feed. What counts as a failure is decided by the caller: the
// action rejects (timeout, network, 5xx/429, malformed payload) or resolves (2xx, other 4xx).
import CircuitBreaker from 'opossum';
import { UpstreamError } from './errors.js';
import { upstreamStats, type BreakerState } from './stats.js';
import type { UpstreamSettings } from './upstream-config.js';

type Task<T> = () => Promise<T>;

export interface BreakerLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

interface FeedBreakers {
  /** Runs `task` through the feed's breaker; rejects with UpstreamError('circuit_open') when open. */
  run<T>(feed: string, origin: string, task: Task<T>): Promise<T>;
  state(feed: string, origin: string): BreakerState;
  shutdown(): void;
}

let instances = 0;

export function createFeedBreakers(settings: UpstreamSettings['breaker'], logger?: BreakerLogger): FeedBreakers {
  // Distinguishes the breakers of two gateways in one process (tests) in the shared stats.
  const instance = ++instances;
  const breakers = new Map<string, { feed: string; statsKey: string; breaker: CircuitBreaker<[Task<unknown>], unknown> }>();

  function get(feed: string, origin: string) {
    const key = `${feed} ${origin}`;
    let entry = breakers.get(key);
    if (!entry) {
      const breaker = new CircuitBreaker<[Task<unknown>], unknown>((task) => task(), {
        name: key,
        timeout: false, // the fetch layer enforces the feed budget itself
        errorThresholdPercentage: settings.errorThresholdPercentage,
        volumeThreshold: settings.volumeThreshold,
        rollingCountTimeout: settings.rollingWindowMs,
        rollingCountBuckets: 10,
        resetTimeout: settings.resetTimeoutMs,
        // A caller cancelling is not the feed's fault.
        errorFilter: (err: unknown) => err instanceof UpstreamError && err.kind === 'aborted',
      });
      const statsKey = `${instance} ${key}`;
      const set = (state: BreakerState) => () => {
        upstreamStats.setBreaker(feed, statsKey, state);
        if (state === 'open')
          logger?.warn({ feed, resetMs: settings.resetTimeoutMs }, 'upstream circuit opened: refusing calls to the feed');
        else if (state === 'closed') logger?.info({ feed }, 'upstream circuit closed: feed answering again');
      };
      breaker.on('open', set('open'));
      breaker.on('halfOpen', set('halfOpen'));
      breaker.on('close', set('closed'));
      upstreamStats.setBreaker(feed, statsKey, 'closed');
      entry = { feed, breaker, statsKey };
      breakers.set(key, entry);
    }
    return entry.breaker;
  }

  return {
    async run<T>(feed: string, origin: string, task: Task<T>): Promise<T> {
      if (!settings.enabled) return task();
      try {
        return (await get(feed, origin).fire(task as Task<unknown>)) as T;
      } catch (err) {
        if ((err as { code?: string })?.code === 'EOPENBREAKER') throw new UpstreamError('circuit_open');
        throw err;
      }
    },
    state(feed, origin) {
      const b = breakers.get(`${feed} ${origin}`)?.breaker;
      if (!b) return 'closed';
      return b.opened ? 'open' : b.halfOpen ? 'halfOpen' : 'closed';
    },
    shutdown() {
      for (const { feed, breaker, statsKey } of breakers.values()) {
        breaker.shutdown();
        upstreamStats.setBreaker(feed, statsKey, null);
      }
      breakers.clear();
    },
  };
}
