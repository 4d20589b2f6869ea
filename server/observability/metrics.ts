// Prometheus metrics of one gateway, in a Registry of its own (never prom-client's global one, so
// several gateways in one process, as in the tests, do not clash).
//
// Per request (an onResponse plugin, so a gateway's own traffic only):
//   gateway_requests_total{environment,status}
//   gateway_request_duration_seconds{environment}            histogram (ms resolution)
//   gateway_cache_hits_total{environment} / gateway_cache_misses_total{environment}
//   gateway_cache_hit_ratio{environment}                     hits / (hits + misses) since start
//   gateway_cache_coalesced_total{environment}               misses answered by an identical request's execution
//   gateway_upstream_request_duration_seconds{feed}          histogram, one sample per upstream call
//   gateway_upstream_errors_total{feed,kind}                 kind: timeout, network, status, ...
//   gateway_playground_calls_total{result}                   counted | refused | free
//   gateway_partner_requests_total, gateway_partner_queue_seconds   per partner (quota-metrics.ts, its own plugin)
// Per listener defence event (an onDefence plugin hook; server/http/defences.ts):
//   gateway_connections_refused_total{environment,reason}    per_ip_cap | silent_shed | h2_rapid_reset |
//                                                            headers_too_large | malformed | request_timeout
// Read when scraped:
//   gateway_upstream_circuit_breaker_state{feed}             0 closed, 1 half-open, 2 open
//   gateway_upstream_{calls,attempts,dedup_hits,retries,stale_served}_total{feed}
//   gateway_feed_truncated_total{feed}                       feed calls whose pages were cut off (maxPages, timeout)
//   gateway_feed_records_dropped_total{feed,field}           records dropped for a value outside its possible range
//   gateway_feed_records_total{feed,outcome}                  records served / dropped (any reason)
//   gateway_response_cache_events_total{event}               lru_hits, redis_hits, stores, evictions, read_errors, ...
//   gateway_redis_up                                         1 ready, 0 otherwise (absent without REDIS_URL)
//   gateway_replay_records_total{outcome}                    enqueued, written, dropped, write_errors, retries
//   gateway_unknown_enum_values_total{type}                  feed values a public enum lacks (answered OTHER)
//   + prom-client's default process metrics (process_*, nodejs_*)
// The scrape-time upstream, cache-store and replay figures are process-wide counters kept by those
// layers (upstreamStats, responseCacheStats, replayStats): one gateway per process in production.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { tallyCounter, tallyHistogram, type TallyHistogramSeries, type TallySeries } from './tally.js';
import type { DefenceReason, EnvironmentName, HttpPlugin, Reply, RequestState } from '../http/plugin.js';
import { DEFENCE_REASONS } from '../http/defences.js';
import { upstreamStats, type FeedStats } from '../../sources/upstream/stats.js';
import { feedEventCounts } from '../../transforms/feed-events.js';
import { responseCacheStats } from '../../cache/response-cache.js';
import { replayStats } from '../../stores/replay-store.js';
import { unknownEnumStats } from '../../resolvers/enum-values.js';
import { pathOf } from '../http/plugin.js';

interface MetricsOptions {
  /** `status` of an ioredis client; null when the gateway runs without Redis. */
  /** Redis connected and answering (cache/redis-connection.ts isRedisUp); null without Redis. */
  redisUp: (() => boolean) | null;
  defaultMetrics?: boolean;
}

const BREAKER_VALUE: Record<string, number> = { closed: 0, halfOpen: 1, open: 2 };
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const UPSTREAM_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const REFUSED = new Set(['exhausted', 'store_unavailable']);

interface GatewayMetrics {
  registry: Registry;
  plugin(environment: EnvironmentName): HttpPlugin;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
}

export function createGatewayMetrics(opts: MetricsOptions): GatewayMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });

  // Series counted per request or per upstream call are tallies (observability/tally.ts).
  const counter = <L extends string>(name: string, help: string, labelNames: L[]) => tallyCounter<L>(registry, name, help, labelNames);
  const histogram = <L extends string>(name: string, help: string, labelNames: L[], buckets: number[]) =>
    tallyHistogram<L>(registry, name, help, labelNames, buckets);
  const requests = counter('gateway_requests_total', 'Requests answered, by environment and HTTP status.', ['environment', 'status']);
  const duration = histogram(
    'gateway_request_duration_seconds',
    'Time from request received to answer sent (ms resolution), by environment.',
    ['environment'],
    REQUEST_BUCKETS,
  );
  const hits = counter('gateway_cache_hits_total', 'Executable operations answered from the response cache.', ['environment']);
  const misses = counter(
    'gateway_cache_misses_total',
    'Cacheable operations not found in the response cache (answered from the feeds, STALE included).',
    ['environment'],
  );
  const coalesced = counter(
    'gateway_cache_coalesced_total',
    'Cache misses answered with the execution of an identical concurrent request (request coalescing), by environment.',
    ['environment'],
  );
  const hitCounts = new Map<string, { hits: number; misses: number }>();
  new Gauge({
    name: 'gateway_cache_hit_ratio',
    help: 'Response cache hits / (hits + misses) since start, by environment.',
    labelNames: ['environment'],
    // Several cluster workers: the average of theirs (each serves about the same share).
    aggregator: 'average',
    registers: [registry],
    collect() {
      this.reset();
      for (const [environment, c] of hitCounts) if (c.hits + c.misses > 0) this.set({ environment }, c.hits / (c.hits + c.misses));
    },
  });
  const upstreamDuration = histogram(
    'gateway_upstream_request_duration_seconds',
    'Upstream feed calls as the resolver saw them (retries included), by feed.',
    ['feed'],
    UPSTREAM_BUCKETS,
  );
  const upstreamErrors = counter(
    'gateway_upstream_errors_total',
    'Failed upstream feed calls (after retries), by feed and kind (timeout, network, status, malformed, too_large, circuit_open, aborted).',
    ['feed', 'kind'],
  );
  const playground = counter(
    'gateway_playground_calls_total',
    'Playground /graphql requests: counted against the allowance, refused (used up or store down), free (introspection, page loads, errors before validation).',
    ['result'],
  );
  const refusedConnections = refusedConnectionsCounter(registry);
  const playgroundResult = {
    counted: playground.series({ result: 'counted' }),
    refused: playground.series({ result: 'refused' }),
    free: playground.series({ result: 'free' }),
  };

  new Gauge({
    name: 'gateway_upstream_circuit_breaker_state',
    help: "Circuit breaker per feed: 0 closed, 1 half-open, 2 open (the worst over the feed's origins; process-wide).",
    labelNames: ['feed'],
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      for (const [feed, s] of Object.entries(upstreamStats.snapshot())) this.set({ feed }, BREAKER_VALUE[s.breaker] ?? 0);
    },
  });
  registerProcessWideCounters(registry);
  const redisUp = opts.redisUp;
  if (redisUp) {
    new Gauge({
      name: 'gateway_redis_up',
      help: 'Redis: 1 when every part answers (a cluster: every master and cluster_state ok), 0 otherwise (/readyz names what is degraded).',
      registers: [registry],
      aggregator: 'min',
      collect() {
        this.set(redisUp() ? 1 : 0);
      },
    });
  }

  // Series found once per label set, each exported at 0 from then on.
  const feedChildren = new Map<string, TallyHistogramSeries>();
  const feedChild = (feed: string) => {
    let c = feedChildren.get(feed);
    if (!c) feedChildren.set(feed, (c = upstreamDuration.series({ feed })));
    return c;
  };
  const errorChildren = new Map<string, TallySeries>();
  const errorChild = (feed: string, kind: string) => {
    const k = `${feed} ${kind}`;
    let c = errorChildren.get(k);
    if (!c) errorChildren.set(k, (c = upstreamErrors.series({ feed, kind })));
    return c;
  };

  return {
    registry,
    render: () => registry.metrics(),
    plugin(environment) {
      const statusChildren = new Map<number, TallySeries>();
      const requestChild = (status: number) => {
        let c = statusChildren.get(status);
        if (!c) statusChildren.set(status, (c = requests.series({ environment, status: String(status) })));
        return c;
      };
      const durationChild = duration.series({ environment });
      const hitChild = hits.series({ environment });
      const missChild = misses.series({ environment });
      const coalescedChild = coalesced.series({ environment });
      const refusedChild = refusedConnections(environment);
      let counts = hitCounts.get(environment);
      if (!counts) hitCounts.set(environment, (counts = { hits: 0, misses: 0 }));
      const hc = counts;
      return {
        name: 'metrics',
        onDefence(reason: DefenceReason): void {
          refusedChild[reason].inc();
        },
        onResponse(state: RequestState, reply: Reply): void {
          requestChild(reply.status).inc();
          durationChild.observe(Math.max(0, Date.now() - state.receivedAt) / 1000);
          const op = state.operation;
          if (op && !op.introspectionOnly) {
            if (state.cache === 'HIT') {
              hitChild.inc();
              hc.hits++;
            } else if (state.cache === 'MISS' || state.cache === 'STALE') {
              missChild.inc();
              hc.misses++;
            } else if (state.cache === 'COALESCED') coalescedChild.inc();
          }
          for (const c of state.upstreamCalls) {
            feedChild(c.feed).observe(c.durationMs / 1000);
            if (c.error) errorChild(c.feed, errorKind(c.error)).inc();
          }
          if (environment === 'playground' && state.req.method !== 'OPTIONS' && pathOf(state.req.url) === '/graphql') {
            const a = state.notes.allowance as { counted?: boolean; reason?: string } | undefined;
            (a?.counted
              ? playgroundResult.counted
              : a?.reason && REFUSED.has(a.reason)
                ? playgroundResult.refused
                : playgroundResult.free
            ).inc();
          }
        },
      };
    },
  };
}

/**
 * gateway_connections_refused_total: a listener defence's events, by environment and reason. Each
 * environment's series of every reason is exported at 0 from its listener's start, so a rate or an
 * alert sees the first event.
 */
function refusedConnectionsCounter(registry: Registry): (environment: EnvironmentName) => Record<DefenceReason, TallySeries> {
  const counter = tallyCounter<'environment' | 'reason'>(
    registry,
    'gateway_connections_refused_total',
    'Sockets, HTTP/2 connections and requests refused or closed by a listener defence before reaching the gateway (not in ' +
      'gateway_requests_total), by environment and reason: per_ip_cap (socket over the per-address cap), silent_shed (socket ' +
      "that sent no request, closed at the listener's cap), h2_rapid_reset (HTTP/2 connection closed for too many stream resets), " +
      'headers_too_large (431), malformed (400), request_timeout (408).',
    ['environment', 'reason'],
  );
  return (environment) =>
    Object.fromEntries(DEFENCE_REASONS.map((reason) => [reason, counter.series({ environment, reason })])) as Record<
      DefenceReason,
      TallySeries
    >;
}

/** Counters read at scrape time from process-wide tallies: upstream calls, feed events, the response cache, replay, enums. */
function registerProcessWideCounters(registry: Registry): void {
  const fromUpstreamStats = (name: string, help: string, pick: (s: FeedStats) => number) =>
    new Counter({
      name,
      help,
      labelNames: ['feed'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [feed, s] of Object.entries(upstreamStats.snapshot())) this.inc({ feed }, pick(s));
      },
    });
  fromUpstreamStats('gateway_upstream_calls_total', 'Logical upstream calls made by resolvers (process-wide), by feed.', (s) => s.calls);
  fromUpstreamStats(
    'gateway_upstream_attempts_total',
    'HTTP requests actually sent upstream, retries included (process-wide), by feed.',
    (s) => s.attempts,
  );
  fromUpstreamStats(
    'gateway_upstream_dedup_hits_total',
    'Calls answered by joining an identical in-flight request (process-wide), by feed.',
    (s) => s.dedupHits,
  );
  fromUpstreamStats('gateway_upstream_retries_total', 'Upstream attempts after the first (process-wide), by feed.', (s) => s.retries);
  fromUpstreamStats(
    'gateway_upstream_stale_served_total',
    'Failed upstream calls answered from a stale copy (process-wide), by feed.',
    (s) => s.staleServed,
  );
  new Counter({
    name: 'gateway_feed_truncated_total',
    help: "Feed calls whose pages were cut off at maxPages or the feed's timeout (process-wide), by feed.",
    labelNames: ['feed'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [feed, c] of Object.entries(feedEventCounts())) this.inc({ feed }, c.truncated);
    },
  });
  new Counter({
    name: 'gateway_feed_records_dropped_total',
    help: 'Feed records dropped, never served, for a value outside its possible range (process-wide), by feed and canonical field.',
    labelNames: ['feed', 'field'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [feed, c] of Object.entries(feedEventCounts()))
        for (const [field, n] of Object.entries(c.implausible)) this.inc({ feed, field }, n);
    },
  });
  new Counter({
    name: 'gateway_offers_noncompliant_total',
    help: 'Offers dropped, never served, for breaking a market rule of their state (domain/market-rules.ts; process-wide), by feed and rule.',
    labelNames: ['feed', 'rule'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [feed, c] of Object.entries(feedEventCounts()))
        for (const [rule, n] of Object.entries(c.noncompliant)) this.inc({ feed, rule }, n);
    },
  });
  new Counter({
    name: 'gateway_feed_records_total',
    help: 'Feed records by outcome (process-wide): served, or dropped for any reason (did not map, implausible value), by feed.',
    labelNames: ['feed', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [feed, c] of Object.entries(feedEventCounts())) {
        this.inc({ feed, outcome: 'served' }, c.served);
        this.inc({ feed, outcome: 'dropped' }, c.dropped);
      }
    },
  });
  new Counter({
    name: 'gateway_response_cache_events_total',
    help: 'Response cache store events (process-wide): lru_hits, redis_hits, stores, not_stored, bypasses, evictions, read_errors, write_errors, purges.',
    labelNames: ['event'],
    registers: [registry],
    collect() {
      this.reset();
      const s = responseCacheStats;
      const events: Record<string, number> = {
        lru_hits: s.lruHits,
        redis_hits: s.redisHits,
        stores: s.stores,
        not_stored: s.notStored,
        bypasses: s.bypasses,
        evictions: s.evictions,
        read_errors: s.cacheReadErrors,
        write_errors: s.cacheWriteErrors,
        purges: s.purges,
      };
      for (const [event, v] of Object.entries(events)) this.inc({ event }, v);
    },
  });
  new Counter({
    name: 'gateway_replay_records_total',
    help:
      'Replay log records (process-wide), by outcome: enqueued, written, dropped (queue full, or store down after retries), write_errors ' +
      '(failed batch writes), retries (batch writes tried again).',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      const r = replayStats;
      this.inc({ outcome: 'enqueued' }, r.enqueued);
      this.inc({ outcome: 'written' }, r.written);
      this.inc({ outcome: 'dropped' }, r.dropped);
      this.inc({ outcome: 'write_errors' }, r.writeErrors);
      this.inc({ outcome: 'retries' }, r.retries);
    },
  });
  new Counter({
    name: 'gateway_unknown_enum_values_total',
    help: 'Feed values a public enum does not know yet, answered as OTHER (process-wide), by enum type.',
    labelNames: ['type'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [type, n] of unknownEnumStats) this.inc({ type }, n);
    },
  });
}

/** "status 503", "timeout (served a 3 s old copy)" -> "status", "timeout". */
function errorKind(error: string): string {
  const m = /^[a-z_]+/i.exec(error);
  return m ? m[0] : 'other';
}
