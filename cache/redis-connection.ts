// One ioredis connection (standalone, Sentinel or Cluster, from REDIS_URL) shared by the response
// cache, the playground allowance and the replay log. Start-up fails loudly when no node answers
// within REDIS_START_DEADLINE_MS, and starts as soon as one does (a seed node or sentinel that is
// down is skipped); once running, commands fail fast while Redis is down (no offline queue) and
// the client reconnects by itself. How healthy it is: cache/redis-health.ts.
import { Redis, Cluster, type RedisOptions, type ClusterOptions } from 'ioredis';
import { parseRedisUrl, describeRedisTarget, type RedisTarget } from './redis-url.js';
import type { RedisClient } from './redis-health.js';

export type { RedisClient } from './redis-health.js';

export class RedisUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisUnavailableError';
  }
}

const retry = (times: number) => Math.min(50 * 2 ** Math.min(times, 6), 2000);

const COMMON: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  commandTimeout: 1000,
  lazyConnect: true,
  retryStrategy: retry,
};

// A lost master must not hold a request for ioredis' default 16 redirections x 100 ms: a few
// short retries cover a MOVED after a failover; cache/redis-health.ts stops sending to a
// master known to be down altogether.
const CLUSTER: ClusterOptions = {
  enableOfflineQueue: false,
  // ioredis' ready check sends CLUSTER INFO to a random node of the slot map, which may be a master
  // that is down; when it fails, the client reconnects but the promise of connect() never settles
  // (a start-up that hangs). Readiness comes from the slot map instead, and redis-health.ts reads
  // CLUSTER INFO from every master.
  enableReadyCheck: false,
  lazyConnect: true,
  maxRedirections: 3,
  retryDelayOnFailover: 100,
  retryDelayOnClusterDown: 100,
  retryDelayOnTryAgain: 100,
  slotsRefreshTimeout: 1000,
  // Picks up a promoted replica without waiting for a MOVED.
  slotsRefreshInterval: 2000,
  clusterRetryStrategy: retry,
};

/** ioredis options of a parsed REDIS_URL. */
function nodeOptions(t: RedisTarget): RedisOptions {
  return { ...COMMON, username: t.username, password: t.password, ...(t.tls ? { tls: {} } : {}) };
}

/** A client for REDIS_URL (see cache/redis-url.ts for the forms); throws RedisUrlError. */
export function redisFromUrl(url: string): RedisClient {
  const t = parseRedisUrl(url);
  if (t.topology === 'cluster') return new Cluster(t.nodes, { ...CLUSTER, redisOptions: nodeOptions(t) });
  if (t.topology === 'sentinel') {
    return new Redis({
      ...nodeOptions(t),
      db: t.db,
      sentinels: t.nodes,
      name: t.masterName,
      // Follows +switch-master at once instead of after the next failed command.
      failoverDetector: true,
      ...(t.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
      sentinelRetryStrategy: retry,
    });
  }
  return new Redis({ ...nodeOptions(t), db: t.db, host: t.nodes[0]!.host, port: t.nodes[0]!.port });
}

/** How long a start waits for a Cluster or Sentinel set: a node must answer within this (then the start fails). */
export const REDIS_START_DEADLINE_MS = 10_000;

/**
 * Resolves once the client is ready (starting it when it has not been), rejects after `ms` with
 * the last connection error. Never relies on the promise of connect(), which a failed Cluster
 * attempt can leave pending while ioredis retries by itself.
 */
export function whenReady(client: RedisClient, ms: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    let lastError = '';
    const onError = (err: Error) => {
      lastError = err?.message ?? String(err);
    };
    const done = (err?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      if (err) reject(err);
      else resolve();
    };
    const onReady = () => done();
    const timer = setTimeout(
      () => done(new Error(`no node answered within ${ms} ms${lastError ? ` (last error: ${lastError})` : ''}`)),
      ms,
    );
    client.on('ready', onReady);
    client.on('error', onError);
    // A single node that refuses the connection fails the start at once, as it always did; a
    // Cluster or Sentinel set waits for any of its nodes until the deadline.
    const single = !(client instanceof Cluster) && !(client as Redis).options.sentinels?.length;
    if (client.status === 'wait' || client.status === 'end')
      client.connect().catch((err: Error) => (single ? done(new Error(lastError || err.message)) : onError(err)));
  });
}

export async function connectRedis(url: string, deadlineMs = REDIS_START_DEADLINE_MS): Promise<RedisClient> {
  const client = redisFromUrl(url);
  // Errors are reported through health and metrics; an unhandled 'error' event would crash us.
  client.on('error', () => {});
  try {
    // Ready means a node answered: the master (standalone, Sentinel: after ioredis' INFO check)
    // or a node that gave the slot map (Cluster). A PING would prove no more on a Cluster, where
    // it goes to a random node, possibly the one that is down.
    await whenReady(client, deadlineMs);
  } catch (err) {
    client.disconnect();
    throw new RedisUnavailableError(`REDIS_URL is set but Redis is unreachable (${safeTarget(url)}): ${(err as Error).message}`);
  }
  return client;
}

/** Topology and hosts of a Redis URL without credentials, for messages and logs. */
export function safeTarget(url: string): string {
  return describeRedisTarget(url);
}

export { isRedisUp, watchRedis, redisHealth } from './redis-health.js';
