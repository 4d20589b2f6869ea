// A real Redis for a test file or describe block: started and connected in beforeAll, the client
// closed and the server stopped in afterAll.
import { afterAll, beforeAll } from 'vitest';
import { connectRedis, type RedisClient } from '../../cache/redis-connection.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';

interface TestRedisOptions {
  /** beforeAll's timeout (the config's hookTimeout when absent). */
  timeout?: number;
  /** How the client ends: 'quit' lets its pending replies arrive first. */
  close?: 'quit' | 'disconnect';
}

/** What the hooks set: read the properties inside tests and hooks, not when the file loads. */
interface RedisSuite<S> {
  redis: S;
  client: RedisClient;
}

/** What the hooks start: a single redis-server, or e.g. a Cluster (test/support/redis-cluster.ts). */
interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/** Registers the hooks for a redis-server of its own, or for what `start` starts, and returns the object they fill in. */
export function useTestRedis(options?: TestRedisOptions): RedisSuite<TestRedis>;
export function useTestRedis<S extends RedisServer>(options: TestRedisOptions, start: () => Promise<S>): RedisSuite<S>;
export function useTestRedis(options: TestRedisOptions = {}, start: () => Promise<RedisServer> = startTestRedis): RedisSuite<RedisServer> {
  const suite = {} as RedisSuite<RedisServer>;
  beforeAll(async () => {
    suite.redis = await start();
    suite.client = await connectRedis(suite.redis.url);
  }, options.timeout);
  afterAll(async () => {
    if (options.close === 'quit') await suite.client?.quit();
    else suite.client?.disconnect();
    await suite.redis?.stop();
  });
  return suite;
}
