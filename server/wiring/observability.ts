// Logs and metrics: one log line per request (server/observability/request-log.ts) and
// Prometheus metrics in a registry of this gateway's own (server/observability/metrics.ts), served
// with /healthz on the ops port (OPS_PORT, default 9464; 0 = a free port). Registered last, so its
// plugins see each request after every other plugin has had its say.
import { createGatewayMetrics } from '../observability/metrics.js';
import { shareWithPrimary } from '../observability/cluster-metrics.js';
import { startOpsServer, type OpsServer } from '../observability/ops-server.js';
import { partnerQuotaMetrics } from '../observability/quota-metrics.js';
import { requestLogPlugin } from '../observability/request-log.js';
import type { HttpPlugin } from '../http/plugin.js';
import type { CapabilitySetup } from './types.js';
import { isRedisUp, redisHealth } from '../../cache/redis-connection.js';
import { requestLineWriter } from '../../lib/logger.js';
import { feedHealth } from '../../transforms/feed-events.js';
import { onUnknownEnumValue } from '../../resolvers/enum-values.js';

/** A new feed value is logged once per enum and value per hour: it repeats on every answer. */
const UNKNOWN_ENUM_LOG_MS = 60 * 60 * 1000;

export const observabilityCapability: CapabilitySetup = async ({ config, logger, redis }) => {
  const metrics = createGatewayMetrics({ redisUp: redis ? () => isRedisUp(redis) : null });
  // A cluster worker (WORKERS > 1) has no ops port: the primary's sums every worker's registry.
  shareWithPrimary(metrics.registry);
  const quotaMetrics = partnerQuotaMetrics(metrics.registry);
  const requestLog = requestLogPlugin(requestLineWriter(logger));
  const lastLogged = new Map<string, number>();
  const stopEnumLog = onUnknownEnumValue((type, value) => {
    const key = `${type} ${value}`;
    const now = Date.now();
    if (now - (lastLogged.get(key) ?? -Infinity) < UNKNOWN_ENUM_LOG_MS) return;
    if (lastLogged.size >= 1000) lastLogged.clear();
    lastLogged.set(key, now);
    logger.warn(
      { enum: type, value },
      'a feed sent a value the public enum does not know; answered OTHER (add it to schema/public.graphql)',
    );
  });

  let ops: OpsServer | null = null;
  if (config.ports.ops !== null) {
    ops = await startOpsServer({
      host: config.opsHost,
      port: config.ports.ops,
      portVariable: config.ports.opsVariable,
      metrics: () => metrics.render(),
      contentType: metrics.registry.contentType,
      health: () => ({ redis: redis ? redisHealth(redis).state : 'not configured' }),
    });
    logger.info({ url: `${ops.url}/metrics` }, 'ops endpoint listening (metrics, healthz)');
  }

  return {
    name: 'observability',
    // A feed whose last answer lost every record to an implausible value is misconfigured (a unit
    // mistake): not ready. Some records dropped is reported, still ready.
    health() {
      const h = feedHealth();
      return { ok: h.ok, details: Object.keys(h.feeds).length ? { feeds: h.feeds } : {} };
    },
    plugins(environment): HttpPlugin[] {
      return environment === 'playground'
        ? [metrics.plugin(environment), requestLog]
        : [metrics.plugin(environment), quotaMetrics(environment), requestLog];
    },
    async close() {
      stopEnumLog();
      await ops?.close();
      metrics.registry.clear();
    },
  };
};
