// Certification test IPs: single addresses and CIDR ranges, IPv4 and IPv6. Pure rules:
// parsing with clear refusals (malformed, host bits set, enormous, overlapping), and membership.
import { isIP } from 'node:net';

export interface IpRange {
  /** Canonical text: "203.0.113.7", "198.51.100.0/28", "2001:db8::/64". */
  cidr: string;
  family: 4 | 6;
  prefix: number;
  first: bigint;
  last: bigint;
}

/**
 * The largest range one entry may enable: a /24 of IPv4 (256 addresses) or a /48 of IPv6 (one
 * site). A certification lab tests from a handful of addresses; anything larger is a typo or
 * would open the checkout flow to a whole provider.
 */
const MIN_PREFIX = { 4: 24, 6: 48 } as const;
const BITS = { 4: 32, 6: 128 } as const;
const MAX_TEXT = 64;

export class IpRangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IpRangeError';
  }
}

function v4ToBig(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBig(ip: string): bigint {
  let text = ip;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hextets.
  const tail4 = text.slice(text.lastIndexOf(':') + 1);
  if (tail4.includes('.')) {
    const n = v4ToBig(tail4);
    text = `${text.slice(0, text.length - tail4.length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const parts = tail === null ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return parts.reduce((acc, p) => (acc << 16n) | BigInt(parseInt(p, 16)), 0n);
}

function bigToV4(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 0xffn)).join('.');
}

function bigToV6(n: bigint): string {
  const parts = Array.from({ length: 8 }, (_, i) => ((n >> BigInt((7 - i) * 16)) & 0xffffn).toString(16));
  // RFC 5952: the longest run (2+) of zero groups becomes "::".
  let best = { at: -1, len: 0 };
  for (let i = 0; i < 8;) {
    if (parts[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && parts[j] === '0') j++;
    if (j - i > best.len && j - i >= 2) best = { at: i, len: j - i };
    i = j;
  }
  if (best.at < 0) return parts.join(':');
  return `${parts.slice(0, best.at).join(':')}::${parts.slice(best.at + best.len).join(':')}`;
}

/** An address as a number in its family; IPv4-mapped IPv6 (::ffff:a.b.c.d) counts as IPv4. */
export function parseAddress(input: string): { family: 4 | 6; value: bigint; text: string } | null {
  if (typeof input !== 'string' || input.length === 0 || input.length > MAX_TEXT) return null;
  const family = isIP(input);
  if (family === 4) return { family, value: v4ToBig(input), text: bigToV4(v4ToBig(input)) };
  if (family === 6) {
    const value = v6ToBig(input);
    if (value >> 32n === 0xffffn) return { family: 4, value: value & 0xffffffffn, text: bigToV4(value & 0xffffffffn) };
    return { family, value, text: bigToV6(value) };
  }
  return null;
}

/** Parses "a.b.c.d", "a.b.c.d/nn", an IPv6 address or "v6/nn"; throws IpRangeError saying what is wrong. */
export function parseIpRange(input: unknown): IpRange {
  if (typeof input !== 'string') throw new IpRangeError('an IP address or CIDR range must be a string');
  const text = input.trim();
  if (!text) throw new IpRangeError('an IP address or CIDR range is required');
  if (text.length > MAX_TEXT) throw new IpRangeError(`"${text.slice(0, 20)}…" is too long to be an IP address or CIDR range`);
  const m = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(text);
  const addr = m ? parseAddress(m[1]!) : null;
  if (!m || !addr || (addr.family === 4 && isIP(m[1]!) === 6 && m[2] !== undefined)) {
    throw new IpRangeError(`"${text}" is not an IPv4 or IPv6 address or CIDR range (e.g. 203.0.113.7, 198.51.100.0/28, 2001:db8::/64)`);
  }
  const family = addr.family;
  const bits = BITS[family];
  const prefix = m[2] === undefined ? bits : Number(m[2]);
  if (prefix > bits) throw new IpRangeError(`"${text}": an IPv${family} prefix is at most /${bits}`);
  if (prefix < MIN_PREFIX[family]) {
    throw new IpRangeError(
      `"${text}" is too large a range: an IPv${family} entry may be at most a /${MIN_PREFIX[family]}; list the test machines' addresses instead`,
    );
  }
  const size = 1n << BigInt(bits - prefix);
  const first = addr.value & ~(size - 1n);
  if (first !== addr.value) {
    const network = family === 4 ? bigToV4(first) : bigToV6(first);
    throw new IpRangeError(`"${text}" has host bits set: did you mean ${network}/${prefix}?`);
  }
  const cidr = prefix === bits ? addr.text : `${addr.text}/${prefix}`;
  return { cidr, family, prefix, first, last: first + size - 1n };
}

export function rangesOverlap(a: IpRange, b: IpRange): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}

/** The first range that contains the address, or null (also for a malformed address). */
export function findRange(ranges: readonly IpRange[], ip: string): IpRange | null {
  const addr = parseAddress(ip);
  if (!addr) return null;
  for (const r of ranges) if (r.family === addr.family && r.first <= addr.value && addr.value <= r.last) return r;
  return null;
}
