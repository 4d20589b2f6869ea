// How healthy the shared Redis is, as the stores need to know it before each command (so they fail
// fast instead of waiting on a timeout) and as /readyz and gateway_redis_up report it.
//
// - Standalone and Sentinel: one connection. Down when ioredis is not 'ready', when its socket is
//   no longer writable, or when the last health PING got no answer (a hung server).
// - Cluster: a PING to any node proves nothing about the others, so each master of the slot map
//   is probed on a connection of its own, and CLUSTER INFO says whether the cluster serves at all.
//   A key whose slot's master is down is not sent (canReach), and a command that fails on a
//   connection error marks its master down at once (noteRedisFailure) until a probe answers again.
//   A probe that merely times out must do so twice in a row (a loaded machine is not an outage).
import { Redis, Cluster, type RedisOptions } from 'ioredis';
import calculateSlot from 'cluster-key-slot';

export type RedisClient = Redis | Cluster;

interface RedisHealth {
  state: 'up' | 'partial' | 'down';
  /** Which part is missing, for /readyz (no addresses: readiness is public). */
  detail?: string;
}

interface ClusterWatch {
  /** host:port of masters that did not answer their last probe or failed a command since. */
  down: Set<string>;
  /** Masters in the slot map at the last probe. */
  masters: number;
  /** CLUSTER INFO cluster_state of the answering masters: 'fail' when any says so. */
  state: 'ok' | 'fail' | 'unknown';
}

const unresponsive = new WeakSet<RedisClient>();
const clusters = new WeakMap<Cluster, ClusterWatch>();

const isCluster = (c: RedisClient): c is Cluster => c instanceof Cluster;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
export { withTimeout as redisDeadline };

function slotMap(c: Cluster): (string[] | undefined)[] {
  return (c as unknown as { slots: (string[] | undefined)[] }).slots ?? [];
}

/** host:port of each master in the slot map. */
function mastersOf(c: Cluster): Set<string> {
  const masters = new Set<string>();
  for (const nodes of slotMap(c)) if (nodes?.[0]) masters.add(nodes[0]);
  return masters;
}

function masterOf(c: Cluster, key: string): string | undefined {
  return slotMap(c)[calculateSlot(key)]?.[0];
}

function standaloneUp(client: RedisClient): boolean {
  if (client.status !== 'ready' || unresponsive.has(client)) return false;
  const stream = (client as { stream?: { writable?: boolean } }).stream;
  return !stream || stream.writable !== false;
}

/** Everything up: every master answering and the cluster serving every slot. */
export function isRedisUp(client: RedisClient): boolean {
  return redisHealth(client).state === 'up';
}

export function redisHealth(client: RedisClient): RedisHealth {
  if (!isCluster(client)) return standaloneUp(client) ? { state: 'up' } : { state: 'down', detail: 'not connected or not answering' };
  const w = clusters.get(client);
  if (client.status !== 'ready') return { state: 'down', detail: 'cluster not connected' };
  if (!w) return { state: 'up' };
  if (w.state === 'fail') return { state: 'down', detail: 'cluster_state fail (slots not served)' };
  if (w.down.size === 0) return { state: 'up' };
  // A master lost before the first probe has counted them (in the first interval after a start)
  // is one of the slot map's, not all of none.
  const masters = w.masters || mastersOf(client).size;
  if (w.down.size >= masters) return { state: 'down', detail: 'no master answering' };
  return { state: 'partial', detail: `${w.down.size} of ${masters} masters not answering` };
}

/** Whether a command on `key` can be sent now without waiting on a part known to be down. */
export function canReach(client: RedisClient, key: string): boolean {
  if (!isCluster(client)) return standaloneUp(client);
  if (client.status !== 'ready') return false;
  const w = clusters.get(client);
  if (!w) return true;
  if (w.state === 'fail') return false;
  const master = masterOf(client, key);
  return master === undefined || !w.down.has(master);
}

// A closed or refused connection is certain; a slow answer is not (a loaded machine): timeouts are
// left to the probes, which need two misses in a row.
const CONNECTION_TROUBLE =
  /Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|EPIPE|CLUSTERDOWN|Too many Cluster redirections|Cluster is ended/i;
const MISSES_TO_MARK_DOWN = 2;

/** A command on `key` failed: when the failure says the node is unreachable, stop sending to it until a probe answers. */
export function noteRedisFailure(client: RedisClient, key: string, err: unknown): void {
  if (!isCluster(client) || !CONNECTION_TROUBLE.test((err as Error)?.message ?? '')) return;
  const master = masterOf(client, key);
  const w = clusters.get(client);
  if (master && w) w.down.add(master);
}

/**
 * Health probes every `intervalMs` (see the header). Returns the stop function. For a standalone
 * or Sentinel client a PING that fails while ioredis still says 'ready' (no answer within the
 * command timeout) marks the client down until a PING succeeds again.
 */
export function watchRedis(client: RedisClient, intervalMs = 1000): () => void {
  if (isCluster(client)) return watchCluster(client, intervalMs);
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight || client.status !== 'ready') return;
    inFlight = true;
    client
      .ping()
      .then(
        () => unresponsive.delete(client),
        () => {
          if (client.status === 'ready') unresponsive.add(client);
        },
      )
      .finally(() => {
        inFlight = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

function watchCluster(cluster: Cluster, intervalMs: number): () => void {
  const w: ClusterWatch = { down: new Set(), masters: 0, state: 'unknown' };
  clusters.set(cluster, w);
  const probes = new Map<string, Redis>();
  const misses = new Map<string, number>();
  const base = (cluster.options.redisOptions ?? {}) as RedisOptions;
  const probeFor = (key: string): Redis => {
    let p = probes.get(key);
    if (!p) {
      const at = key.lastIndexOf(':');
      p = new Redis({
        host: key.slice(0, at),
        port: Number(key.slice(at + 1)),
        username: base.username,
        password: base.password,
        tls: base.tls,
        connectTimeout: intervalMs,
        commandTimeout: intervalMs,
        maxRetriesPerRequest: 0,
        retryStrategy: () => Math.min(intervalMs, 500),
      });
      p.on('error', () => {});
      probes.set(key, p);
    }
    return p;
  };
  // ioredis drops a node's connection from its pool when it ends (the node died): certain, at once.
  const onNodeLost = (node: Redis) => {
    const key = `${node.options.host}:${node.options.port}`;
    if (slotMap(cluster).some((nodes) => nodes?.[0] === key)) w.down.add(key);
  };
  cluster.on('-node', onNodeLost);
  let inFlight = false;
  const probe = async () => {
    const masters = mastersOf(cluster);
    for (const [key, p] of probes)
      if (!masters.has(key)) {
        p.disconnect();
        probes.delete(key);
      }
    let fail = false;
    await Promise.all(
      [...masters].map(async (key) => {
        try {
          const info = await withTimeout(probeFor(key).cluster('INFO') as Promise<string>, intervalMs);
          if (/cluster_state:fail/.test(info)) fail = true;
          w.down.delete(key);
          misses.delete(key);
        } catch (err) {
          const n = (misses.get(key) ?? 0) + 1;
          misses.set(key, n);
          // A refused connection is certain at once; a probe that timed out must miss twice.
          if (n >= MISSES_TO_MARK_DOWN || CONNECTION_TROUBLE.test((err as Error)?.message ?? '')) w.down.add(key);
        }
      }),
    );
    for (const key of w.down) if (!masters.has(key)) w.down.delete(key);
    for (const key of misses.keys()) if (!masters.has(key)) misses.delete(key);
    w.masters = masters.size;
    w.state = masters.size === 0 ? 'unknown' : fail ? 'fail' : 'ok';
  };
  const timer = setInterval(() => {
    if (inFlight || cluster.status !== 'ready') return;
    inFlight = true;
    void probe().finally(() => {
      inFlight = false;
    });
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    cluster.off('-node', onNodeLost);
    for (const p of probes.values()) p.disconnect();
    probes.clear();
  };
}
