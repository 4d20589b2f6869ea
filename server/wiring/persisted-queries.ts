// Automatic persisted queries (server/plugins/persisted-queries.ts) on every environment, documents
// in Redis when REDIS_URL is set (shared by every instance) and in process otherwise, each
// environment bounded by PERSISTED_QUERIES_MAX_BYTES, the playground by its own (smaller) budget.
// Runs after keys and allowance (which charges a playground registration a free request).
import { createPersistedQueryStore } from '../../cache/persisted-query-store.js';
import { persistedQueryPlugin } from '../plugins/persisted-queries.js';
import type { CapabilitySetup } from './types.js';
import { storeErrorLog } from './store-errors.js';

export const persistedQueriesCapability: CapabilitySetup = async ({ config, logger, redis }) => {
  const store = createPersistedQueryStore({
    redis,
    maxBytes: config.persistedQueryMaxBytes,
    budgets: { playground: config.persistedQueryPlaygroundMaxBytes },
  });
  logger.info(
    {
      store: store.kind,
      maxBytesPerEnvironment: config.persistedQueryMaxBytes,
      playgroundMaxBytes: config.persistedQueryPlaygroundMaxBytes,
    },
    'persisted queries (APQ)',
  );
  const onError = storeErrorLog(logger, 'clients resend the full query');
  return {
    name: 'persisted-queries',
    plugins: (environment) => [persistedQueryPlugin({ store, environment, onError })],
  };
};
