// Settings of the upstream fetch layer (retries, breaker, dedup, stale-if-error, body bounds),
// declared here as the config they fill and read once when the fetch is created. A bad value stops
// start-up with a message naming the variable, like every other setting.
//
// Read from `process.env` unless the caller passes an env (createUpstreamFetch({ env })).
import type { z } from 'zod';
import { ConfigError } from '../../lib/env-reader.js';
import { kinds as k, readSettings, setting, settingsSchema } from '../../lib/settings.js';

const MiB = 1024 * 1024;

export const upstreamSettings = settingsSchema({
  /** Timeout of calls made outside a feed scope (feeds carry their own `timeoutMs`). */
  defaultTimeoutMs: setting(
    'UPSTREAM_TIMEOUT_MS',
    k.int(10, 600_000),
    5000,
    'timeout of calls outside a feed (feeds carry their own timeoutMs)',
  ),
  /** Extra attempts after the first, for idempotent requests (GET/HEAD) only. */
  retries: setting('UPSTREAM_RETRIES', k.int(0, 5), 2, 'extra attempts of idempotent feed calls (GET/HEAD), inside the feed timeout'),
  /** Full-jitter backoff: attempt n waits random(0, min(maxDelay, base * 2^n)). */
  retryBaseDelayMs: setting('UPSTREAM_RETRY_BASE_MS', k.int(0, 60_000), 50, 'full-jitter backoff base'),
  retryMaxDelayMs: setting('UPSTREAM_RETRY_MAX_DELAY_MS', k.int(0, 60_000), 1000, 'full-jitter backoff cap'),
  /**
   * Cap of one attempt; 0 = the whole remaining feed budget. With 0, a timeout ends the call (the
   * budget is spent); set it below the feed timeout to retry a hung attempt within the budget.
   */
  attemptTimeoutMs: setting(
    'UPSTREAM_ATTEMPT_TIMEOUT_MS',
    k.int(0, 600_000),
    0,
    'cap of one attempt (0 = the whole remaining feed budget)',
  ),
  breaker: {
    enabled: setting('UPSTREAM_BREAKER', k.bool(), true, 'circuit breaker per feed'),
    /** Opens when more than this percentage of calls in the rolling window failed... */
    errorThresholdPercentage: setting(
      'UPSTREAM_BREAKER_ERROR_PERCENT',
      k.int(1, 100),
      50,
      'the breaker opens above this share of failed calls in its window...',
    ),
    /** ...and at least this many calls were made in the window. */
    volumeThreshold: setting('UPSTREAM_BREAKER_MIN_CALLS', k.int(1, 10_000), 5, '...once at least this many calls were made in the window'),
    rollingWindowMs: setting('UPSTREAM_BREAKER_WINDOW_MS', k.int(100, 3_600_000), 10_000, 'rolling window of the breaker'),
    /** Open -> half-open (one trial call) after this long. */
    resetTimeoutMs: setting('UPSTREAM_BREAKER_RESET_MS', k.int(10, 3_600_000), 5000, 'open to half-open (one trial call) after this long'),
  },
  /** Share one upstream call between identical concurrent GETs. */
  dedup: setting('UPSTREAM_DEDUP', k.bool(), true, 'share one upstream call between identical concurrent GETs'),
  /** Serve the last good copy (at most this old) when a feed fails; 0 disables. */
  staleIfErrorSeconds: setting(
    'STALE_IF_ERROR_SECONDS',
    k.int(0, 7 * 86_400),
    3600,
    "serve a feed's last good answer, at most this old, when it fails (0 = off)",
  ),
  staleMaxEntries: setting('STALE_IF_ERROR_MAX_ENTRIES', k.int(1, 1_000_000), 2000, 'last good answers kept'),
  staleMaxBytes: setting('STALE_IF_ERROR_MAX_BYTES', k.int(1024, 4 * 1024 * MiB), 32 * MiB, 'bytes of last good answers kept'),
  /** Upstream bodies larger than this are refused (memory bound against a hostile feed). */
  maxBodyBytes: setting('UPSTREAM_MAX_BODY_BYTES', k.int(1024, 1024 * MiB), 8 * MiB, 'upstream bodies larger than this are refused'),
  /** Keep-alive pool size per upstream origin. */
  connections: setting('UPSTREAM_CONNECTIONS', k.int(1, 10_000), 64, 'keep-alive pool size per upstream origin'),
});

export type UpstreamSettings = z.output<typeof upstreamSettings>;

/** The upstream settings of an environment; throws a ConfigError naming each bad variable. */
export function loadUpstreamSettings(env: NodeJS.ProcessEnv = process.env): UpstreamSettings {
  const problems: string[] = [];
  const settings = readSettings(upstreamSettings, env, problems);
  if (!settings || problems.length) throw new ConfigError(problems);
  return settings;
}
