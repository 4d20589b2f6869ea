// Fail fast on a real 3-master Redis Cluster: a hung master costs at most the store's
// deadline, then nothing (its keys are not sent until a probe answers); a master that died is
// marked by the first failed command; keys on the other masters keep working throughout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason, slotOwners, startTestCluster, type TestCluster } from '../support/redis-cluster.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { connectRedis, type RedisClient } from '../../cache/redis-connection.js';
import { canReach, isRedisUp, redisHealth, watchRedis } from '../../cache/redis-health.js';
import { ALLOWANCE_DEADLINE_MS, allowanceKey, RedisAllowanceStore } from '../../cache/allowance.js';

const problem = clusterSkipReason('Redis Cluster');

describe.skipIf(problem)('Redis Cluster health and fail-fast', () => {
  let cluster: TestCluster;
  let client: RedisClient;
  let ipOn: (master: number) => string;

  beforeAll(async () => {
    cluster = await startTestCluster();
    const owner = slotOwners(cluster);
    const ips = Array.from({ length: 60 }, (_, i) => `192.0.2.${i + 1}`);
    ipOn = (m) => ips.find((ip) => owner(allowanceKey(ip)) === m)!;
  }, 60_000);
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('a hung master: the first calls give up at the deadline, then its keys fail at once; other keys count; back when it answers', async () => {
    client = await connectRedis(cluster.url);
    const stop = watchRedis(client, 200);
    const store = new RedisAllowanceStore(client, 5);
    try {
      expect(await store.consume(ipOn(1))).toMatchObject({ allowed: true });
      await eventually(async () => isRedisUp(client));
      cluster.pause(1);
      await expect(store.consume(ipOn(1))).rejects.toThrow(new RegExp(`timed out after ${ALLOWANCE_DEADLINE_MS} ms|not answering`));
      await eventually(async () => redisHealth(client).state === 'partial');
      expect(redisHealth(client).detail).toBe('1 of 3 masters not answering');
      // Not sent at all: the fail-fast message, not a timeout.
      await expect(store.consume(ipOn(1))).rejects.toThrow(/not connected or not answering/);
      expect(await store.consume(ipOn(0))).toMatchObject({ allowed: true, used: 1 });
      expect(await store.consume(ipOn(2))).toMatchObject({ allowed: true, used: 1 });
    } finally {
      cluster.resume(1);
    }
    await eventually(async () => isRedisUp(client), 10_000);
    // The call that timed out was still counted once the master woke up: a lost answer, never an extra call.
    const after = await store.consume(ipOn(1));
    expect(after.allowed).toBe(true);
    expect([2, 3]).toContain(after.used);
    stop();
    client.disconnect();
  }, 30_000);

  it('a master that died is marked at once (its connection ended, or its first failed command), before any probe', async () => {
    client = await connectRedis(cluster.url);
    // A probe interval longer than the test: only per-command failures can mark the master.
    const stop = watchRedis(client, 60_000);
    const store = new RedisAllowanceStore(client, 5);
    const key = allowanceKey(ipOn(2));
    try {
      await cluster.kill(2);
      await expect(store.consume(ipOn(2))).rejects.toThrow(/allowance store \(Redis\) unavailable/);
      await eventually(async () => !canReach(client, key), 5000);
      // One master of three, though no probe has counted them yet.
      expect(redisHealth(client)).toEqual({ state: 'partial', detail: '1 of 3 masters not answering' });
      await expect(store.consume(ipOn(2))).rejects.toThrow(/not connected or not answering/);
      expect((await store.consume(ipOn(0))).allowed).toBe(true);
    } finally {
      await cluster.start(2);
      stop();
      client.disconnect();
    }
    await cluster.ready();
  }, 30_000);
});
