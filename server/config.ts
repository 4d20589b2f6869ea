// The settings of the serving process's concerns, composed into the one config it starts from. Every
// setting comes from the environment, is declared beside its code as the config it fills, is checked
// once at start-up, and a bad value stops the process with a message naming the variable (never a
// stack trace). The support console's and admin endpoint's settings are support/'s (composed with
// these by start/config.ts).
import { redactUrl } from '../sources/upstream/fetch.js';
import type { z } from 'zod';
import { readSettingsOrDefaults } from '../lib/settings.js';
import { queryLimitSettings } from './graphql/limits.js';
import type { EnvironmentName } from './http/plugin.js';
import { listenerSettings } from './http/listener-settings.js';
import { loadCacheSettings } from '../cache/cache-config.js';
import { loadReplaySettings } from '../stores/replay-settings.js';
import { gatewayConfig, logSettings } from './gateway-settings.js';
import { tracingSettings } from './observability/tracing-config.js';
import { withoutTrailing } from '../lib/trailing.js';

/**
 * The serving process's concerns, each read by its own schema (every problem, naming its variable,
 * added to `problems`): the gateway's own settings (server/gateway-settings.ts), the listeners'
 * (server/http/listener-settings.ts), the query limits, the logs, the response cache and replay log
 * (cache/cache-config.ts, stores/replay-settings.ts) and tracing.
 */
export function readServerConfig(env: NodeJS.ProcessEnv, cwd: string, problems: string[]) {
  const read = <T>(schema: z.ZodType<T>): T => readSettingsOrDefaults(schema, env, problems);
  return {
    ...read(gatewayConfig(cwd)),
    ...read(logSettings),
    ...read(listenerSettings),
    limits: read(queryLimitSettings),
    /** TTLs (schema, cache.config.yaml / CACHE_CONFIG), CACHE_* and REPLAY_* sizes and retention. */
    cacheReplay: { cache: loadCacheSettings(env, cwd, problems), replay: loadReplaySettings(env, problems) },
    /** OpenTelemetry traces (OTEL_*, TRACE_*); off without an OTLP endpoint. */
    tracing: read(tracingSettings),
  };
}

/** What the serving process starts from: the output of its concerns' settings. */
export type ServerConfig = ReturnType<typeof readServerConfig>;

/**
 * Feeds with a public service of their own: with its API key set and no `<SOURCE>_URL`, the source
 * goes there instead of the reference upstream (EIA's API v2; the key is sent as `api_key` by the
 * source block in .meshrc.yaml).
 */
const PUBLIC_FEED_URLS: Record<string, (env: NodeJS.ProcessEnv) => string | undefined> = {
  Eia: (env) => (env.EIA_API_KEY?.trim() ? 'https://api.eia.gov' : undefined),
};

const publicFeedUrl = (source: string, env: NodeJS.ProcessEnv): string | undefined =>
  Object.hasOwn(PUBLIC_FEED_URLS, source) ? PUBLIC_FEED_URLS[source]!(env) : undefined;

/**
 * Families of settings named after something else (a Mesh source): `<SOURCE>_URL` and
 * `CERTIFICATION_<SOURCE>_URL`, read by feedUrlsFor for each source of .meshrc.yaml.
 */
export const SETTING_FAMILIES = [
  {
    pattern: /^(CERTIFICATION_)?[A-Z][A-Z0-9_]*_URL$/,
    name: '<SOURCE>_URL, CERTIFICATION_<SOURCE>_URL',
    description: "one feed's base URL (production; certification)",
  },
];

/** The upstream base URL of each Mesh source for one environment (see .meshrc.yaml header). */
export function feedUrlsFor(
  environment: EnvironmentName,
  sources: string[],
  env: NodeJS.ProcessEnv,
  fallback: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of sources) {
    const key = `${source.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_URL`;
    const own = env[key];
    const cert = environment === 'certification' ? (env[`CERTIFICATION_${key}`] ?? env.CERTIFICATION_UPSTREAM_URL) : undefined;
    out[source] = withoutTrailing(cert ?? own ?? publicFeedUrl(source, env) ?? fallback, '/');
  }
  return out;
}

/**
 * `<SOURCE>_API_KEY` of each source that has one set (e.g. EIA_API_KEY for Eia), for
 * `{context.feedKeys.<Source>}` in .meshrc.yaml; the fetch layer redacts it from logged URLs.
 */
export function feedKeysFor(sources: string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of sources) {
    const value = env[`${source.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_API_KEY`]?.trim();
    if (value) out[source] = value;
  }
  return out;
}

/** feedUrlsFor with credentials and secret query parameters left out, for logs and config:check. */
export function shownFeedUrls(
  environment: EnvironmentName,
  sources: string[],
  env: NodeJS.ProcessEnv,
  fallback: string,
): Record<string, string> {
  return Object.fromEntries(Object.entries(feedUrlsFor(environment, sources, env, fallback)).map(([feed, url]) => [feed, redactUrl(url)]));
}
