// How app.ts composes the capabilities: each capability sets itself up once per process and hands
// out the plugins for each environment's listener.
import type { ServerConfig } from '../config.js';
import type { EnvironmentName, HttpPlugin } from '../http/plugin.js';
import type { Logger } from '../../lib/logger.js';
import type { RedisClient } from '../../cache/redis-connection.js';
import type { GatewayMesh } from '../../mesh/gateway-mesh.js';
import type { InstanceBus } from '../../cache/instance-registry.js';
import type { PurgeResult, PurgeTarget } from '../../cache/response-cache.js';
import type { ReplayStore } from '../../stores/replay-store.js';

export interface WiringContext {
  config: ServerConfig;
  logger: Logger;
  /** Null when REDIS_URL is not set: each capability then uses its embedded store. */
  redis: RedisClient | null;
  /** Messages to every instance sharing Redis (purges, key changes), with acknowledgements; null without Redis. */
  bus: InstanceBus | null;
  mesh: GatewayMesh;
}

export interface Capability {
  name: string;
  /** Plugins for one listener, in the order they should run. */
  plugins(environment: EnvironmentName): HttpPlugin[];
  /** Merged into /readyz details; ok=false marks the gateway degraded. */
  health?(): { ok: boolean; details: Record<string, unknown> };
  /** The response cache's purge, for an admin listener in a process of its own (the cache capability). */
  purgeCache?(target: PurgeTarget): Promise<PurgeResult>;
  /** The replay store, for the support endpoint's search and reruns (the cache capability; null when off). */
  replay?: ReplayStore | null;
  close?(): Promise<void> | void;
}

export type CapabilitySetup = (ctx: WiringContext) => Promise<Capability>;
