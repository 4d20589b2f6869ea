// `npm run allowance -- show|reset --ip ADDRESS`: an operator looks at, or gives back, the playground
// allowance of one client address, in the store the gateways count in (REDIS_URL when set, else
// DATA_DIR/allowance.log, where a running gateway applies the reset before its next count). An IPv6
// address counts by its /64, as the gateway counts it. Both commands are written to the audit log
// as cli:<os user> (support may need to know who refilled whom).
//
// Exit status: 0 done, 1 failed, 2 usage error.
import { parseArgs } from 'node:util';
import os from 'node:os';
import { ConfigError, loadConfig } from '../start/config.js';
import { connectRedis, type RedisClient } from '../cache/redis-connection.js';
import { allowanceAdmin, allowanceSubjectOf } from '../support/allowance-admin.js';
import { createAuditLog } from '../support/audit/audit-log.js';
import { UsageError, isUsageError, type Io, isEntryModule, terminalIo } from './usage.js';

const USAGE = `Usage: npm run allowance -- <show|reset> --ip ADDRESS [--json]

  show    calls counted and left for the address (PLAYGROUND_ALLOWANCE per client, never refilled)
  reset   give the address its whole allowance back (a running gateway applies it at once)

The store is the gateways': Redis when REDIS_URL is set, else DATA_DIR/allowance.log. An IPv6
address counts by its /64 network. Every use is written to the audit log (npm run audit -- list).`;

interface Counted {
  used: number;
  store: string;
}

export async function runAllowanceCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let redis: RedisClient | null = null;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { ip: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    const [command, ...rest] = positionals;
    if (command !== 'show' && command !== 'reset') throw new UsageError('the command is "show" or "reset"');
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    const ip = values.ip?.trim();
    if (!ip) throw new UsageError(`${command} needs --ip ADDRESS`);
    const subject = allowanceSubjectOf(ip);
    if (!subject) throw new UsageError(`--ip must be an IPv4 or IPv6 address, got "${ip.slice(0, 64)}"`);
    const config = loadConfig(env);
    const limit = config.playgroundAllowance;
    redis = config.redisUrl ? await connectRedis(config.redisUrl) : null;
    const admin = allowanceAdmin({ redis, dataDir: config.dataDir, limit, storeName: `Redis ${redactUser(config.redisUrl ?? '')}` });
    const counted = async (): Promise<Counted> => ({ used: await admin.used(subject), store: admin.store });

    const before = await counted();
    const audit = createAuditLog({ redis, dataDir: config.dataDir, retentionMs: config.console.auditRetentionMs });
    // Written before the action, as the console does: an action that cannot be audited fails.
    await audit.write({
      actor: `cli:${os.userInfo().username}`,
      action: `allowance.${command}`,
      target: subject,
      from: 'cli',
      details: { usedBefore: before.used, limit },
    });
    if (command === 'reset' && before.used > 0) await admin.reset(subject);
    const used = command === 'reset' ? 0 : before.used;
    const left = Math.max(0, limit - used);
    if (values.json)
      io.out(JSON.stringify({ subject, used, remaining: left, limit, ...(command === 'reset' ? { usedBefore: before.used } : {}) }));
    else if (command === 'show') io.out(`${subject}: ${used} of ${limit} calls used, ${left} left (${before.store})`);
    else
      io.out(
        before.used > 0
          ? `${subject}: allowance given back (${before.used} of ${limit} were used); ${left} calls left (${before.store})`
          : `${subject}: nothing to reset, no call counted; ${left} calls left (${before.store})`,
      );
    return 0;
  } catch (err) {
    if (isUsageError(err)) {
      io.err(`allowance: ${err.message}`);
      io.err(USAGE);
      return 2;
    }
    io.err(`allowance: ${err instanceof ConfigError ? err.message : ((err as Error)?.message ?? String(err))}`);
    return 1;
  } finally {
    redis?.disconnect();
  }
}

/** A Redis URL without its password, for output. */
function redactUser(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}

if (isEntryModule(import.meta.url)) process.exitCode = await runAllowanceCli(process.argv.slice(2), process.env, terminalIo);
