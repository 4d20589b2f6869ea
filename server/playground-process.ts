// Under `npm start` the keyless playground runs in a process of its own, at a lower CPU priority
// (PLAYGROUND_PROCESS, on by default; PLAYGROUND_NICE). A flood of playground requests then
// competes with partners' requests only through the kernel's scheduler, which favours the keyed
// process, instead of queueing on the keyed environments' event loop, heap and garbage collector.
// How it is started, supervised and lowered: server/child-process.ts.
import { ANSWER_MEMO_BYTES } from '../sources/upstream/fetch.js';
import type { EnvironmentName } from './http/plugin.js';
import type { ServerConfig } from './config.js';

/** PLAYGROUND_PROCESS, PLAYGROUND_OPS_PORT, PLAYGROUND_NICE and PLAYGROUND_WORKERS (server/gateway-settings.ts). */
type PlaygroundProcessSettings = ServerConfig['playgroundProcess'];

/** The byte budgets the playground process keeps in its heap (each bounded by its own setting). */
export interface PlaygroundHeapBudgets {
  documentCacheBytes: number;
  persistedQueryBytes: number;
  cacheLruBytes: number;
  replayQueueBytes: number;
  /** Request bodies held at once: the listener's socket cap (0 = none) times the body limit. */
  maxConnections: number;
  bodyLimitBytes: number;
}

const MiB = 1024 * 1024;
/** What the process holds before any request: Mesh, the schema, the feeds' mappings and its code. */
const BASE_HEAP_MB = 64;
/** Sockets counted for in-flight bodies when the listener has no socket cap. */
const UNCAPPED_CONNECTIONS = 4096;

/**
 * V8 flags of the playground process, so that its memory stays bounded by its budgets instead of by
 * V8's heap growth (docs/operations.md#memory-of-the-playground-process):
 * - `--max-old-space-size`: the base heap plus every budget it keeps there; a budget that fails to
 *   hold ends in a restart of this process (supervised), never in the host's memory.
 * - `--optimize-for-size` and a smaller heap growth step: free calls of many addresses allocate much
 *   short-lived garbage; V8 would otherwise grow the heap well past what survives, and keep it.
 */
export function playgroundV8Flags(b: PlaygroundHeapBudgets): string[] {
  const bodies = (b.maxConnections || UNCAPPED_CONNECTIONS) * b.bodyLimitBytes;
  // The feed answers kept to recognise the same bytes again hold their text and parse in the heap too.
  const budgets = b.documentCacheBytes + b.persistedQueryBytes + b.cacheLruBytes + b.replayQueueBytes + bodies + ANSWER_MEMO_BYTES;
  return [`--max-old-space-size=${BASE_HEAP_MB + Math.ceil(budgets / MiB)}`, '--optimize-for-size', '--heap-growing-percent=30'];
}

/** The environments this process keeps when the playground moves out; null when it stays. */
export function keyedEnvironments(settings: PlaygroundProcessSettings, environments: readonly EnvironmentName[]): EnvironmentName[] | null {
  const keyed = environments.filter((e) => e !== 'playground');
  return settings.enabled && keyed.length > 0 && keyed.length < environments.length ? keyed : null;
}

/**
 * The playground process's environment: the parent's, serving the playground only, on the feeds
 * the parent uses, with its own ops port.
 */
export function playgroundProcessEnv(env: NodeJS.ProcessEnv, upstreamUrl: string, settings: PlaygroundProcessSettings): NodeJS.ProcessEnv {
  return {
    ...env,
    ENVIRONMENTS: 'playground',
    PLAYGROUND_PROCESS: 'off',
    UPSTREAM_URL: upstreamUrl,
    START_REFERENCE_UPSTREAM: 'false',
    OPS_PORT: String(settings.opsPort),
    PLAYGROUND_CHILD_NICE: String(settings.nice),
    WORKERS: String(settings.workers),
  };
}
