// Partner quotas and fair share on the keyed listeners (server/plugins/partner-quota.ts): the
// quotas are read from the partner records (PARTNERS_FILE, polled, so `npm run partners -- quota`
// and the console's partner page reach every instance within a second), counted in Redis when
// REDIS_URL is set (every instance and worker shares each bucket) and in memory otherwise. One
// fair-share pool per process, shared by both keyed listeners. Runs after the cache capability, so
// that a cache hit or a coalesced answer never waits for an execution slot.
import { performance } from 'node:perf_hooks';
import { createQuotaCounter } from '../../cache/partner-quota.js';
import { eventLoopLoad, FairShare } from '../../lib/fair-share.js';
import { PartnerStore } from '../../stores/partners.js';
import { effectiveQuota, type KeyedEnvironment } from '../../stores/partner-quota.js';
import { partnerQuotaPlugin } from '../plugins/partner-quota.js';
import type { HttpPlugin } from '../http/plugin.js';
import type { CapabilitySetup } from './types.js';

/** How often each process looks at the partners file for changed quotas. */
const PARTNERS_RELOAD_MS = 250;

export const partnerQuotaCapability: CapabilitySetup = async ({ config, logger, redis }) => {
  const keyed = config.environments.filter((e): e is KeyedEnvironment => e !== 'playground');
  if (!keyed.length) return { name: 'partner-quota', plugins: () => [] };
  const partners = await PartnerStore.open(config.partnersFile, {
    reloadMs: PARTNERS_RELOAD_MS,
    onError: (error) =>
      logger.error({ file: config.partnersFile, error }, 'partners file could not be reloaded; keeping the last good quotas'),
  });
  let lastDegraded = 0;
  const counter = createQuotaCounter(redis, (err) => {
    // One line per 10 s at most while Redis does not answer.
    if (Date.now() - lastDegraded < 10_000) return;
    lastDegraded = Date.now();
    logger.warn({ error: (err as Error).message }, 'partner quotas counted in this process: Redis did not answer');
  });
  // The share adapts to this process's event-loop load (lib/fair-share.ts).
  const share = new FairShare(config.partnerShare, { loopLoad: eventLoopLoad(), now: () => performance.now() });
  const plugins = new Map<string, HttpPlugin[]>(
    keyed.map((environment) => [
      environment,
      [
        partnerQuotaPlugin({
          environment,
          counter,
          share,
          quotaOf: (partner, env) => effectiveQuota(partners.get(partner)?.quotas, env, config.partnerQuotaDefault),
          logger,
        }),
      ],
    ]),
  );
  logger.info({ store: counter.mode, share: config.partnerShare }, 'partner quotas');
  return {
    name: 'partner-quota',
    plugins: (environment) => plugins.get(environment) ?? [],
    close: () => partners.close(),
  };
};
