// `npm run cache -- <command>`: operate the response cache of running gateways.
//
//   purge --field <rootField> [--field ...]   drop cached answers selecting these root fields
//   purge --all                                drop every cached answer
//
// With REDIS_URL (the gateways' Redis) the purge reaches every instance at once: it bumps the
// field's purge epoch (part of every cache key), publishes a message on which each instance
// drops its in-process entries, and drops the purged answers from Redis. Without Redis each
// gateway's cache lives in its own process: the command then uses the admin endpoint of the local
// gateway when ADMIN_TOKEN is set (ADMIN_PORT, or --admin-url), and otherwise says it cannot reach it.
// Exit status: 0 done, 1 failed, 2 usage error.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../start/config.js';
import { safeTarget } from '../cache/redis-connection.js';
import { unreached, withRedis } from './reach.js';
import { purgeInRedis } from '../cache/response-cache.js';
import { UsageError, isUsageError, type Io, isEntryModule, terminalIo } from './usage.js';
import { schemaPolicy } from '../resolvers/schema-policy.js';
import { withoutTrailing } from '../lib/trailing.js';

const USAGE = `Usage: npm run cache -- purge (--field <rootField> [--field ...] | --all) [--admin-url URL]

Purges the response cache on every gateway instance sharing REDIS_URL. Without REDIS_URL, uses the
admin endpoint of a running gateway (needs ADMIN_TOKEN; URL from --admin-url or ADMIN_PORT).
Root fields: ${schemaPolicy.cacheableFields.join(', ')}.`;

export async function runCacheCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  try {
    return await cacheCommand(argv, env, io);
  } catch (err) {
    if (isUsageError(err)) {
      io.err(`cache: ${(err as Error).message}`);
      io.err(USAGE);
      return 2;
    }
    io.err(`cache: ${err instanceof ConfigError ? err.message : ((err as Error)?.message ?? err)}`);
    return err instanceof ConfigError ? 2 : 1;
  }
}

async function cacheCommand(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      field: { type: 'string', multiple: true },
      all: { type: 'boolean' },
      'admin-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const [command] = positionals;
  if (command !== 'purge') throw new UsageError(command ? `unknown command "${command}"` : 'no command');
  const config = loadConfig(env);
  const fields = (values.field ?? [])
    .flatMap((f) => f.split(','))
    .map((f) => f.trim())
    .filter(Boolean);
  if (!values.all && fields.length === 0) throw new UsageError('name --field <rootField> or --all');
  if (values.all && fields.length) throw new UsageError('use either --field or --all');
  const known = new Set(Object.keys(config.cacheReplay.cache.ttl));
  const unknown = fields.filter((f) => !known.has(f));
  if (unknown.length) throw new UsageError(`unknown root field(s): ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  const what = values.all ? 'every cached answer' : `cached answers selecting ${fields.join(', ')}`;

  if (config.redisUrl) {
    const { epochs, receivers, live, dropped } = await withRedis(config.redisUrl, (redis) =>
      purgeInRedis(redis, values.all ? { all: true } : { fields }, undefined, (err) =>
        io.err(`cache: some stored answers stay in Redis until their TTL (${(err as Error)?.message ?? err})`),
      ),
    );
    const others = unreached({ applied: receivers, refused: 0, live }, 'they re-read the purge epochs within CACHE_EPOCH_REFRESH_MS, 5 s');
    io.out(
      `purged ${what} on every gateway instance using ${safeTarget(config.redisUrl)} (epochs ${JSON.stringify(epochs)}; ${receivers} ` +
        `instance(s) notified: ${receivers} of ${live} live instance(s) confirmed${others}; ${dropped} stored answer(s) dropped from Redis)`,
    );
    return 0;
  }

  const adminUrl = values['admin-url'] ?? (config.admin.port !== null ? `http://127.0.0.1:${config.admin.port}` : null);
  if (!config.admin.token || !adminUrl) {
    io.err(
      'cache: REDIS_URL is not set, so each gateway keeps its cache in its own process and this command cannot reach it.\n' +
        "  Either run it with the gateways' REDIS_URL, or set ADMIN_TOKEN (the gateway's admin token; ADMIN_PORT or --admin-url)\n" +
        '  to purge through the admin endpoint, or restart the gateway (its in-process cache starts empty).',
    );
    return 1;
  }
  const qs = values.all ? 'all=1' : fields.map((f) => `field=${encodeURIComponent(f)}`).join('&');
  let res: Response;
  try {
    res = await fetch(`${withoutTrailing(adminUrl, '/')}/cache/purge?${qs}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.admin.token}` },
    });
  } catch (err) {
    io.err(
      `cache: no REDIS_URL and the admin endpoint ${adminUrl} did not answer (${(err as Error).message}); is the gateway running with ADMIN_TOKEN set?`,
    );
    return 1;
  }
  const body = await res.text();
  if (!res.ok) {
    io.err(`cache: admin endpoint answered ${res.status}: ${body}`);
    return 1;
  }
  io.out(`purged ${what} on the gateway at ${adminUrl} (this instance only: without Redis instances share nothing)`);
  return 0;
}

if (isEntryModule(import.meta.url)) process.exitCode = await runCacheCli(process.argv.slice(2), process.env, terminalIo);
