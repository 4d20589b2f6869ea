// One ioredis connection (standalone, Sentinel or Cluster, from REDIS_URL) shared by the response
// cache, the playground allowance and the replay log. Start-up fails loudly when Redis is
// unreachable; once running, commands fail fast while Redis is down (no offline queue) and the
// client reconnects by itself.
import { Redis, Cluster, type RedisOptions } from 'ioredis';

export type RedisClient = Redis | Cluster;

export class RedisUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisUnavailableError';
  }
}

const COMMON: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  commandTimeout: 1000,
  lazyConnect: true,
  retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), 2000),
};

/** Parses redis://, rediss://, redis-sentinel://host:port,host:port/masterName and redis-cluster://host:port,host:port. */
export function redisFromUrl(url: string): RedisClient {
  const u = new URL(url);
  const auth = { username: decodeURIComponent(u.username) || undefined, password: decodeURIComponent(u.password) || undefined };
  const hosts = (spec: string) => spec.split(',').map((hp) => {
    const [host, port] = hp.split(':');
    return { host: host || '127.0.0.1', port: Number(port || 6379) };
  });
  if (u.protocol === 'redis-cluster:') {
    const nodes = hosts(url.replace(/^redis-cluster:\/\/(?:[^@]*@)?/, '').split('/')[0]!);
    return new Cluster(nodes, { enableOfflineQueue: false, lazyConnect: true, redisOptions: { ...COMMON, ...auth }, clusterRetryStrategy: COMMON.retryStrategy });
  }
  if (u.protocol === 'redis-sentinel:') {
    const rest = url.replace(/^redis-sentinel:\/\/(?:[^@]*@)?/, '');
    const [spec, name] = rest.split('/');
    return new Redis({ ...COMMON, ...auth, sentinels: hosts(spec!), name: name || 'mymaster' });
  }
  return new Redis(url, COMMON);
}

export async function connectRedis(url: string): Promise<RedisClient> {
  const client = redisFromUrl(url);
  // Errors are reported through health and metrics; an unhandled 'error' event would crash us.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    throw new RedisUnavailableError(`REDIS_URL is set but Redis is unreachable (${safeTarget(url)}): ${(err as Error).message}`);
  }
  return client;
}

/** Clients whose last health PING got no answer in time (a hung server keeps its sockets open). */
const unresponsive = new WeakSet<RedisClient>();

/**
 * PINGs Redis every `intervalMs` while connected. A PING that fails while ioredis still says
 * 'ready' (no answer within the command timeout: a hung or overloaded server) marks the client
 * down for isRedisUp until a PING succeeds again, so the cache, the allowance and the replay log
 * stop waiting on it and readiness reports it. Returns the stop function.
 */
export function watchRedis(client: RedisClient, intervalMs = 1000): () => void {
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight || client.status !== 'ready') return;
    inFlight = true;
    client.ping().then(
      () => unresponsive.delete(client),
      () => {
        if (client.status === 'ready') unresponsive.add(client);
      },
    ).finally(() => {
      inFlight = false;
    });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Ready, answering health PINGs (see watchRedis) and, for a single connection, still writable: a Redis that just died has sent FIN before
 * ioredis sees 'close', and for that moment the status still says 'ready' while every command
 * fails with "Stream isn't writeable".
 */
export function isRedisUp(client: RedisClient): boolean {
  if (client.status !== 'ready' || unresponsive.has(client)) return false;
  const stream = (client as { stream?: { writable?: boolean } }).stream;
  return !stream || stream.writable !== false;
}

/** host:port of a Redis URL without credentials, for messages and logs. */
export function safeTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'invalid URL';
  }
}
