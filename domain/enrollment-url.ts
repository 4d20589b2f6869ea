// Enrollment deep links and stable plan ids.
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';

interface EnrollmentUrlInput {
  /** Supplier/partner enrollment page; must be https. Existing query params are kept. */
  baseUrl: string;
  planId: string;
  zipCode: string;
  /** Partner referral code; the literal PARTNER_CODE placeholder is used when absent/blank. */
  partnerCode?: string | null | undefined;
  /** Defaults to 'partner_api' when absent/blank. */
  utmSource?: string | null | undefined;
}

const PARTNER_CODE_PLACEHOLDER = 'PARTNER_CODE';
const DEFAULT_UTM_SOURCE = 'partner_api';

/** URL-encoded via URLSearchParams, so any value is safe to pass. Throws TypeError on a non-https base. */
export function enrollmentUrl({ baseUrl, planId, zipCode, partnerCode, utmSource }: EnrollmentUrlInput): string {
  const url = new URL(baseUrl); // throws TypeError on an unparsable URL
  if (url.protocol !== 'https:') throw new TypeError(`enrollment base URL must be https, got ${url.protocol}`);
  if (url.username || url.password) throw new TypeError('enrollment base URL must not carry credentials');
  const params: Array<[string, string]> = [
    ['utm_source', utmSource?.trim() || DEFAULT_UTM_SOURCE],
    ['utm_medium', 'api'],
    ['utm_campaign', 'headless_enrollment'],
    ['flow', 'RESIDENTIAL_PARTNER'],
    ['plan_id', planId],
    ['zip_code', zipCode],
    ['ref', partnerCode?.trim() || PARTNER_CODE_PLACEHOLDER],
  ];
  for (const [k, v] of params) url.searchParams.set(k, v);
  return url.toString();
}

/** Fixed namespace for plan ids. Never change it: every published plan id derives from it. */
export const PLAN_ID_NAMESPACE = 'b60cc0ec-9935-457f-bf7e-9608ce53160b';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 4122 version-5 (SHA-1, name-based) UUID of a UTF-8 name within a namespace UUID. */
export function uuidV5(namespace: string, name: string): string {
  if (!UUID_RE.test(namespace)) throw new TypeError(`not a UUID: ${namespace}`);
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  const b = hash.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50; // version 5
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Stable public id of an offer: uuidV5(PLAN_ID_NAMESPACE, `${feed}:${offerId}`). Same inputs give
 * the same id in every process and environment. feed must not contain ':' (keeps the name unambiguous).
 */
export function planUuid(feed: string, offerId: string): string {
  if (!feed || feed.includes(':')) throw new TypeError(`invalid feed name for planUuid: ${JSON.stringify(feed)}`);
  if (!offerId) throw new TypeError('planUuid needs a non-empty offerId');
  const name = `${feed}:${offerId}`;
  // The same offers come back request after request: a SHA-1 per plan per request is avoidable.
  let id = planIds.get(name);
  if (id === undefined) {
    id = uuidV5(PLAN_ID_NAMESPACE, name);
    planIds.set(name, id);
  }
  return id;
}

/** Offer name -> plan id, bounded (ids are ~36 bytes; 20k of them ~3 MB). */
const planIds = new LRUCache<string, string>({ max: 20_000 });
