// Under `npm start` the keyless playground runs in a process of its own, at a lower CPU priority
// (PLAYGROUND_PROCESS, on by default; PLAYGROUND_NICE). A flood of playground requests then
// competes with partners' requests only through the kernel's scheduler, which favours the keyed
// process, instead of queueing on the keyed environments' event loop, heap and garbage collector.
// How it is started, supervised and lowered: server/child-process.ts.
import type { EnvironmentName } from './http/plugin.js';

export interface PlaygroundProcessSettings {
  enabled: boolean;
  /** /metrics and /healthz of the playground process (OPS_PORT stays the keyed process's). */
  opsPort: number;
  /** Niceness of the playground process (0 = same priority as the keyed environments). */
  nice: number;
  /** Cluster workers of the playground process (PLAYGROUND_WORKERS; its WORKERS). */
  workers: number;
}

/** The environments this process keeps when the playground moves out; null when it stays. */
export function keyedEnvironments(settings: PlaygroundProcessSettings, environments: readonly EnvironmentName[]): EnvironmentName[] | null {
  const keyed = environments.filter((e) => e !== 'playground');
  return settings.enabled && keyed.length > 0 && keyed.length < environments.length ? keyed : null;
}

/**
 * The playground process's environment: the parent's, serving the playground only, on the feeds
 * the parent uses, with its own ops port and no admin endpoint (that stays with the parent).
 */
export function playgroundProcessEnv(env: NodeJS.ProcessEnv, upstreamUrl: string, settings: PlaygroundProcessSettings): NodeJS.ProcessEnv {
  return {
    ...env,
    ENVIRONMENTS: 'playground',
    PLAYGROUND_PROCESS: 'off',
    UPSTREAM_URL: upstreamUrl,
    START_REFERENCE_UPSTREAM: 'false',
    OPS_PORT: String(settings.opsPort),
    ADMIN_TOKEN: '',
    PLAYGROUND_CHILD_NICE: String(settings.nice),
    WORKERS: String(settings.workers),
  };
}
