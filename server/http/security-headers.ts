// Headers suited to a JSON API, and CORS: the playground is open to browsers; keyed environments
// only to the origins configured (none by default: the key must stay server-side).
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
