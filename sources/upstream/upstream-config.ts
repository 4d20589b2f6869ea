// Settings of the upstream fetch layer (retries, breaker, dedup, stale-if-error, body bounds), read
// from the settings table once when the fetch is created. A bad value stops start-up with a message
// naming the variable, like every other setting.
//
// Read from `process.env` unless the caller passes an env (createUpstreamFetch({ env })).
import { ConfigError } from '../../lib/env-reader.js';
import { readAllSettings, SETTING_DEFAULTS, type SettingValues } from '../../lib/settings-table.js';

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

/** The table's defaults (lib/settings-table.ts). */
export const DEFAULT_UPSTREAM_SETTINGS: UpstreamSettings = upstreamSettingsOf(SETTING_DEFAULTS);

/** The upstream settings of an environment (UPSTREAM_*, STALE_IF_ERROR_* of lib/settings-table.ts); throws a ConfigError. */
export function loadUpstreamSettings(env: NodeJS.ProcessEnv = process.env): UpstreamSettings {
  const problems: string[] = [];
  const s = readAllSettings(env, problems);
  // Other settings' problems are loadConfig's to report.
  const own = problems.filter((p) => /^(UPSTREAM_|STALE_IF_ERROR_)/.test(p));
  if (own.length) throw new ConfigError(own);
  return upstreamSettingsOf(s);
}

function upstreamSettingsOf(s: SettingValues): UpstreamSettings {
  return {
    defaultTimeoutMs: s.UPSTREAM_TIMEOUT_MS,
    retries: s.UPSTREAM_RETRIES,
    retryBaseDelayMs: s.UPSTREAM_RETRY_BASE_MS,
    retryMaxDelayMs: s.UPSTREAM_RETRY_MAX_DELAY_MS,
    attemptTimeoutMs: s.UPSTREAM_ATTEMPT_TIMEOUT_MS,
    breaker: {
      enabled: s.UPSTREAM_BREAKER,
      errorThresholdPercentage: s.UPSTREAM_BREAKER_ERROR_PERCENT,
      volumeThreshold: s.UPSTREAM_BREAKER_MIN_CALLS,
      rollingWindowMs: s.UPSTREAM_BREAKER_WINDOW_MS,
      resetTimeoutMs: s.UPSTREAM_BREAKER_RESET_MS,
    },
    dedup: s.UPSTREAM_DEDUP,
    staleIfErrorSeconds: s.STALE_IF_ERROR_SECONDS,
    staleMaxEntries: s.STALE_IF_ERROR_MAX_ENTRIES,
    staleMaxBytes: s.STALE_IF_ERROR_MAX_BYTES,
    maxBodyBytes: s.UPSTREAM_MAX_BODY_BYTES,
    connections: s.UPSTREAM_CONNECTIONS,
  };
}
