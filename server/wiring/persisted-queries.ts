// Automatic persisted queries (server/plugins/persisted-queries.ts) on every environment, documents
// in Redis when REDIS_URL is set (shared by every instance) and in process otherwise, each
// environment bounded by PERSISTED_QUERIES_MAX_BYTES. Runs after keys and allowance.
import { createPersistedQueryStore } from '../stores/persisted-query-store.js';
import { persistedQueryPlugin } from '../plugins/persisted-queries.js';
import type { CapabilitySetup } from './types.js';

export const persistedQueriesCapability: CapabilitySetup = async ({ config, logger, redis }) => {
  const store = createPersistedQueryStore({ redis, maxBytes: config.persistedQueryMaxBytes });
  logger.info({ store: store.kind, maxBytesPerEnvironment: config.persistedQueryMaxBytes }, 'persisted queries (APQ)');
  // At most one log line per kind of failure per 10 s while the store is down.
  const lastLog = new Map<string, number>();
  const onError = (err: unknown, what: string) => {
    const t = Date.now();
    if (t - (lastLog.get(what) ?? 0) < 10_000) return;
    lastLog.set(what, t);
    logger.warn({ error: (err as Error)?.message ?? String(err) }, `${what} failed (clients resend the full query)`);
  };
  return {
    name: 'persisted-queries',
    plugins: (environment) => [persistedQueryPlugin({ store, environment, onError })],
  };
};
