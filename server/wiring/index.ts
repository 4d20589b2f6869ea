// The capabilities every gateway process runs, in plugin order: keys and allowance first (they
// decide whether a request is served), persisted queries, then cache and replay, then logs and metrics.
import type { CapabilitySetup } from './types.js';
import { environmentsCapability } from './environments.js';
import { persistedQueriesCapability } from './persisted-queries.js';
import { cacheReplayCapability } from './cache-replay.js';
import { observabilityCapability } from './observability.js';

export const capabilities: CapabilitySetup[] = [
  environmentsCapability,
  persistedQueriesCapability,
  cacheReplayCapability,
  observabilityCapability,
];
