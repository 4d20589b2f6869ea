// `npm run partners -- quota`: a partner's request quota per keyed environment (partner-quota.ts),
// kept in its partner record; running gateways apply a change within their partners-file poll.
import { setQuota, type Actor, type PartnerRecord } from '../stores/partners.js';
import {
  DEFAULT_QUOTA,
  KEYED_ENVIRONMENTS,
  describeQuota,
  describeWithSource,
  keyedEnvironment,
  quotaWithSource,
  parseQuota,
  type KeyedEnvironment,
  type QuotaSetting,
} from '../stores/partner-quota.js';
import { UsageError } from './usage.js';

export const QUOTA_USAGE = `  quota --partner CODE --env ENV --rate N --burst N    set a request quota (ENV production or certification)
  quota --partner CODE --env ENV --unlimited           no quota for that environment
  quota --partner CODE --env ENV --default             back to the default (PARTNER_QUOTA_DEFAULT; built in: ${describeQuota(DEFAULT_QUOTA)})`;

export const QUOTA_OPTIONS = {
  env: { type: 'string' },
  rate: { type: 'string' },
  burst: { type: 'string' },
  unlimited: { type: 'boolean' },
  default: { type: 'boolean' },
} as const;

interface QuotaValues {
  partner?: string;
  env?: string;
  rate?: string;
  burst?: string;
  unlimited?: boolean;
  default?: boolean;
}

export async function quotaCommand(
  file: string,
  values: QuotaValues,
  actor: Actor,
  fallback: QuotaSetting = DEFAULT_QUOTA,
): Promise<{ code: string; environment: KeyedEnvironment; quota: QuotaSetting | 'default'; described: string }> {
  if (!values.partner?.trim()) throw new UsageError('quota needs --partner');
  if (!values.env) throw new UsageError('quota needs --env production or --env certification');
  const environment = keyedEnvironment(values.env);
  const numbers = values.rate !== undefined || values.burst !== undefined;
  const chosen = [numbers, !!values.unlimited, !!values.default].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError('quota needs either --rate and --burst, or --unlimited, or --default');
  const quota: QuotaSetting | null = values.default
    ? null
    : values.unlimited
      ? 'unlimited'
      : parseQuota({ requestsPerSecond: values.rate ?? '', burst: values.burst ?? '' });
  const p = await setQuota(file, values.partner, environment, quota, actor);
  return {
    code: p.code,
    environment,
    quota: quota ?? 'default',
    described: describeWithSource(quotaWithSource(p.quotas, environment, fallback)),
  };
}

/**
 * "quota: production 50/s, burst 200 (default: PARTNER_QUOTA_DEFAULT); certification unlimited (its record)"
 * for `list`: the quota that applies, with `fallback` the gateways' PARTNER_QUOTA_DEFAULT.
 */
export function quotaListing(p: PartnerRecord, fallback: QuotaSetting = DEFAULT_QUOTA): string {
  return `quota: ${KEYED_ENVIRONMENTS.map((e) => `${e} ${describeWithSource(quotaWithSource(p.quotas, e, fallback))}`).join('; ')}`;
}

/** The quotas that apply, by environment, for `list --json`. */
export function effectiveQuotas(p: PartnerRecord, fallback: QuotaSetting = DEFAULT_QUOTA) {
  return Object.fromEntries(KEYED_ENVIRONMENTS.map((e) => [e, quotaWithSource(p.quotas, e, fallback)]));
}
