// A partner's request quota per keyed environment, kept in its partner record: a sustained rate
// (requests a second) and a burst (requests at once after a quiet spell), or "unlimited". A
// partner without a quota of its own gets the defaults below.
//
// The defaults are far above what the partner guide's flows need (a page view costs one to three
// calls, each answer cached for minutes to a day): 50 requests a second is over four million a
// day, and a burst of 200 covers a deploy that warms hundreds of ZIP pages at once. They exist to
// stop a loop gone wrong, not to meter normal use.
import type { RateQuota } from '../cache/partner-quota.js';

export type KeyedEnvironment = 'production' | 'certification';
export const KEYED_ENVIRONMENTS: readonly KeyedEnvironment[] = ['production', 'certification'];

export type { RateQuota };

export type QuotaSetting = RateQuota | 'unlimited';

export const DEFAULT_QUOTA: RateQuota = { requestsPerSecond: 50, burst: 200 };

/** Bounds of a quota: beyond them a value is a typo (use "unlimited" for no quota). */
const MAX_REQUESTS_PER_SECOND = 10_000;
const MAX_BURST = 100_000;

export class QuotaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuotaError';
  }
}

function wholeNumber(field: string, value: unknown, max: number): number {
  // A string from a form or the command line, or a number from the file.
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!text) throw new QuotaError(`${field} is required: a whole number from 1 to ${max.toLocaleString('en-US')}`);
  if (!/^\d{1,15}$/.test(text))
    throw new QuotaError(`${field} must be a whole number from 1 to ${max.toLocaleString('en-US')}, not "${text.slice(0, 20)}"`);
  const n = Number(text);
  if (n < 1) throw new QuotaError(`${field} must be at least 1 (use "unlimited" for no quota)`);
  if (n > max) throw new QuotaError(`${field} is at most ${max.toLocaleString('en-US')} (use "unlimited" for no quota)`);
  return n;
}

/** A quota from text or the file: "unlimited", or a rate and a burst within the bounds. */
export function parseQuota(value: unknown): QuotaSetting {
  if (value === 'unlimited') return 'unlimited';
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new QuotaError('a quota is "unlimited" or { "requestsPerSecond": n, "burst": n }');
  const v = value as Record<string, unknown>;
  const extra = Object.keys(v).find((k) => k !== 'requestsPerSecond' && k !== 'burst');
  if (extra !== undefined) throw new QuotaError(`unknown quota field "${extra.slice(0, 40)}"`);
  return {
    requestsPerSecond: wholeNumber('requests a second', v.requestsPerSecond, MAX_REQUESTS_PER_SECOND),
    burst: wholeNumber('burst', v.burst, MAX_BURST),
  };
}

export function keyedEnvironment(value: unknown): KeyedEnvironment {
  if (value === 'production' || value === 'certification') return value;
  throw new QuotaError(`environment must be production or certification, not "${String(value).slice(0, 20)}"`);
}

export type PartnerQuotas = Partial<Record<KeyedEnvironment, QuotaSetting>>;

/** The "quotas" field of a partner record (absent: the defaults everywhere). */
export function parseQuotas(value: unknown): PartnerQuotas | undefined {
  if (value === undefined) return undefined;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new QuotaError('"quotas" must be an object by environment');
  const out: PartnerQuotas = {};
  for (const [env, q] of Object.entries(value)) {
    try {
      out[keyedEnvironment(env)] = parseQuota(q);
    } catch (err) {
      throw new QuotaError(`quota of ${env.slice(0, 20)}: ${(err as Error).message}`);
    }
  }
  return out;
}

/** The quota that applies: the partner's own for the environment, else the default. */
export function effectiveQuota(
  quotas: PartnerQuotas | undefined,
  environment: KeyedEnvironment,
  fallback: QuotaSetting = DEFAULT_QUOTA,
): QuotaSetting {
  return quotas?.[environment] ?? fallback;
}

/** Where the quota that applies comes from: the partner's record, or the default setting. */
type QuotaSource = 'record' | 'default';

/** The quota that applies and where it comes from (PARTNER_QUOTA_DEFAULT is the `fallback`). */
export function quotaWithSource(
  quotas: PartnerQuotas | undefined,
  environment: KeyedEnvironment,
  fallback: QuotaSetting = DEFAULT_QUOTA,
): { quota: QuotaSetting; source: QuotaSource } {
  const own = quotas?.[environment];
  return own ? { quota: own, source: 'record' } : { quota: fallback, source: 'default' };
}

/** "50/s, burst 200 (its record)" or "unlimited (default: PARTNER_QUOTA_DEFAULT)". */
export function describeWithSource(q: { quota: QuotaSetting; source: QuotaSource }): string {
  return `${describeQuota(q.quota)} (${q.source === 'record' ? 'its record' : 'default: PARTNER_QUOTA_DEFAULT'})`;
}

export function describeQuota(q: QuotaSetting): string {
  return q === 'unlimited' ? 'unlimited' : `${q.requestsPerSecond}/s, burst ${q.burst}`;
}
