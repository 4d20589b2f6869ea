// Connecting and subscribing while the first node of a multi-host REDIS_URL is down: a Cluster
// whose first seed (a master without a replica, its slots unserved) was killed, and a Sentinel
// set-up whose first sentinel was killed. Start-up must neither hang nor depend on which node a
// client happens to pick, and a subscription must end up on a node that answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason, startTestCluster, startTestSentinel, type TestCluster, type TestSentinel } from '../support/redis-cluster.js';
import { connectRedis, REDIS_START_DEADLINE_MS, RedisUnavailableError, type RedisClient } from '../../cache/redis-connection.js';
import { freePort } from '../../scripts/harness/redis-server.js';
import { subscribeChannels, type RedisSubscription } from '../../cache/redis-subscription.js';
import { eventually } from '../../scripts/harness/eventually.js';

const problem = clusterSkipReason('Redis Cluster/Sentinel');

/** Connects `n` clients one after the other, each within the start deadline (a hang fails the test). */
async function connectMany(url: string, n: number): Promise<RedisClient[]> {
  const clients: RedisClient[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = Date.now();
    const c = await Promise.race([
      connectRedis(url),
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`connect ${i} still pending after ${REDIS_START_DEADLINE_MS + 2000} ms`)),
          REDIS_START_DEADLINE_MS + 2000,
        ),
      ),
    ]);
    expect(Date.now() - t0).toBeLessThan(REDIS_START_DEADLINE_MS + 500);
    clients.push(c);
  }
  return clients;
}

/** `n` subscriptions on one channel; returns how many received a message published after they started. */
async function subscribersReached(clients: RedisClient[], publisher: RedisClient): Promise<number> {
  const got = new Set<number>();
  const subs: RedisSubscription[] = [];
  try {
    for (const [i, c] of clients.entries()) {
      subs.push(await subscribeChannels(c, ['epg:test:seed-down'], { onMessage: () => got.add(i), onError: () => {} }));
    }
    // Subscriptions that failed on the dead node are retried in the background. A publish that
    // fails (sent to the dead node before the client learns it is gone) is tried again within the
    // wait: thrown, it would end the wait at once (eventually passes errors through).
    await eventually(
      async () => {
        if (
          !(await publisher.publish('epg:test:seed-down', 'hello').then(
            () => true,
            () => false,
          ))
        )
          return false;
        await new Promise((r) => setTimeout(r, 100));
        return got.size === clients.length;
      },
      10_000,
      200,
    ).catch(() => {});
    return got.size;
  } finally {
    for (const s of subs) s.close();
  }
}

describe.skipIf(problem)('Redis Cluster: the first seed node down', () => {
  let cluster: TestCluster;
  const clients: RedisClient[] = [];
  beforeAll(async () => {
    cluster = await startTestCluster();
    await cluster.kill(0);
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await cluster?.stop();
  });

  it('every connect returns within the start deadline, whichever node a client picks first', async () => {
    // ioredis picks a random node for keyless commands; 8 clients make a lucky pass unlikely.
    clients.push(...(await connectMany(cluster.url, 8)));
    for (const c of clients) expect(c.status).toBe('ready');
  }, 120_000);

  it('every subscription ends up on a node that answers and receives what is published', async () => {
    const publisher = clients[0] ?? (await connectMany(cluster.url, 1))[0]!;
    // Each subscription duplicates the client and picks a node at random: 8 of them would miss the dead one by luck only rarely.
    const subscribers = Array(8).fill(publisher);
    expect(await subscribersReached(subscribers, publisher)).toBe(8);
  }, 60_000);
});

describe.skipIf(problem)('Redis Sentinel: the first sentinel down', () => {
  let sentinel: TestSentinel;
  let clients: RedisClient[] = [];
  beforeAll(async () => {
    sentinel = await startTestSentinel();
    await sentinel.killSentinel(0);
  }, 90_000);
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await sentinel?.stop();
  });

  it('connects through the next sentinel and subscribes', async () => {
    clients = await connectMany(sentinel.url, 3);
    for (const c of clients) expect(c.status).toBe('ready');
    expect(await subscribersReached(clients.slice(1), clients[0]!)).toBe(clients.length - 1);
  }, 60_000);
});

describe('no node answers', () => {
  it('redis (one node): a refused connection fails the start at once', async () => {
    const err = await connectRedis(`redis://127.0.0.1:${await freePort()}`, 5000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as Error).message).toMatch(/Redis is unreachable .*ECONNREFUSED/);
  });

  it.each(['redis-cluster', 'redis-sentinel'])('%s: the start gives up at the deadline with the last error', async (scheme) => {
    const [p1, p2] = [await freePort(), await freePort()];
    const url = `${scheme}://127.0.0.1:${p1},127.0.0.1:${p2}${scheme === 'redis-sentinel' ? '/mymaster' : ''}`;
    const t0 = Date.now();
    const err = await connectRedis(url, 800).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as Error).message).toMatch(/Redis is unreachable .*no node answered within 800 ms/);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
