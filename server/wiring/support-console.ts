// The support console and certification onboarding, on the admin listener: support
// tokens (a KeyStore of its own over the keys file, hot-reloaded), partner records (polled every
// 250 ms, so a change reaches every instance within a second), the audit log, reruns in process (an
// unbound server of this gateway, no socket), and the unmasking seam.
import type { ReplayStore } from '../stores/replay-store.js';
import { createAuditLog } from '../stores/audit-log.js';
import { KeyStore } from '../keys/key-store.js';
import { PartnerStore } from '../keys/partners.js';
import { rerunInProcess } from '../admin/rerun.js';
import { createSupportConsole, type SupportConsole } from '../admin/console/console.js';
import { limitSignIns } from '../admin/sign-in-limit.js';
import { paceConsole } from '../admin/console-pace.js';
import { createUnmasker } from '../admin/console/masking.js';
import type { WiringContext } from './types.js';
import { serveKeyChanges } from './key-changes.js';

export interface SupportParts {
  console: SupportConsole;
  partners: PartnerStore;
  close(): Promise<void>;
}

export async function openSupportConsole(ctx: WiringContext, replay: ReplayStore | null): Promise<SupportParts> {
  const { config, logger, redis, bus } = ctx;
  const keys = await KeyStore.open(config.keysFile, { logger, reloadMs: 1000 });
  serveKeyChanges(bus, keys);
  let partners: PartnerStore;
  try {
    partners = await PartnerStore.open(config.console.partnersFile, {
      reloadMs: 250,
      onError: (error) =>
        logger.error({ file: config.console.partnersFile, error }, 'partners file could not be reloaded; keeping the last good partners'),
    });
  } catch (err) {
    keys.close();
    throw err;
  }
  const audit = createAuditLog({
    redis,
    dataDir: config.dataDir,
    retentionMs: config.console.auditRetentionMs,
    maxEntries: config.console.auditMaxEntries,
  });
  const unlimited = createSupportConsole({
    keys,
    replay,
    audit,
    partners,
    partnersFile: config.console.partnersFile,
    rerun: (record) => rerunInProcess(record, ctx.createPrivateListener),
    // The replay store's decrypt function takes over once records are encrypted (REPLAY_PII_KEY).
    unmasker: createUnmasker({ piiKey: config.cacheReplay.replay.piiKey }),
    sessionTtlMs: config.console.sessionTtlMs,
    traceUrlTemplate: config.tracing.urlTemplate,
    trustProxy: config.trustProxy,
  });
  const limited = limitSignIns(unlimited, { ...config.console.signInLimit, redis, audit, trustProxy: config.trustProxy });
  const console = paceConsole(limited, config.console.pagesPerSecond);
  return {
    console,
    partners,
    async close() {
      keys.close();
      partners.close();
      // Writes the aggregated noise of the current minute.
      await audit
        .close?.()
        .catch((error: unknown) => logger.warn({ error }, 'audit trail: the last minute of noise counts was not written'));
    },
  };
}
