// Settings of the upstream fetch layer (retries, breaker, dedup, stale-if-error, body bounds), read
// from the environment once when the fetch is created. A bad value stops start-up with a message
// naming the variable, like every other setting (server/config.ts).
//
// Read from `process.env` unless the caller passes an env (createUpstreamFetch({ env })).
import { envReader, ConfigError } from '../../lib/env-reader.js';

export interface UpstreamSettings {
  /** Timeout of calls made outside a feed scope (feeds carry their own `timeoutMs`). */
  defaultTimeoutMs: number;
  /** Extra attempts after the first, for idempotent requests (GET/HEAD) only. UPSTREAM_RETRIES. */
  retries: number;
  /** Full-jitter backoff: attempt n waits random(0, min(maxDelay, base * 2^n)). */
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  /**
   * Cap of one attempt; 0 = the whole remaining feed budget. With 0, a timeout ends the call (the
   * budget is spent); set it below the feed timeout to retry a hung attempt within the budget.
   */
  attemptTimeoutMs: number;
  breaker: {
    enabled: boolean;
    /** Opens when more than this percentage of calls in the rolling window failed... */
    errorThresholdPercentage: number;
    /** ...and at least this many calls were made in the window. */
    volumeThreshold: number;
    rollingWindowMs: number;
    /** Open -> half-open (one trial call) after this long. */
    resetTimeoutMs: number;
  };
  /** Share one upstream call between identical concurrent GETs. */
  dedup: boolean;
  /** Serve the last good copy (at most this old) when a feed fails; 0 disables. */
  staleIfErrorSeconds: number;
  staleMaxEntries: number;
  staleMaxBytes: number;
  /** Upstream bodies larger than this are refused (memory bound against a hostile feed). */
  maxBodyBytes: number;
  /** Keep-alive pool size per upstream origin. */
  connections: number;
}

export const DEFAULT_UPSTREAM_SETTINGS: UpstreamSettings = {
  defaultTimeoutMs: 5000,
  retries: 2,
  retryBaseDelayMs: 50,
  retryMaxDelayMs: 1000,
  attemptTimeoutMs: 0,
  breaker: { enabled: true, errorThresholdPercentage: 50, volumeThreshold: 5, rollingWindowMs: 10_000, resetTimeoutMs: 5_000 },
  dedup: true,
  staleIfErrorSeconds: 3600,
  staleMaxEntries: 2000,
  staleMaxBytes: 32 * 1024 * 1024,
  maxBodyBytes: 8 * 1024 * 1024,
  connections: 64,
};

/**
 * Environment variables (all optional):
 *   UPSTREAM_TIMEOUT_MS (5000)            timeout outside a feed scope
 *   UPSTREAM_RETRIES (2)                  0-5 extra attempts for GET/HEAD
 *   UPSTREAM_RETRY_BASE_MS (50), UPSTREAM_RETRY_MAX_DELAY_MS (1000)
 *   UPSTREAM_ATTEMPT_TIMEOUT_MS (0)       0 = an attempt may use the whole remaining budget
 *   UPSTREAM_BREAKER (true)               per-feed circuit breaker on/off
 *   UPSTREAM_BREAKER_ERROR_PERCENT (50), UPSTREAM_BREAKER_MIN_CALLS (5),
 *   UPSTREAM_BREAKER_WINDOW_MS (10000), UPSTREAM_BREAKER_RESET_MS (5000)
 *   UPSTREAM_DEDUP (true)
 *   STALE_IF_ERROR_SECONDS (3600)         0 disables stale-if-error
 *   STALE_IF_ERROR_MAX_ENTRIES (2000), STALE_IF_ERROR_MAX_BYTES (32 MiB)
 *   UPSTREAM_MAX_BODY_BYTES (8 MiB), UPSTREAM_CONNECTIONS (64)
 */
export function loadUpstreamSettings(env: NodeJS.ProcessEnv = process.env): UpstreamSettings {
  const problems: string[] = [];
  const { int, bool } = envReader(env, problems);
  const d = DEFAULT_UPSTREAM_SETTINGS;
  const settings: UpstreamSettings = {
    defaultTimeoutMs: int('UPSTREAM_TIMEOUT_MS', d.defaultTimeoutMs, 10, 600_000),
    retries: int('UPSTREAM_RETRIES', d.retries, 0, 5),
    retryBaseDelayMs: int('UPSTREAM_RETRY_BASE_MS', d.retryBaseDelayMs, 0, 60_000),
    retryMaxDelayMs: int('UPSTREAM_RETRY_MAX_DELAY_MS', d.retryMaxDelayMs, 0, 60_000),
    attemptTimeoutMs: int('UPSTREAM_ATTEMPT_TIMEOUT_MS', d.attemptTimeoutMs, 0, 600_000),
    breaker: {
      enabled: bool('UPSTREAM_BREAKER', d.breaker.enabled),
      errorThresholdPercentage: int('UPSTREAM_BREAKER_ERROR_PERCENT', d.breaker.errorThresholdPercentage, 1, 100),
      volumeThreshold: int('UPSTREAM_BREAKER_MIN_CALLS', d.breaker.volumeThreshold, 1, 10_000),
      rollingWindowMs: int('UPSTREAM_BREAKER_WINDOW_MS', d.breaker.rollingWindowMs, 100, 3_600_000),
      resetTimeoutMs: int('UPSTREAM_BREAKER_RESET_MS', d.breaker.resetTimeoutMs, 10, 3_600_000),
    },
    dedup: bool('UPSTREAM_DEDUP', d.dedup),
    staleIfErrorSeconds: int('STALE_IF_ERROR_SECONDS', d.staleIfErrorSeconds, 0, 7 * 86_400),
    staleMaxEntries: int('STALE_IF_ERROR_MAX_ENTRIES', d.staleMaxEntries, 1, 1_000_000),
    staleMaxBytes: int('STALE_IF_ERROR_MAX_BYTES', d.staleMaxBytes, 1024, 4 * 1024 * 1024 * 1024),
    maxBodyBytes: int('UPSTREAM_MAX_BODY_BYTES', d.maxBodyBytes, 1024, 1024 * 1024 * 1024),
    connections: int('UPSTREAM_CONNECTIONS', d.connections, 1, 10_000),
  };
  if (problems.length) throw new ConfigError(problems);
  return settings;
}
