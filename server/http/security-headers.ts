// Headers suited to a JSON API, and CORS: the playground is open to browsers; keyed environments
// only to the origins configured (none by default: the key must stay server-side).
import { kinds } from '../../lib/settings.js';

export const API_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-site',
  'cache-control': 'no-store',
};

/** The content type of every JSON answer. */
export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

export function corsHeaders(origin: string | undefined, allowed: '*' | Set<string>): Record<string, string> {
  if (!origin) return {};
  if (allowed !== '*' && !allowed.has(origin)) return {};
  return {
    'access-control-allow-origin': allowed === '*' ? '*' : origin,
    'access-control-allow-methods': 'POST, GET, OPTIONS',
    'access-control-allow-headers': 'content-type, x-api-key, x-request-id',
    'access-control-expose-headers': 'x-request-id, x-cache, x-ratelimit-limit, x-ratelimit-remaining',
    'access-control-max-age': '600',
    ...(allowed === '*' ? {} : { vary: 'origin' }),
  };
}

const MAX_ORIGINS_LENGTH = 8192;

/**
 * CORS_ORIGINS: `*`, or origins separated by commas, each as a browser sends it in `Origin`
 * (http or https, a host, a port when not the default; no path, query or credentials). An origin is
 * kept in that form (`HTTPS://App.Example.com:443/` as `https://app.example.com`), so it matches.
 */
function parseCorsOrigins(raw: string): '*' | Set<string> {
  const text = raw.trim();
  if (text === '*') return '*';
  if (text.length > MAX_ORIGINS_LENGTH) throw new Error(`CORS_ORIGINS is longer than ${MAX_ORIGINS_LENGTH} characters`);
  const origins = new Set<string>();
  for (const item of text.split(',').map((o) => o.trim())) {
    if (item === '') continue;
    if (item === '*') throw new Error('CORS_ORIGINS: * stands alone (every origin), not in a list of origins');
    let url: URL | null = null;
    try {
      url = new URL(item);
    } catch {
      // Reported below.
    }
    const bare = url && !url.username && !url.password && url.pathname === '/' && !/[?#]/.test(item);
    if (!url || !['http:', 'https:'].includes(url.protocol) || !bare || /[\s\x00-\x1f]/.test(item))
      throw new Error(
        `CORS_ORIGINS: "${item.slice(0, 100)}" is not an origin (http or https, a host and a port, no path: https://app.example.com)`,
      );
    origins.add(url.origin);
  }
  return origins;
}

/** CORS_ORIGINS as a setting. */
export const corsOriginsKind = kinds.parsed(
  '`*` or a list of origins',
  '* or a comma-separated list of origins such as https://app.example.com',
  parseCorsOrigins,
  (o) => (o === '*' ? '*' : [...o].join(',')),
);
