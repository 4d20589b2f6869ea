// The parts of a record page's "Why this answer" that need more than the answer's errors: a
// refused key (which key, its own environment and partner, revoked or not), a 429's own headers
// and the playground allowance, and a failed feed call in words a support engineer reads at once.
import type { ReplayRecord, ReplayUpstreamCall } from '../../stores/replay-store.js';
import { html, type Html } from './html.js';

const AUTH_REASONS: Record<string, string> = {
  missing: 'no x-api-key header was sent',
  malformed: 'the x-api-key header is not a well-formed key (or was sent twice)',
  unknown: 'the key is not one of ours (mistyped, or from another deployment)',
  revoked: 'the key was revoked',
  wrong_environment: 'the key is valid but for another environment',
};

interface RefusedKey {
  ok: false;
  reason?: string;
  partnerCode?: string;
  keyId?: string;
  keyEnvironment?: string;
  revoked?: boolean;
}

/** The key check's note on a refused record, or null. */
function refusedKey(r: ReplayRecord): RefusedKey | null {
  const auth = r.notes?.auth as RefusedKey | { ok: true } | undefined;
  return auth && auth.ok === false ? auth : null;
}

/** "Refused: …", naming the key id sent (never the key), its environment, partner and revocation. */
export function refusalWhy(r: ReplayRecord): string | null {
  const auth = refusedKey(r);
  if (!auth) return null;
  const reason = AUTH_REASONS[auth.reason ?? ''] ?? auth.reason ?? 'key check failed';
  if (!auth.keyId) return `Refused: ${reason} (reason ${auth.reason}).`;
  const state = auth.revoked ? 'revoked' : 'not revoked';
  return (
    `Refused: ${reason} (reason ${auth.reason}). The key sent is key id ${auth.keyId}, ` +
    `a ${auth.keyEnvironment} key of partner ${auth.partnerCode ?? '?'} (${state}), sent to ${r.environment}.`
  );
}

const header = (r: ReplayRecord, name: string): string | undefined => {
  for (const [k, v] of Object.entries(r.responseHeaders)) if (k.toLowerCase() === name) return v;
  return undefined;
};

/** A 429's own rate-limit headers, as the record kept them. */
export function rateLimitWhy(r: ReplayRecord): string | null {
  if (r.status !== 429) return null;
  const shown = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining']
    .map((h) => [h, header(r, h)] as const)
    .filter(([, v]) => v !== undefined)
    .map(
      ([h, v]) =>
        `${h === 'retry-after' ? 'Retry-After' : h.replace('x-ratelimit', 'X-RateLimit').replace(/-(\w)/g, (m) => m.toUpperCase())}: ${v}`,
    );
  return shown.length
    ? `Rate limited: the answer said ${shown.join(', ')}${header(r, 'retry-after') ? ' (Retry-After in seconds)' : ''}.`
    : 'Rate limited: this answer carried no Retry-After or X-RateLimit headers.';
}

/** A failed feed call in words ("could not be reached: no connection, gave up after 51 ms"). */
export function feedCallWhy(c: ReplayUpstreamCall): string {
  const ms = Math.round(c.durationMs);
  const error = c.error ?? '';
  if (/^network\b/i.test(error)) return `Feed ${c.feed} could not be reached (no connection; gave up after ${ms} ms).`;
  if (/time(d)? ?out/i.test(error))
    return `Feed ${c.feed} did not answer in time (${/\d/.test(error) ? error : `${error} after ${ms} ms`}).`;
  return `Feed ${c.feed} failed: ${error} (after ${ms} ms).`;
}

/** Under a record's status: where a feed failure (a 200 with errors) is found. */
export function outcomeNote(r: ReplayRecord): Html | '' {
  return r.status < 400 && r.upstreamCalls.some((c) => c.error)
    ? html`<br><span class="n" id="outcome-note">A feed failure answers 200 with errors: search it under GraphQL errors, not Server errors.</span>`
    : '';
}

/** The allowance page of a playground record's client address. */
export const allowanceHref = (ip: string) => `/console/allowance?${new URLSearchParams({ ip })}`;
