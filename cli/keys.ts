// `npm run keys -- <command>`: issue, list and revoke API keys for production and certification,
// and the personal tokens of support staff for the admin console (--env support --partner PERSON).
//
//   issue  --env production|certification|support --partner CODE   prints the new key alone on the last line of stdout
//   list   [--env E] [--partner CODE] [--active] [--json]   never shows keys or hashes
//   revoke <key-id>                                         or: revoke --partner CODE --env E
//
// The keys file is KEYS_FILE (default <DATA_DIR>/keys.json), resolved exactly as the gateway does
// (server/config.ts); `--file PATH` overrides it. A running gateway re-reads the file within a
// second of a change. With REDIS_URL (the gateways' Redis) issue and revoke also announce the change
// to every running instance, which re-reads its keys file at once and answers whether it shows the
// change; the command prints how many of the live instances applied it (as `npm run cache -- purge`
// does for purges). Exit status: 0 done (the file changed, whatever the reach), 1 failed, 2 usage error.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { ConfigError, loadConfig } from '../start/config.js';
import {
  isKeyEnvironment,
  issueKey,
  normalizePartnerCode,
  parseSupportRoles,
  readKeysFile,
  revokeKeys,
  type KeyChange,
  type KeyEnvironment,
  type KeyRecord,
  type RevokeSelector,
} from '../stores/key-store.js';
import { StoreFileError } from '../stores/locked-file.js';
import { UsageError, type Io, isEntryModule, terminalIo } from './usage.js';
import { announce, KEYS_TOPIC } from '../cache/instance-registry.js';
import { safeTarget } from '../cache/redis-connection.js';
import { unreached, withRedis } from './reach.js';
import { openAuditLog } from './audit.js';
import os from 'node:os';

const USAGE = `Usage: npm run keys -- <command> [options]

Commands:
  issue --env <production|certification> --partner <CODE>
  issue --env support --partner <PERSON> [--role viewer|unmask|partners]
        Issue a key (support: a personal token for the admin console; PERSON is the user's handle;
        --role takes a comma list, default viewer: unmask opens personal data, partners edits partners).
        Only its hash is stored; the key is printed once, alone on the last line of
        stdout (capture it with: npm run --silent keys -- issue ... | tail -n 1).
  list [--env <production|certification>] [--partner <CODE>] [--active] [--json]
        List keys (id, partner, environment, created, revoked). Keys and hashes are never shown.
  revoke <key-id>
  revoke --partner <CODE> --env <production|certification>
        Revoke one key, or every key of a partner in one environment.

Options:
  --file <path>   keys file (default: KEYS_FILE, else <DATA_DIR>/keys.json, as the gateway)
  -h, --help      show this help

Partner codes: 2-32 characters A-Z, 0-9, "_" or "-" (lower case is upper-cased).
A running gateway picks up issued and revoked keys within a second. With REDIS_URL, issue and revoke
also tell every running instance at once and print how many of the live instances applied the change.`;

const OPTIONS = {
  env: { type: 'string' },
  partner: { type: 'string' },
  role: { type: 'string' },
  file: { type: 'string' },
  json: { type: 'boolean' },
  active: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Parsed = ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
type Values = Parsed['values'];

export async function runKeysCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    return usageFailure(io, (err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === 'help') {
    io.out(USAGE);
    return 0;
  }
  try {
    if (!command) throw new UsageError('missing command (issue, list or revoke)');
    const file = keysFile(values.file, env);
    const run = COMMANDS[command];
    if (!run) throw new UsageError(`unknown command "${command}" (use issue, list or revoke)`);
    return await run(values, rest, { file, env }, io);
  } catch (err) {
    return reportFailure(io, err);
  }
}

interface Target {
  file: string;
  env: NodeJS.ProcessEnv;
}

type Command = (values: Values, rest: string[], target: Target, io: Io) => Promise<number>;

const COMMANDS: Record<string, Command> = { issue: issueCommand, list: listCommand, revoke: revokeCommand };

async function issueCommand(values: Values, rest: string[], { file, env }: Target, io: Io): Promise<number> {
  noPositionals(rest, 'issue');
  onlyFlags(values, ['env', 'partner', 'file', 'role'], 'issue');
  const environment = requireEnv(values.env);
  if (values.role !== undefined && environment !== 'support') throw new UsageError('--role is for support tokens only (--env support)');
  const roles = values.role === undefined ? undefined : parseSupportRoles(values.role);
  if (!values.partner)
    throw new UsageError(
      environment === 'support' ? "issue --env support needs --partner PERSON (the support user's handle)" : 'issue needs --partner CODE',
    );
  const partnerCode = partner(values.partner);
  const config = loadConfig(env);
  const redisUrl = config.redisUrl;
  const { key, record } = await issueKey(file, { environment, partnerCode, roles });
  const audited = await auditKeyChange(config, 'key.issue', record);
  const holder =
    environment === 'support'
      ? `support user ${record.partnerCode} (roles: ${(record.roles ?? ['viewer']).join(', ')})`
      : `partner ${record.partnerCode} in ${record.environment}`;
  io.err(`Issued key ${record.id} for ${holder} (${file}).`);
  io.err(
    `Give it to the ${environment === 'support' ? 'support user' : 'partner'} now: it is not stored and cannot be shown again. The key is the ` +
      `last line of stdout.`,
  );
  if (audited) io.err(audited);
  io.out(key);
  // stdout's last line stays the key: the reach goes to stderr.
  io.err(await announceKeyChange(redisUrl, [{ id: record.id, state: 'active' }]));
  return 0;
}

async function listCommand(values: Values, rest: string[], { file }: Target, io: Io): Promise<number> {
  noPositionals(rest, 'list');
  onlyFlags(values, ['env', 'partner', 'file', 'json', 'active'], 'list');
  const environment = values.env === undefined ? null : requireEnv(values.env);
  const partnerCode = values.partner === undefined ? null : partner(values.partner);
  const { keys } = await readKeysFile(file);
  const shown = keys
    .filter(
      (k) =>
        (!environment || k.environment === environment) &&
        (!partnerCode || k.partnerCode === partnerCode) &&
        (!values.active || !k.revokedAt),
    )
    .map(publicView);
  io.out(values.json ? JSON.stringify(shown, null, 2) : table(shown));
  return 0;
}

async function revokeCommand(values: Values, rest: string[], { file, env }: Target, io: Io): Promise<number> {
  onlyFlags(values, ['env', 'partner', 'file'], 'revoke');
  const selector = revokeSelector(values, rest);
  const config = loadConfig(env);
  const redisUrl = config.redisUrl;
  const outcome = await revokeKeys(file, selector);
  for (const k of outcome.revoked) {
    const audited = await auditKeyChange(config, 'key.revoke', k);
    if (audited) io.err(audited);
  }
  for (const k of outcome.revoked) io.out(`revoked ${k.id} (${k.partnerCode}, ${k.environment})`);
  for (const k of outcome.alreadyRevoked) io.out(`already revoked ${k.id} (${k.partnerCode}, ${k.environment}) at ${k.revokedAt}`);
  if (outcome.revoked.length)
    io.out(
      await announceKeyChange(
        redisUrl,
        outcome.revoked.map((k) => ({ id: k.id, state: 'revoked' as const })),
      ),
    );
  return 0;
}

/** How long the CLI waits for the audit store before saying it could not write the entry. */
const AUDIT_WAIT_MS = 3000;

/**
 * Issue and revoke go to the audit trail as cli:<os user>, the key id as target (never the key).
 * Never throws: the change is made in the keys file first (a revocation must not wait on Redis),
 * so a trail that cannot be written is said on stderr, for the operator to record the change.
 */
async function auditKeyChange(
  config: ReturnType<typeof loadConfig>,
  action: 'key.issue' | 'key.revoke',
  k: KeyRecord,
): Promise<string | null> {
  const write = async () => {
    const { log, close } = await openAuditLog(config);
    try {
      await log.write({
        actor: `cli:${os.userInfo().username}`,
        action,
        target: k.id,
        from: 'cli',
        details: { partner: k.partnerCode, environment: k.environment },
      });
    } finally {
      await close();
    }
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      write(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${AUDIT_WAIT_MS} ms`)), AUDIT_WAIT_MS))),
    ]);
    return null;
  } catch (err) {
    return `warning: ${action} ${k.id} is made, but the audit trail could not be written (${(err as Error)?.message ?? err}); record it by hand.`;
  } finally {
    clearTimeout(timer);
  }
}

const ANNOUNCE_CONNECT_MS = 3000;

/**
 * Tells the running instances (with Redis) and says how many applied the change; without Redis,
 * says when they pick it up. Never throws: the change is in the file whatever happens here.
 */
async function announceKeyChange(redisUrl: string | null, keys: KeyChange['keys']): Promise<string> {
  if (!redisUrl)
    return 'Running gateways pick the change up from the keys file within about a second (no REDIS_URL: they are not told, nor counted).';
  try {
    // The change is made: waiting long on a Redis that does not answer would add nothing.
    const reach = await withRedis(redisUrl, (redis) => announce(redis, KEYS_TOPIC, { keys }), ANNOUNCE_CONNECT_MS);
    return `key change applied by ${reach.applied} of ${reach.live} live instance(s) using ${safeTarget(redisUrl)}${unreached(
      reach,
      'they re-read the keys file within about a second of a change, if it is the file this command wrote',
      'answered that their keys file does not show the change: give every instance the file this command wrote (KEYS_FILE)',
    )}`;
  } catch (err) {
    return (
      `The change is in the keys file, but the gateways could not be told through Redis (${(err as Error)?.message ?? err}): they pick ` +
      `it up from the file within about a second, uncounted.`
    );
  }
}

function revokeSelector(values: Values, rest: string[]): RevokeSelector {
  if (rest.length > 0) {
    if (rest.length > 1) throw new UsageError('revoke takes one key id');
    if (values.partner || values.env) throw new UsageError('revoke takes either a key id or --partner with --env, not both');
    return { id: rest[0]! };
  }
  if (!values.partner || !values.env) throw new UsageError('revoke needs a key id, or --partner CODE and --env E');
  return { partnerCode: partner(values.partner), environment: requireEnv(values.env) };
}

function usageFailure(io: Io, message: string): number {
  io.err(`keys: ${message}`);
  io.err('Run "npm run keys -- --help" for usage.');
  return 2;
}

function reportFailure(io: Io, err: unknown): number {
  if (err instanceof UsageError) return usageFailure(io, err.message);
  if (err instanceof StoreFileError || err instanceof ConfigError) {
    io.err(`keys: ${err.message}`);
    return 1;
  }
  io.err(`keys: failed: ${(err as Error)?.message ?? String(err)}`);
  return 1;
}

function keysFile(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag !== undefined) {
    if (!flag.trim()) throw new UsageError('--file needs a path');
    return path.resolve(flag);
  }
  return loadConfig(env).keysFile;
}

function requireEnv(value: string | undefined): KeyEnvironment {
  if (value === undefined) throw new UsageError('--env is required (production or certification, or support for a support token)');
  const v = value.trim().toLowerCase();
  if (!isKeyEnvironment(v))
    throw new UsageError(`--env must be production or certification (or support for a support token), got "${value}"`);
  return v;
}

function partner(value: string): string {
  try {
    return normalizePartnerCode(value);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function noPositionals(rest: string[], command: string): void {
  if (rest.length) throw new UsageError(`${command}: unexpected argument "${rest[0]}"`);
}

function onlyFlags(values: Record<string, unknown>, allowed: string[], command: string): void {
  for (const [k, v] of Object.entries(values)) {
    if (v !== undefined && !allowed.includes(k)) throw new UsageError(`${command} does not take --${k}`);
  }
}

function publicView(k: KeyRecord) {
  return {
    id: k.id,
    partnerCode: k.partnerCode,
    environment: k.environment,
    createdAt: k.createdAt,
    revokedAt: k.revokedAt,
    ...(k.environment === 'support' ? { roles: k.roles ?? ['viewer'] } : {}),
  };
}

function table(rows: ReturnType<typeof publicView>[]): string {
  if (rows.length === 0) return 'no keys';
  const head = ['ID', 'PARTNER', 'ENVIRONMENT', 'CREATED', 'REVOKED'];
  const cells = rows.map((r) => [r.id, r.partnerCode, r.environment, r.createdAt, r.revokedAt ?? '-']);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return [head, ...cells]
    .map((c) =>
      c
        .map((v, i) => v.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

if (isEntryModule(import.meta.url)) process.exitCode = await runKeysCli(process.argv.slice(2), process.env, terminalIo);
