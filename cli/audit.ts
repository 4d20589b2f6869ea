// `npm run audit -- list [--actor WHO] [--action WHAT] [--since 7d] [--until ...] [--limit N] [--json]`:
// the audit trail of the support console and onboarding commands, newest first, from the same
// store the gateways write (REDIS_URL when set, else DATA_DIR/audit), with the same filters as the
// console's audit page (run inside the store). Exit status: 0 done, 1 failed, 2 usage error.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type GatewayConfig } from '../start/config.js';
import { connectRedis } from '../cache/redis-connection.js';
import {
  AUDIT_ACTIONS,
  AuditFilterError,
  actionsFor,
  createAuditLog,
  type AuditEntry,
  type AuditLog,
  type AuditQuery,
} from '../support/audit/audit-log.js';
import { parseTimeBound } from '../support/admin-server.js';
import { UsageError, isUsageError, type Io, isEntryModule, terminalIo } from './usage.js';

const USAGE = `Usage: npm run audit -- list [--actor WHO] [--action WHAT] [--since 7d|ISO] [--until 1h|ISO] [--limit N] [--json]

WHO is "support:<HANDLE>", "cli:<os user>" or "anonymous" (refused sign-ins).
WHAT is one action, or a family (sign-in, record, partner, key) for all of its actions:
${Object.entries(AUDIT_ACTIONS)
  .map(([a, what]) => `  ${a.padEnd(22)}${what}`)
  .join('\n')}`;

export async function openAuditLog(config: GatewayConfig): Promise<{ log: AuditLog; close(): Promise<void> }> {
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : null;
  const log = createAuditLog({
    redis,
    dataDir: config.dataDir,
    retentionMs: config.console.auditRetentionMs,
    maxEntries: config.console.auditMaxEntries,
  });
  return {
    log,
    close: async () => {
      try {
        await log.close?.();
      } finally {
        redis?.disconnect();
      }
    },
  };
}

/** The store query of `list`'s flags; a UsageError names the flag that is wrong. */
function listQuery(values: { actor?: string; action?: string; since?: string; until?: string; limit?: string }): AuditQuery {
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be 1 to 1000');
  const from = values.since === undefined ? undefined : parseTimeBound(values.since, Date.now());
  if (from === null) throw new UsageError('--since must be a duration back from now (2h, 7d) or an ISO time');
  const to = values.until === undefined ? undefined : parseTimeBound(values.until, Date.now());
  if (to === null) throw new UsageError('--until must be a duration back from now (2h, 7d) or an ISO time');
  try {
    actionsFor(values.action);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return { actor: values.actor, action: values.action, from, to, limit };
}

function printEntries(io: Io, entries: AuditEntry[], json: boolean): void {
  if (json) for (const e of entries) io.out(JSON.stringify(e));
  else if (!entries.length) io.err('no audit entries match');
  else
    for (const e of entries)
      io.out(
        `${e.time}  ${e.actor.padEnd(20)}  ${e.action.padEnd(20)}  ${(e.target ?? '-').padEnd(38)}  ${e.from}` +
          `${e.count ? `  x${e.count}` : ''}${e.details ? `  ${JSON.stringify(e.details)}` : ''}`,
      );
}

export async function runAuditCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        actor: { type: 'string' },
        action: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    if (positionals[0] !== 'list' || positionals.length > 1) throw new UsageError('the command is "list"');
    const query = listQuery(values);
    const { log, close } = await openAuditLog(loadConfig(env));
    try {
      printEntries(io, await log.list(query), values.json === true);
      return 0;
    } finally {
      await close();
    }
  } catch (err) {
    if (isUsageError(err) || err instanceof AuditFilterError) {
      io.err(`audit: ${(err as Error).message}`);
      io.err(USAGE);
      return 2;
    }
    io.err(`audit: ${err instanceof ConfigError ? err.message : ((err as Error)?.message ?? err)}`);
    return 1;
  }
}

if (isEntryModule(import.meta.url)) process.exitCode = await runAuditCli(process.argv.slice(2), process.env, terminalIo);
