// Response cache + replay log: one cache and one replay store per process, on Redis when
// REDIS_URL is set (shared by every instance) and embedded otherwise (in-process LRU; JSONL files
// under DATA_DIR/replay). Plugins for every environment: the cache (each environment and schema
// variant its own key space), then replay. The purge and the replay store are handed to the support
// endpoint by app.ts.
import { createHash } from 'node:crypto';
import { printSchema } from 'graphql';
import { ResponseCache, type PurgeTarget } from '../../cache/response-cache.js';
import { createReplayStore, REPLAY_KEYS } from '../../stores/replay-store.js';
import { canReach } from '../../cache/redis-health.js';
import { responseCachePlugin } from '../plugins/response-cache.js';
import { requestCoalescingPlugin } from '../plugins/request-coalescing.js';
import { replayPlugin } from '../plugins/replay.js';
import type { HttpPlugin } from '../http/plugin.js';
import type { CapabilitySetup } from './types.js';
import { storeErrorLog } from './store-errors.js';

export const cacheReplayCapability: CapabilitySetup = async (ctx) => {
  const { config, logger, redis, mesh, bus } = ctx;
  const { cache: cacheSettings, replay: replaySettings } = config.cacheReplay;

  const onError = storeErrorLog(logger, 'answers are not affected');

  const schemaId = (sdl: string) => createHash('sha256').update(sdl).digest('hex').slice(0, 16);
  const cache = cacheSettings.enabled
    ? new ResponseCache({
        settings: cacheSettings,
        redis,
        schemaIds: { keyed: schemaId(printSchema(mesh.schemas.keyed)), playground: schemaId(printSchema(mesh.schemas.playground)) },
        onError,
        bus,
      })
    : null;
  await cache?.start();
  const replay = replaySettings.enabled ? createReplayStore({ redis, dataDir: config.dataDir, settings: replaySettings, onError }) : null;
  logger.info(
    {
      cache: cache ? { store: redis ? 'lru+redis' : 'lru', lruBytes: cacheSettings.lruBytes, ttlConfig: cacheSettings.source } : 'disabled',
      replay: replay
        ? {
            store: replay.kind,
            retentionMs: replaySettings.retentionMs,
            maxBytes: replaySettings.maxBytes,
            playgroundMaxBytes: replaySettings.playgroundMaxBytes,
            personal: replaySettings.personal,
            personalDataSealed: !!replaySettings.piiKey,
          }
        : 'disabled',
    },
    'response cache and replay log',
  );

  const purgeCache = cache ? (target: PurgeTarget) => cache.purge(target) : null;

  // A waiter waits no longer than the execution it joined may take: the territories call, then the
  // supplier feeds in parallel, each within its own timeout.
  const timeouts = mesh.feeds.all.map((f) => f.timeoutMs);
  const coalesceWaitMs = timeouts.length ? 2 * Math.max(...timeouts) : 10_000;

  return {
    name: 'cache-replay',
    ...(purgeCache ? { purgeCache } : {}),
    replay,
    plugins(environment) {
      const plugins: HttpPlugin[] = [];
      if (cache) {
        plugins.push(
          responseCachePlugin({
            cache,
            environment,
            variant: environment === 'playground' ? 'playground' : 'keyed',
            keyByPartner: config.fillPartnerRef,
          }),
        );
        if (cacheSettings.coalesce) plugins.push(requestCoalescingPlugin({ maxWaitMs: coalesceWaitMs }));
      }
      if (replay) plugins.push(replayPlugin(replay, replaySettings.piiKey));
      return plugins;
    },
    health() {
      // Health is public: states and counters only. A cache or replay outage degrades nothing the
      // partner sees, so it never marks the process unready (Redis itself is reported by app.ts).
      const details: Record<string, unknown> = {};
      if (cache) {
        details.cache = {
          store: cache.redisState === 'off' ? 'lru' : `lru+redis (${cache.redisState})`,
          lruEntries: cache.lruEntries,
          readErrors: cache.stats.cacheReadErrors,
          writeErrors: cache.stats.cacheWriteErrors,
        };
      }
      if (replay) {
        const s = replay.stats();
        details.replay = {
          store: s.store,
          queued: s.queued,
          dropped: s.dropped,
          ...(redis && !canReach(redis, REPLAY_KEYS.index)
            ? { degraded: 'records wait in the queue, are retried, then dropped and counted' }
            : {}),
        };
      }
      return { ok: true, details };
    },
    async close() {
      await replay?.close();
      await cache?.close();
    },
  };
};
