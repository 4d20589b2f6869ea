// Which gateway instances share this Redis, so a purge can say truthfully how many applied it.
// PUBLISH's own count is only the subscribers on the node that took the message (one node of a
// Cluster), so instead each instance heartbeats into a sorted set (score = last beat, ms) and
// acknowledges every purge message it applied into a short-lived set named by the purge's id;
// the purger waits briefly until every live instance has acknowledged.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from './redis-health.js';

export const INSTANCES_KEY = 'epg:instances';
export const HEARTBEAT_MS = 5000;
/** An instance not heard from for this long is gone (crashed, or partitioned from Redis). */
export const STALE_MS = 3 * HEARTBEAT_MS;
const ACK_TTL_MS = 60_000;

export const ackKey = (purgeId: string) => `epg:cache:purge-acks:${purgeId}`;

export function newInstanceId(): string {
  return randomUUID();
}

/** Beats now and every HEARTBEAT_MS until stopped; on stop the instance leaves the registry. */
export function startHeartbeat(redis: RedisClient, id: string, onError: (err: unknown) => void): () => Promise<void> {
  const beat = () => redis.zadd(INSTANCES_KEY, Date.now(), id)
    .then(() => redis.zremrangebyscore(INSTANCES_KEY, '-inf', Date.now() - STALE_MS))
    .catch(onError);
  void beat();
  const timer = setInterval(() => void beat(), HEARTBEAT_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await redis.zrem(INSTANCES_KEY, id).catch(() => {});
  };
}

export async function liveInstances(redis: RedisClient): Promise<number> {
  return Number(await redis.zcount(INSTANCES_KEY, Date.now() - STALE_MS, '+inf')) || 0;
}

export async function acknowledgePurge(redis: RedisClient, purgeId: string, instanceId: string): Promise<void> {
  await redis.multi().sadd(ackKey(purgeId), instanceId).pexpire(ackKey(purgeId), ACK_TTL_MS).exec();
}

/** Polls the acknowledgements of a purge until `expected` arrived or `waitMs` passed; returns how many did. */
export async function awaitAcks(redis: RedisClient, purgeId: string, expected: number, waitMs: number): Promise<number> {
  const until = Date.now() + waitMs;
  for (;;) {
    const acked = Number(await redis.scard(ackKey(purgeId))) || 0;
    if (acked >= expected || Date.now() >= until) return acked;
    await new Promise((r) => setTimeout(r, 25));
  }
}
