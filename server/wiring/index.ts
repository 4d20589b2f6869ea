// The capabilities every gateway process runs, in plugin order: tracing first (its request span
// holds every other plugin's steps), keys and allowance (they decide whether a request is served),
// persisted queries, then cache and replay, then partner quotas and fair share (after the cache, so
// a hit never waits for an execution slot), then logs and metrics.
import type { CapabilitySetup } from './types.js';
import { environmentsCapability } from './environments.js';
import { persistedQueriesCapability } from './persisted-queries.js';
import { cacheReplayCapability } from './cache-replay.js';
import { observabilityCapability } from './observability.js';
import { tracingCapability } from './tracing.js';
import { partnerQuotaCapability } from './partner-quota.js';

export const capabilities: CapabilitySetup[] = [
  tracingCapability,
  environmentsCapability,
  persistedQueriesCapability,
  cacheReplayCapability,
  partnerQuotaCapability,
  observabilityCapability,
];
