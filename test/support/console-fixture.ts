// The support console behind a real admin listener, over the stores a test filled: the set-up the
// console tests share (their records, reruns and roles differ).
import type { ReplayStore } from '../../stores/replay-store.js';
import type { PartnerStore } from '../../stores/partners.js';
import { createAuditLog, type AuditLog } from '../../support/audit/audit-log.js';
import { createSupportConsole } from '../../support/console/console.js';
import type { ConsoleOptions } from '../../support/console/console-http.js';
import { startAdminServer, type AdminServer } from '../../support/admin-server.js';

export async function startConsoleFixture(o: {
  dir: string;
  keys: ConsoleOptions['keys'];
  replay: ReplayStore;
  partners: PartnerStore;
  rerun: ConsoleOptions['rerun'];
  unmasker: ConsoleOptions['unmasker'];
  allowance?: ConsoleOptions['allowance'];
  /** The admin API's token (the console itself signs in with support tokens from `keys`). */
  token?: string;
}): Promise<{ audit: AuditLog; admin: AdminServer }> {
  const audit = createAuditLog({ redis: null, dataDir: o.dir, retentionMs: 86_400_000 });
  const support = createSupportConsole({
    keys: o.keys,
    replay: o.replay,
    audit,
    partners: o.partners,
    partnersFile: o.partners.file,
    trustProxy: null,
    sessionTtlMs: 3_600_000,
    rerun: o.rerun,
    unmasker: o.unmasker,
    allowance: o.allowance,
  });
  const admin = await startAdminServer({
    host: '127.0.0.1',
    port: 0,
    token: o.token ?? 'a'.repeat(32),
    checkoutToken: 'c'.repeat(32),
    replay: o.replay,
    cache: null,
    console: support,
    partners: o.partners,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
  });
  return { audit, admin };
}
