// Logs and metrics (issue 7): one log line per request (server/observability/request-log.ts) and
// Prometheus metrics in a registry of this gateway's own (server/observability/metrics.ts), served
// with /healthz on the ops port (OPS_PORT, default 9464; 0 = a free port). Registered last, so its
// plugins see each request after every other plugin has had its say.
import { createGatewayMetrics } from '../observability/metrics.js';
import { startOpsServer, type OpsServer } from '../observability/ops-server.js';
import { requestLogPlugin, type RequestLogger } from '../observability/request-log.js';
import type { HttpPlugin } from '../http/plugin.js';
import type { CapabilitySetup } from './types.js';
import { isRedisUp, redisHealth } from '../stores/redis-connection.js';
import { requestLineLogger } from '../../lib/logger.js';

export const observabilityCapability: CapabilitySetup = async ({ config, logger, redis }) => {
  const metrics = createGatewayMetrics({ redisUp: redis ? () => isRedisUp(redis) : null });
  const requestLog = requestLogPlugin(requestLineLogger(logger) as unknown as RequestLogger);

  let ops: OpsServer | null = null;
  if (config.ports.ops !== null) {
    ops = await startOpsServer({
      host: config.host,
      port: config.ports.ops,
      metrics: () => metrics.render(),
      contentType: metrics.registry.contentType,
      health: () => ({ redis: redis ? redisHealth(redis).state : 'not configured' }),
    });
    logger.info({ url: `${ops.url}/metrics` }, 'ops endpoint listening (metrics, healthz)');
  }

  return {
    name: 'observability',
    plugins(environment): HttpPlugin[] {
      return [metrics.plugin(environment), requestLog];
    },
    async close() {
      await ops?.close();
      metrics.registry.clear();
    },
  };
};
