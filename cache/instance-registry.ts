// Which gateway instances share this Redis, and messages to all of them (cache purges, key
// changes) with a truthful count of who applied each. PUBLISH's own count is only the subscribers
// on the node that took the message (one node of a Cluster), so instead:
//
// - each instance heartbeats into a registry per topic it serves (a sorted set, score = last beat
//   in ms); an instance not heard from for STALE_MS is gone (crashed, or cut off from Redis);
// - each message carries an id; an instance that handled it adds its own id to the message's
//   short-lived set of acknowledgements, or of refusals when it could not apply it (its keys file
//   does not show the change, say);
// - the sender (announce) counts the live instances, publishes, and waits briefly until each of
//   them answered.
//
// One InstanceBus per process holds the heartbeat and one subscription for every topic; the
// capabilities serve the topics they handle.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from './redis-health.js';
import { subscribeChannels, type RedisSubscription } from './redis-subscription.js';

interface Topic {
  /** For logs. */
  name: string;
  /** Pub/sub channel of its messages. */
  channel: string;
  /** Sorted set of the instances serving it (member: instance id, score: last heartbeat, ms). */
  registry: string;
  /** Prefix of a message's acknowledgement set (then its id); refusals add `:refused`. */
  acks: string;
}

// The purge topic keeps the names instances used before topics existed, so a rolling deploy counts right.
export const PURGE_TOPIC: Topic = {
  name: 'cache purge',
  channel: 'epg:cache:purge',
  registry: 'epg:instances',
  acks: 'epg:cache:purge-acks:',
};
export const KEYS_TOPIC: Topic = {
  name: 'key change',
  channel: 'epg:keys:changed',
  registry: 'epg:instances:keys',
  acks: 'epg:keys:acks:',
};
const TOPICS: Topic[] = [PURGE_TOPIC, KEYS_TOPIC];

const HEARTBEAT_MS = 5000;
/** An instance not heard from for this long is gone (crashed, or partitioned from Redis). */
export const STALE_MS = 3 * HEARTBEAT_MS;
/** How long announce() waits for the answers of the live instances. */
export const ANSWER_WAIT_MS = 2000;
const ACK_TTL_MS = 60_000;
const MESSAGE_ID = /^[0-9a-f-]{36}$/;

const ackKey = (topic: Topic, id: string) => `${topic.acks}${id}`;
const refusedKey = (topic: Topic, id: string) => `${topic.acks}${id}:refused`;

async function liveInstances(redis: RedisClient, topic: Topic): Promise<number> {
  return Number(await redis.zcount(topic.registry, Date.now() - STALE_MS, '+inf')) || 0;
}

export interface Reach {
  /** Instances that applied the message. */
  applied: number;
  /** Instances that answered they could not apply it. */
  refused: number;
  /** Instances registered as live when it was sent. */
  live: number;
}

/**
 * Publishes `message` on the topic and waits up to `waitMs` until every live instance answered.
 * Used by the gateway (admin purge) and the CLIs (`npm run cache -- purge`, `npm run keys`).
 */
export async function announce(
  redis: RedisClient,
  topic: Topic,
  message: Record<string, unknown>,
  waitMs = ANSWER_WAIT_MS,
): Promise<Reach> {
  const id = randomUUID();
  const live = await liveInstances(redis, topic);
  await redis.publish(topic.channel, JSON.stringify({ ...message, id }));
  const until = Date.now() + waitMs;
  for (;;) {
    const [applied, refused] = (await Promise.all([redis.scard(ackKey(topic, id)), redis.scard(refusedKey(topic, id))])).map(
      (n) => Number(n) || 0,
    ) as [number, number];
    if (applied + refused >= live || Date.now() >= until) return { applied, refused, live };
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Handles one message: true = applied, false = could not apply it (both are answered to the sender). */
type TopicHandler = (message: Record<string, unknown>) => boolean | Promise<boolean>;

export class InstanceBus {
  readonly id = randomUUID();
  private readonly handlers = new Map<Topic, TopicHandler[]>();
  private readonly resubscribed: (() => void)[] = [];
  private subscription: RedisSubscription | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(
    private readonly redis: RedisClient,
    private readonly onError: (err: unknown, what: string) => void,
  ) {}

  /** Subscribes (waiting a bounded time; retried in the background) and starts the heartbeat. */
  static async open(redis: RedisClient, onError: (err: unknown, what: string) => void): Promise<InstanceBus> {
    const bus = new InstanceBus(redis, onError);
    bus.subscription = await subscribeChannels(
      redis,
      TOPICS.map((t) => t.channel),
      {
        onMessage: (channel, message) => void bus.dispatch(channel, message),
        onError: (err) => onError(err, 'instance bus subscription'),
        onSubscribed: () => {
          for (const f of bus.resubscribed) f();
        },
      },
    );
    bus.timer = setInterval(() => void bus.beat(), HEARTBEAT_MS);
    bus.timer.unref();
    return bus;
  }

  /**
   * This instance serves `topic`: it counts among the topic's live instances from now on and its
   * messages go to `handler` (several handlers of one topic must all apply a message). `onSubscribed`
   * runs after each (re)subscription, since messages published meanwhile were missed.
   */
  serve(topic: Topic, handler: TopicHandler, onSubscribed?: () => void): void {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), handler]);
    if (onSubscribed) this.resubscribed.push(onSubscribed);
    void this.beat();
  }

  /** Whether the subscription went through (messages are received). */
  get subscribed(): boolean {
    return this.subscription?.active ?? false;
  }

  private async beat(): Promise<void> {
    if (this.closed) return;
    const now = Date.now();
    await Promise.all(
      [...this.handlers.keys()].map((topic) =>
        this.redis
          .zadd(topic.registry, now, this.id)
          .then(() => this.redis.zremrangebyscore(topic.registry, '-inf', now - STALE_MS))
          .catch((err) => this.onError(err, 'instance heartbeat')),
      ),
    );
  }

  private async dispatch(channel: string, raw: string): Promise<void> {
    const topic = TOPICS.find((t) => t.channel === channel);
    const handlers = topic && this.handlers.get(topic);
    if (!topic || !handlers?.length) return;
    let message: Record<string, unknown>;
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return;
      message = parsed as Record<string, unknown>;
    } catch {
      return;
    }
    let applied = true;
    for (const handle of handlers) {
      try {
        applied = (await handle(message)) && applied;
      } catch (err) {
        applied = false;
        this.onError(err, `${topic.name} message`);
      }
    }
    // Message ids are ours (a UUID): nothing else becomes part of a key name.
    const id = message.id;
    if (this.closed || typeof id !== 'string' || !MESSAGE_ID.test(id)) return;
    const key = applied ? ackKey(topic, id) : refusedKey(topic, id);
    await this.redis
      .multi()
      .sadd(key, this.id)
      .pexpire(key, ACK_TTL_MS)
      .exec()
      .catch((err) => this.onError(err, `${topic.name} acknowledgement`));
  }

  /** Leaves every registry (the instance is no longer counted) and unsubscribes. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.subscription?.close();
    await Promise.all([...this.handlers.keys()].map((topic) => this.redis.zrem(topic.registry, this.id).catch(() => {})));
  }
}
