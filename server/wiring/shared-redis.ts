// The process's Redis connection (REDIS_URL) and its instance bus (purges and key changes with
// acknowledgements), or neither when no Redis is configured: every store is then embedded.
import { connectRedis, safeTarget, watchRedis, type RedisClient } from '../../cache/redis-connection.js';
import { InstanceBus } from '../../cache/instance-registry.js';
import type { Logger } from '../../lib/logger.js';
import { storeErrorLog } from './store-errors.js';
import type { Closer } from '../../lib/closers.js';

/** Connects; each thing opened pushes its closer onto `closers` (run in reverse: the bus before the connection). */
export async function openSharedRedis(
  redisUrl: string | null,
  logger: Logger,
  closers: Closer[],
): Promise<{ redis: RedisClient | null; bus: InstanceBus | null }> {
  if (!redisUrl) return { redis: null, bus: null };
  const redis = await connectRedis(redisUrl);
  const unwatch = watchRedis(redis);
  closers.push(() => {
    unwatch();
    return redis.quit().then(
      () => undefined,
      () => redis.disconnect(),
    );
  });
  logger.info({ redis: safeTarget(redisUrl) }, 'store: Redis');
  const bus = await InstanceBus.open(redis, storeErrorLog(logger, 'purges and key changes reach this instance by polling'));
  // Closed after the capabilities (closers run in reverse): it leaves the registries last.
  closers.push(() => bus.close());
  return { redis, bus };
}
