// A pub/sub subscription that survives what the shared Redis connection survives: on a connection
// of its own (a duplicate of the client), established within a bounded wait at start and retried
// in the background until it holds. On a Cluster, ioredis subscribes through one node picked at
// random from the slot map, which may be a master that is down: that attempt fails and the next
// one lands elsewhere. Once subscribed, ioredis subscribes again by itself after a reconnect (or,
// on a Cluster, on the node it moves to); `onSubscribed` runs each time, since messages published
// in between were missed.
import { redisDeadline, type RedisClient } from './redis-health.js';
import { whenReady } from './redis-connection.js';

export interface RedisSubscription {
  /** Whether the first subscription went through (afterwards ioredis keeps it). */
  readonly active: boolean;
  close(): void;
}

interface SubscribeOptions {
  onMessage(channel: string, message: string): void;
  onError(err: unknown): void;
  /** After each (re)subscription: whatever was published meanwhile was not received. */
  onSubscribed?(): void;
  /** How long the call waits for the first subscription before going on in the background. */
  waitMs?: number;
  /** Deadline of one attempt. */
  attemptMs?: number;
  /** Pause between failed attempts. */
  retryMs?: number;
}

export async function subscribeChannels(redis: RedisClient, channels: string[], opts: SubscribeOptions): Promise<RedisSubscription> {
  const attemptMs = opts.attemptMs ?? 1000;
  const retryMs = opts.retryMs ?? 250;
  let established!: () => void;
  const subscribed = new Promise<void>((resolve) => {
    established = resolve;
  });
  const sub = redis.duplicate() as RedisClient;
  sub.on('error', () => {});
  sub.on('message', (channel: string, message: string) => {
    if (channels.includes(channel)) opts.onMessage(channel, message);
  });
  let active = false;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  // A reconnect of the subscriber's connection (ioredis re-subscribes on it).
  sub.on('ready', () => {
    if (active && !closed) opts.onSubscribed?.();
  });

  const attempt = async (): Promise<void> => {
    if (closed || active) return;
    try {
      await whenReady(sub, attemptMs);
      await redisDeadline(sub.subscribe(...channels), attemptMs);
      if (closed) return;
      active = true;
      established();
      opts.onSubscribed?.();
    } catch (err) {
      if (closed) return;
      opts.onError(err);
      retry = setTimeout(() => void attempt(), retryMs);
      retry.unref();
    }
  };

  void attempt();
  let waited: NodeJS.Timeout | undefined;
  await Promise.race([
    subscribed,
    new Promise((r) => {
      waited = setTimeout(r, opts.waitMs ?? 3000);
    }),
  ]);
  clearTimeout(waited);
  return {
    get active() {
      return active;
    },
    close() {
      closed = true;
      if (retry) clearTimeout(retry);
      sub.disconnect();
    },
  };
}
