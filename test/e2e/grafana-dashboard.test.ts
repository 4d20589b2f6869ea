// The operators' Grafana dashboard (docs/grafana/gateway.json) queries only metrics that a real
// gateway (with Redis) exports on /metrics.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';

const dashboard = JSON.parse(fs.readFileSync(new URL('../../docs/grafana/gateway.json', import.meta.url), 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};
const queried = new Set(
  dashboard.panels.flatMap((p) =>
    p.targets.flatMap((t) => [...t.expr.matchAll(/\b(gateway_[a-z_]+?)(?:_bucket|_sum|_count)?\b(?![a-z_])/g)].map((m) => m[1]!)),
  ),
);

let redis: TestRedis;
let t: TestGateway;
let exported: Set<string>;

beforeAll(async () => {
  redis = await startTestRedis();
  const ops = await freePort();
  t = await startTestGateway({ REDIS_URL: redis.url, OPS_PORT: String(ops) });
  await t.post('production', '{ utilities(zipCode: "75001") { id } }');
  const text = await (await fetch(`http://127.0.0.1:${ops}/metrics`)).text();
  exported = new Set([...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1]!));
});

afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

describe('Grafana dashboard', () => {
  it('queries only metrics the gateway exports', () => {
    expect(queried.size).toBeGreaterThan(10);
    const missing = [...queried].filter((name) => !exported.has(name));
    expect(missing).toEqual([]);
  });

  it('covers traffic, latency, cache, coalescing, upstream, breakers, feed data quality, playground, rate limits, quotas, connections and Redis', () => {
    for (const name of [
      'gateway_requests_total',
      'gateway_request_duration_seconds',
      'gateway_cache_hits_total',
      'gateway_upstream_request_duration_seconds',
      'gateway_upstream_errors_total',
      'gateway_upstream_circuit_breaker_state',
      'gateway_playground_calls_total',
      'gateway_redis_up',
      'gateway_cache_coalesced_total',
      'gateway_feed_truncated_total',
      'gateway_feed_records_dropped_total',
      'gateway_unknown_enum_values_total',
      'gateway_connections_refused_total',
      'gateway_partner_requests_total',
      'gateway_partner_queue_seconds',
    ]) {
      expect(queried).toContain(name);
    }
    expect(dashboard.panels.some((p) => p.targets.some((x) => x.expr.includes('status="429"')))).toBe(true);
  });
});
