// Counters of the upstream fetch layer, per feed, for metrics (read by the observability plugin).
//
// `upstreamStats` is process-wide: every createUpstreamFetch() in the process adds to it (one per
// gateway; tests may run two). Counters only grow; read them with `snapshot()` (a deep copy) and
// export as Prometheus counters/gauges. Feed names come from .meshrc.yaml (source names), plus
// 'unknown' for calls made outside a feed scope, so the label set is bounded.
//
// Per feed:
//   calls          logical calls made by resolvers (one per fetch() from Mesh, including calls that
//                  joined an identical in-flight call and calls refused by the open breaker)
//   attempts       HTTP requests actually sent upstream (first attempts + retries)
//   retries        attempts after the first (network error, timeout, 502/503/504 on GET/HEAD)
//   errors         logical calls that failed (whether or not a stale copy then answered them)
//   errorsByKind   the same, by UpstreamErrorKind: timeout, network, status, malformed,
//                  too_large, circuit_open, aborted
//   shortCircuits  calls refused at once because the breaker was open (also in errors)
//   dedupHits      calls answered by sharing another caller's identical in-flight request
//   staleServed    failed calls answered from the stale-if-error copy (partner sees extensions.stale)
//   breaker        current breaker state: 'closed' | 'open' | 'halfOpen' (the worst over the
//                  feed's origins when one feed name points at several upstreams)
//   breakerOpens   times the breaker opened
//   latencyMsSum / latencyCount   wall time of logical calls as the resolver saw it (includes
//                  retries and backoff; a short-circuit costs microseconds), for an average
import type { UpstreamErrorKind } from './errors.js';

export type BreakerState = 'closed' | 'open' | 'halfOpen';

export interface FeedStats {
  calls: number;
  attempts: number;
  retries: number;
  errors: number;
  errorsByKind: Partial<Record<UpstreamErrorKind, number>>;
  shortCircuits: number;
  dedupHits: number;
  staleServed: number;
  breaker: BreakerState;
  breakerOpens: number;
  latencyMsSum: number;
  latencyCount: number;
}

const RANK: Record<BreakerState, number> = { closed: 0, halfOpen: 1, open: 2 };

class UpstreamStats {
  private readonly feeds = new Map<string, FeedStats>();
  /** Breaker state by feed, then by breaker key (feed + origin). */
  private readonly breakers = new Map<string, Map<string, BreakerState>>();

  feed(name: string): FeedStats {
    let s = this.feeds.get(name);
    if (!s) {
      s = {
        calls: 0,
        attempts: 0,
        retries: 0,
        errors: 0,
        errorsByKind: {},
        shortCircuits: 0,
        dedupHits: 0,
        staleServed: 0,
        breaker: 'closed',
        breakerOpens: 0,
        latencyMsSum: 0,
        latencyCount: 0,
      };
      this.feeds.set(name, s);
    }
    return s;
  }

  recordError(feed: string, kind: UpstreamErrorKind): void {
    const s = this.feed(feed);
    s.errors++;
    s.errorsByKind[kind] = (s.errorsByKind[kind] ?? 0) + 1;
    if (kind === 'circuit_open') s.shortCircuits++;
  }

  recordLatency(feed: string, ms: number): void {
    const s = this.feed(feed);
    s.latencyMsSum += ms;
    s.latencyCount++;
  }

  setBreaker(feed: string, breakerKey: string, state: BreakerState | null): void {
    let byKey = this.breakers.get(feed);
    if (!byKey) this.breakers.set(feed, (byKey = new Map()));
    if (state === null) byKey.delete(breakerKey);
    else {
      if (state === 'open' && byKey.get(breakerKey) !== 'open') this.feed(feed).breakerOpens++;
      byKey.set(breakerKey, state);
    }
    let worst: BreakerState = 'closed';
    for (const s of byKey.values()) if (RANK[s] > RANK[worst]) worst = s;
    this.feed(feed).breaker = worst;
  }

  /** A deep copy, keyed by feed name. */
  snapshot(): Record<string, FeedStats> {
    const out: Record<string, FeedStats> = {};
    for (const [name, s] of this.feeds) out[name] = { ...s, errorsByKind: { ...s.errorsByKind } };
    return out;
  }

  /** Tests only. */
  reset(): void {
    this.feeds.clear();
    this.breakers.clear();
  }
}

export const upstreamStats = new UpstreamStats();
