// The admin listener: the admin API, the support console and certification onboarding. Support
// tokens (a KeyStore of its own over the keys file, hot-reloaded), partner records (polled every
// 250 ms, so a change reaches every instance within a second), the audit log, and the unmasking
// seam. Reruns and cache purges are the serving process's: in that process, or relayed to it when
// the admin listener runs in a process of its own (support/admin-process.ts).
import type { Logger } from '../lib/logger.js';
import type { RedisClient } from '../cache/redis-connection.js';
import type { InstanceBus } from '../cache/instance-registry.js';
import type { PurgeResult, PurgeTarget } from '../cache/response-cache.js';
import type { SupportConfig } from './admin-settings.js';
import type { ReplayRecord, ReplayStore } from '../stores/replay-store.js';
import { createAuditLog } from './audit/audit-log.js';
import { KeyStore } from '../stores/key-store.js';
import { PartnerStore } from '../stores/partners.js';
import type { Server } from 'node:http';
import { rerunInProcess, type RerunAnswer } from './rerun.js';
import type { EnvironmentName, HttpPlugin } from '../server/http/plugin.js';
import { startAdminServer, type AdminServer } from './admin-server.js';
import { createSupportConsole, type SupportConsole } from './console/console.js';
import { limitSignIns } from './sign-in-limit.js';
import { paceConsole } from './console-pace.js';
import { createUnmasker } from './console/masking.js';
import { allowanceAdmin } from './allowance-admin.js';
import { serveKeyChanges } from '../server/wiring/key-changes.js';

/** What the admin listener asks of the process that serves partners. */
export interface ServingProcess {
  /** Runs a record as its partner on an unbound server of the serving process (support/rerun.ts). */
  rerun(record: ReplayRecord): Promise<RerunAnswer>;
  /** Null when the response cache is off. */
  cache: { purge(target: PurgeTarget): Promise<PurgeResult> } | null;
}

/** The serving process's own: reruns on an unbound server of its schema, purges of its cache (null when off). */
export function servingInProcess(
  createServer: (environment: EnvironmentName, plugins: HttpPlugin[]) => Server,
  purge: ((target: PurgeTarget) => Promise<PurgeResult>) | null,
): ServingProcess {
  return { rerun: (record) => rerunInProcess(record, createServer), cache: purge ? { purge } : null };
}

interface AdminEndpointParts {
  config: SupportConfig;
  logger: Logger;
  redis: RedisClient | null;
  bus: InstanceBus | null;
  replay: ReplayStore | null;
  serving: ServingProcess;
}

interface SupportParts {
  console: SupportConsole;
  partners: PartnerStore;
  close(): Promise<void>;
}

/** The admin listener on ADMIN_HOST:ADMIN_PORT (only with ADMIN_TOKEN), with the support console. */
export async function startAdminEndpoint(parts: AdminEndpointParts): Promise<{ url: string; close(): Promise<void> }> {
  const { config, logger } = parts;
  const support = await openSupportConsole(parts);
  let admin: AdminServer;
  try {
    admin = await startAdminServer({
      host: config.admin.host,
      port: config.admin.port!,
      token: config.admin.token!,
      replay: parts.replay,
      cache: parts.serving.cache,
      logger,
      console: support.console,
      partners: support.partners,
      checkoutToken: config.console.checkoutToken,
    });
  } catch (err) {
    await support.close();
    throw err;
  }
  logger.info({ url: admin.url }, 'admin endpoint listening');
  return {
    url: admin.url,
    async close() {
      await admin.close();
      await support.close();
    },
  };
}

async function openSupportConsole({ config, logger, redis, bus, replay, serving }: AdminEndpointParts): Promise<SupportParts> {
  const keys = await KeyStore.open(config.keysFile, { logger, reloadMs: 1000 });
  serveKeyChanges(bus, keys);
  let partners: PartnerStore;
  try {
    partners = await PartnerStore.open(config.partnersFile, {
      reloadMs: 250,
      onError: (error) =>
        logger.error({ file: config.partnersFile, error }, 'partners file could not be reloaded; keeping the last good partners'),
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
    partnersFile: config.partnersFile,
    rerun: (record) => serving.rerun(record),
    // The replay store's decrypt function takes over once records are encrypted (REPLAY_PII_KEY).
    unmasker: createUnmasker({ piiKey: config.cacheReplay.replay.piiKey }),
    sessionTtlMs: config.console.sessionTtlMs,
    traceUrlTemplate: config.tracing.urlTemplate,
    quotaDefault: config.partnerQuotaDefault,
    allowance: allowanceAdmin({ redis, dataDir: config.dataDir, limit: config.playgroundAllowance }),
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
