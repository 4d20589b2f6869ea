// The client IP the playground allowance is counted for. The socket address, unless the request
// came through proxies we were told to trust (TRUST_PROXY): then proxy-addr's walk (Express's
// `trust proxy`) over the header those proxies write, nearest hop first, past every trusted hop.
// Every entry is read as proxies write it (`ip:port`, `[v6]:port`, quoted, `unknown`) and
// canonicalised, IPv4-mapped IPv6 as IPv4: an entry that names no address ends the walk at the
// last known hop, so a client's own entries beyond it are never believed. A spoofed header from an
// untrusted peer changes nothing.
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import proxyaddr from 'proxy-addr';
import { parseAddress } from '../../domain/ip-ranges.js';
import { kinds } from '../../lib/settings.js';

/** Which header the trusted proxies write: X-Forwarded-For, or RFC 7239 `Forwarded` (its `for=`). */
export type ForwardedHeader = 'x-forwarded-for' | 'forwarded';
export const FORWARDED_HEADERS: readonly ForwardedHeader[] = ['x-forwarded-for', 'forwarded'];

export type TrustProxy = {
  /** What TRUST_PROXY said, for config:check: a hop count, or the trusted addresses and ranges. */
  hops?: number;
  ranges?: string[];
  header: ForwardedHeader;
  /** proxy-addr's trust function: is the address at hop `i` (0 = the socket's peer) a trusted proxy? */
  trusted: (address: string, hop: number) => boolean;
} | null;

const MAX_HOPS = 32;
/** Longer than any list of proxies an operator writes by hand: past it a value is a slip, not a list. */
const MAX_LENGTH = 4096;
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: unset, `false` or `0` trusts no proxy; a hop count trusts that many proxies in front
 * of the gateway; otherwise a comma-separated list of proxy addresses and CIDR ranges (or
 * proxy-addr's names `loopback`, `linklocal`, `uniquelocal`).
 */
export function parseTrustProxy(value: string | undefined, header: ForwardedHeader = 'x-forwarded-for'): TrustProxy {
  const v = (value ?? '').trim();
  if (!v || v === 'false' || v === '0') return null;
  if (v.length > MAX_LENGTH) throw new Error(`TRUST_PROXY is longer than ${MAX_LENGTH} characters`);
  if (/^\d+$/.test(v)) {
    const hops = Math.min(Number(v), MAX_HOPS);
    return { hops, header, trusted: (_address, hop) => hop < hops };
  }
  const ranges = v.split(',').map((s) => s.trim());
  for (const r of ranges) {
    try {
      // Dotted or colon notation only (proxy-addr would also read "167772165" as an address).
      if (!NAMED_RANGES.has(r) && !net.isIP(r.split('/', 1)[0]!)) throw new Error(r);
      proxyaddr.compile(r);
    } catch {
      throw new Error(
        `TRUST_PROXY: "${r.slice(0, 60)}" is neither a hop count nor an IP address or CIDR range (such as 10.0.0.5 or 10.0.0.0/8)`,
      );
    }
  }
  const compiled = proxyaddr.compile(ranges);
  return { ranges, header, trusted: (address) => compiled(address, 0) };
}

/** TRUST_PROXY as a setting: what parseTrustProxy accepts (X-Forwarded-For until TRUST_PROXY_HEADER says otherwise). */
export const trustProxyKind = kinds.parsed(
  'hop count, or addresses and CIDR ranges',
  'a hop count, or proxy addresses and CIDR ranges separated by commas (such as 10.0.0.5 or 10.0.0.0/8)',
  (raw) => parseTrustProxy(raw),
  (t) => (t === null ? 'none' : t.hops !== undefined ? String(t.hops) : t.ranges!.join(',')),
);

/** An address as a proxy may write it, canonical (IPv4-mapped IPv6 as IPv4), or null when it names none. */
export function canonicalIp(entry: string): string | null {
  let host = entry.trim();
  if (host.startsWith('"') && host.endsWith('"') && host.length >= 2) host = host.slice(1, -1);
  if (host.startsWith('[')) {
    // [v6] or [v6]:port
    const close = host.indexOf(']');
    if (close < 0) return null;
    host = host.slice(1, close);
  } else if (host.indexOf(':') !== -1 && host.indexOf(':') === host.lastIndexOf(':')) {
    // One colon: IPv4 with a port (an IPv6 address has at least two).
    host = host.slice(0, host.indexOf(':'));
  }
  return parseAddress(host)?.text ?? null;
}

/** Kept for callers that hold a socket address: the canonical form, or the text unchanged. */
export function normalizeIp(ip: string): string {
  return canonicalIp(ip) ?? ip;
}

/** The `for=` of each element of RFC 7239 `Forwarded` headers, nearest hop first ('' when an element has none). */
function forwardedFor(req: IncomingMessage): string[] {
  const raw = req.headers.forwarded;
  const text = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  if (!text) return [];
  return text
    .split(',')
    .reverse()
    .map((element) => {
      for (const pair of element.split(';')) {
        const eq = pair.indexOf('=');
        if (eq > 0 && pair.slice(0, eq).trim().toLowerCase() === 'for') return pair.slice(eq + 1);
      }
      return '';
    });
}

/**
 * The canonical address of each connection's peer, read once per connection: parsing it (BigInt
 * arithmetic for the IPv4-mapped form) was a measurable part of a keep-alive cache hit.
 */
const peers = new WeakMap<object, string>();
function peerOf(req: IncomingMessage): string {
  const socket = req.socket;
  let peer = peers.get(socket);
  if (peer === undefined) {
    peer = normalizeIp(socket.remoteAddress ?? 'unknown');
    // A socket not connected yet (or already gone) has no address: not remembered.
    if (socket.remoteAddress !== undefined) peers.set(socket, peer);
  }
  return peer;
}

export function clientIp(req: IncomingMessage, trust: TrustProxy): string {
  const peer = peerOf(req);
  if (!trust) return peer;
  // proxy-addr lists the socket address, then X-Forwarded-For nearest hop first.
  const hops = trust.header === 'forwarded' ? forwardedFor(req) : proxyaddr.all(req).slice(1);
  let client = peer;
  for (let i = 0; i < hops.length && trust.trusted(client, i); i++) {
    const next = canonicalIp(hops[i]!);
    if (next === null) break;
    client = next;
  }
  return client;
}

/**
 * Whom a playground allowance belongs to: an IPv4 address, or the /64 network of an IPv6 one (a
 * single subscriber usually gets a whole /64, so counting per address would let anyone rotate
 * through fresh allowances).
 */
export function allowanceSubject(address: string): string {
  const ip = normalizeIp(address);
  if (net.isIPv6(ip)) {
    const [head = '', tail = ''] = ip.toLowerCase().split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
    return `${groups
      .slice(0, 4)
      .map((g) => g.replace(/^0+(?=.)/, ''))
      .join(':')}::/64`;
  }
  return ip;
}
