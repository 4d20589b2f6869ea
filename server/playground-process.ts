// Under `npm start` the keyless playground runs in a process of its own, at a lower CPU priority
// (PLAYGROUND_PROCESS, on by default; PLAYGROUND_NICE). A flood of playground requests then
// competes with partners' requests only through the kernel's scheduler, which favours the keyed
// process, instead of queueing on the keyed environments' event loop, heap and garbage collector.
// How it is started, supervised and lowered: server/child-process.ts.
import type { EnvironmentName } from './http/plugin.js';
import type { ServerConfig } from './config.js';

/** PLAYGROUND_PROCESS, PLAYGROUND_OPS_PORT, PLAYGROUND_NICE and PLAYGROUND_WORKERS (server/gateway-settings.ts). */
type PlaygroundProcessSettings = ServerConfig['playgroundProcess'];

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
