// `npm run replay -- <command>`: support tooling over the replay log (the same store the gateway
// writes: REDIS_URL when set, else DATA_DIR/replay).
//
//   show <id> [--env E] [--body]
//                            the record as JSON; --body prints only the response body, byte for byte
//                            as the partner received it. Personal data only with REPLAY_PII_KEY.
//   list [--partner CODE] [--since 2h] [--until T] [--status 4xx|429|200] [--env E] [--limit N] [--cursor C] [--json]
//                            newest first, as a table (or JSON lines)
//   rerun <id> [--json]      executes the same operation now against the current feeds and prints a
//                            structured diff with the recorded answer
//
// rerun runs the operation in this process: it builds the schema from .meshrc.yaml and writes the
// request into an unbound server of the record's environment with no admission plugins (no port, no
// socket: nothing else can reach it), so no partner key is needed.
// Feeds are those the gateway uses (same environment variables); with the built-in reference
// upstream it reuses the running one on UPSTREAM_PORT when it answers, else starts its own.
// `--url URL [--key KEY | REPLAY_API_KEY]` posts to a running gateway instead.
//
// Exit status: show/list 0 found, 1 not found; rerun 0 identical, 1 different; 2 usage or error.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type GatewayConfig } from '../start/config.js';
import { connectRedis, type RedisClient } from '../cache/redis-connection.js';
import {
  createReplayStore,
  isSearchCursor,
  pickRecord,
  type ReplayQuery,
  type ReplayRecord,
  type ReplayStore,
} from '../stores/replay-store.js';
import { unsealPersonalData } from '../stores/replay-privacy.js';
import { diffResponses, formatDiff } from '../support/replay-diff.js';
import { parseTimeBound } from '../support/admin-server.js';
import { postRecord, rerunInProcess as rerunOnServer, type RerunAnswer as RerunBody } from '../support/rerun.js';
import { UsageError, isUsageError, type Io as UsageIo, isEntryModule, terminalIo } from './usage.js';

const USAGE = `Usage: npm run replay -- <command> [options]

Commands:
  show <request-id> [--env production|certification|playground] [--partner CODE] [--body]
        Print the record (JSON). --body prints only the response body exactly as sent.
        Without --env, keyed environments are searched first; an id that several partners
        sent needs --partner (and --env). Personal data is shown only
        with REPLAY_PII_KEY set (the key the gateway sealed it with); else masked.
  list [--partner CODE] [--since 2h|ISO] [--until 2h|ISO] [--status 200|429|4xx|5xx]
       [--env production|certification|playground] [--limit N] [--cursor C] [--json]
        Records, newest first, from a bounded read (256 chunks or 128 MiB of segments); when it
        stops before the time range does it says how far back it read and prints the --cursor
        that reads on.
  rerun <request-id> [--env E] [--partner CODE] [--json] [--url URL [--key KEY]]
        Execute the recorded operation again now and diff the answers.
        Exit 0 when identical, 1 when different, 2 on errors.

The store is the gateway's: REDIS_URL when set, else DATA_DIR/replay (default ./data/replay).`;

class NotFound extends Error {}

export interface Io extends UsageIo {
  /** Output exactly as given (response bodies). */
  raw(text: string): void;
}

/** Runs `task` over the gateway's replay store, closed afterwards. */
async function withStore<T>(config: GatewayConfig, task: (store: ReplayStore) => Promise<T>): Promise<T> {
  const redis: RedisClient | null = config.redisUrl ? await connectRedis(config.redisUrl) : null;
  const store = createReplayStore({ redis, dataDir: config.dataDir, settings: config.cacheReplay.replay });
  try {
    return await task(store);
  } finally {
    await store.close();
    redis?.disconnect();
  }
}

function opLabel(r: ReplayRecord): string {
  if (r.operationName) return r.operationName;
  if (!r.query) return '-';
  const text = r.query
    .replace(/#[^\n]*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 48 ? `${text.slice(0, 45)}...` : text;
}

function table(records: ReplayRecord[]): string {
  const rows = [['TIME', 'ID', 'ENV', 'PARTNER', 'STATUS', 'CACHE', 'MS', 'OPERATION']];
  for (const r of records) {
    rows.push([r.time, r.id, r.environment, r.partnerCode ?? '-', String(r.status), r.cache ?? '-', String(r.durationMs), opLabel(r)]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

async function isUp(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

interface RerunAnswer extends RerunBody {
  via: string;
}

/** Executes the record's operation in this process, on an unbound server of its environment. */
async function rerunInProcess(record: ReplayRecord, config: GatewayConfig, baseEnv: NodeJS.ProcessEnv): Promise<RerunAnswer> {
  const env: NodeJS.ProcessEnv = {
    ...baseEnv,
    ENVIRONMENTS: record.environment,
    // Nothing is bound (serve: false); ports 0 keep the configuration check from comparing them.
    PRODUCTION_PORT: '0',
    CERTIFICATION_PORT: '0',
    PLAYGROUND_PORT: '0',
    OPS_PORT: '0',
    REDIS_URL: '',
    ADMIN_TOKEN: '',
    LOG_LEVEL: 'silent',
    CACHE_ENABLED: 'false',
    REPLAY_ENABLED: 'false',
  };
  let upstream = 'configured feeds';
  if (config.upstream.start) {
    const running = `http://127.0.0.1:${config.upstream.port}`;
    if (config.upstream.port !== 0 && (await isUp(running))) {
      env.UPSTREAM_URL = running;
      delete env.START_REFERENCE_UPSTREAM;
      upstream = `the running reference upstream ${running}`;
    } else {
      env.UPSTREAM_PORT = '0';
      upstream = 'a fresh reference upstream';
    }
  }
  const { launchGateway: startGateway } = await import('../start/launch.js');
  // Mesh handlers print progress on stdout while the schema is built: keep stdout for our output.
  const log = console.log;
  const info = console.info;
  console.log = (...a: unknown[]) => console.error(...a);
  console.info = (...a: unknown[]) => console.error(...a);
  let gateway;
  try {
    gateway = await startGateway({ env, capabilities: [], serve: false });
  } finally {
    console.log = log;
    console.info = info;
  }
  try {
    // The record's partner code, for answers that depend on it (FILL_PARTNER_REF); no key check.
    const answer = await rerunOnServer(record, gateway.createPrivateListener);
    return { ...answer, via: `${record.environment} in process (no listener) over ${upstream}` };
  } finally {
    await gateway.close();
  }
}

export async function runReplayCli(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  try {
    return await replayCommand(argv, env, io);
  } catch (err) {
    if (isUsageError(err)) {
      io.err(`replay: ${(err as Error).message}`);
      io.err(USAGE);
      return 2;
    }
    if (err instanceof NotFound) {
      io.err(`replay: ${err.message}`);
      return argv.find((a) => !a.startsWith('-')) === 'rerun' ? 2 : 1;
    }
    io.err(`replay: ${err instanceof ConfigError ? err.message : ((err as Error)?.message ?? err)}`);
    return 2;
  }
}

const OPTIONS = {
  body: { type: 'boolean' },
  json: { type: 'boolean' },
  partner: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  status: { type: 'string' },
  env: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  url: { type: 'string' },
  key: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Options = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

const ENVIRONMENTS = ['production', 'certification', 'playground'];

async function replayCommand(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const [command, id, ...rest] = positionals;
  if (!command) throw new UsageError('no command');
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const config = loadConfig(env);
  if (command === 'list') {
    if (id) throw new UsageError(`list takes no positional argument (got "${id}")`);
    return listRecords(listQuery(values), values, config, io);
  }
  if (command !== 'show' && command !== 'rerun') throw new UsageError(`unknown command "${command}"`);
  if (!id) throw new UsageError(`${command} needs a request id`);
  const found = await findRecord(id, environmentOption(values), values.partner?.trim() || undefined, config);
  // Personal data opens only for someone holding REPLAY_PII_KEY (the config checked its shape).
  const { record, problem } = unsealPersonalData(found, config.cacheReplay.replay.piiKey);
  if (problem) io.err(`replay: ${problem}`);
  if (command === 'show') return showRecord(record, values, io);
  if (problem) return 2;
  return rerunRecord(record, values, config, env, io);
}

function environmentOption(values: Options): string | undefined {
  if (values.env && !ENVIRONMENTS.includes(values.env)) throw new UsageError('--env must be production, certification or playground');
  return values.env;
}

/** The filters of `list`, checked. */
function listQuery(values: Options): ReplayQuery {
  const q: ReplayQuery = { limit: 50 };
  if (values.partner) q.partner = values.partner.toUpperCase();
  q.environment = environmentOption(values);
  if (values.status) {
    if (!/^([1-5]xx|[1-5]\d\d)$/i.test(values.status)) throw new UsageError('--status must be like 200, 429 or 4xx');
    q.status = values.status;
  }
  for (const name of ['since', 'until'] as const) {
    const raw = values[name];
    if (!raw) continue;
    const t = parseTimeBound(raw, Date.now());
    if (t === null) throw new UsageError(`--${name} must be a duration back from now (30m, 2h, 7d) or an ISO time`);
    q[name] = t;
  }
  if (values.limit) {
    const n = Number(values.limit);
    if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new UsageError('--limit must be a positive integer');
    q.limit = n;
  }
  return q;
}

async function listRecords(q: ReplayQuery, values: Options, config: GatewayConfig, io: Io): Promise<number> {
  if (values.cursor !== undefined && !isSearchCursor(values.cursor))
    throw new UsageError('--cursor must be the cursor an earlier `list` printed, unchanged');
  const { records, complete, searchedBack, next } = await withStore(config, (store) => store.listing(q, values.cursor ?? null));
  if (values.json) for (const r of records) io.out(JSON.stringify(r));
  else if (records.length) io.out(table(records));
  else io.err('no records match');
  // The read is bounded (as a console search): say where it stopped and how to read on.
  if (!complete && next) io.err(`searched back to ${new Date(searchedBack!).toISOString()} only; to read on, add --cursor ${next}`);
  return records.length ? 0 : 1;
}

async function findRecord(
  id: string,
  environment: string | undefined,
  partner: string | undefined,
  config: GatewayConfig,
): Promise<ReplayRecord> {
  const picked = pickRecord(await withStore(config, (store) => store.getAll(id, environment)), partner);
  if (picked && 'ambiguous' in picked) {
    const owners = picked.ambiguous.map((r) => `${r.environment}/${r.partnerCode ?? '-'} (${r.time})`);
    throw new UsageError(
      `request id ${id} was sent by more than one partner or environment: ${owners.join(', ')}; add --partner and --env to choose one`,
    );
  }
  const record = picked?.record;
  if (!record) {
    const hours = (ms: number) => Math.round(ms / 3_600_000);
    const { retentionMs, personal } = config.cacheReplay.replay;
    const kept = `records are kept ${hours(retentionMs)} h at most, personal data ${hours(personal.retentionMs)} h`;
    throw new NotFound(`no replay record for request id ${id}${environment ? ` in ${environment}` : ''} (${kept})`);
  }
  return record;
}

function showRecord(record: ReplayRecord, values: Options, io: Io): number {
  if (values.body) io.raw(record.responseBody);
  else io.out(JSON.stringify(record, null, 2));
  return 0;
}

async function rerunRecord(record: ReplayRecord, values: Options, config: GatewayConfig, env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  if (!record.query) {
    io.err(
      `replay: request ${record.id} was not executed (answered ${record.status}; its text is kept as a digest only); nothing to re-run`,
    );
    return 2;
  }
  let answer: RerunAnswer;
  if (values.url) {
    const key = values.key ?? env.REPLAY_API_KEY;
    const answerRaw = await postRecord(values.url, record, key ? { 'x-api-key': key } : {});
    answer = { ...answerRaw, via: values.url };
  } else {
    answer = await rerunInProcess(record, config, env);
  }
  const diff = diffResponses(record.responseBody, answer.body, {
    oldStatus: record.status,
    newStatus: answer.status,
    oldRequestId: record.id,
    newRequestId: answer.requestId,
  });
  if (values.json) {
    io.out(
      JSON.stringify(
        {
          id: record.id,
          recorded: { time: record.time, status: record.status },
          rerun: { status: answer.status, requestId: answer.requestId, via: answer.via, body: answer.body },
          diff,
        },
        null,
        2,
      ),
    );
  } else {
    const cached = record.fromCache ? ' (served from cache)' : '';
    io.out(`rerun of ${record.id}: ${record.environment}, partner ${record.partnerCode ?? '-'}, recorded ${record.time}${cached}`);
    io.out(`executed via ${answer.via}`);
    io.out(formatDiff(diff));
  }
  return diff.identical ? 0 : 1;
}

if (isEntryModule(import.meta.url)) {
  const code = await runReplayCli(process.argv.slice(2), process.env, { ...terminalIo, raw: (text) => process.stdout.write(text) });
  // Exit now: the in-process gateway of `rerun` may leave sockets in keep-alive.
  process.stdout.write('', () => process.exit(code));
}
