// The client IP the playground allowance is counted for. The socket address, unless the request
// came through proxies we were told to trust (TRUST_PROXY): then the right-most X-Forwarded-For
// entry that is not one of them. A spoofed header from an untrusted peer changes nothing.
import net from 'node:net';
import type { IncomingMessage } from 'node:http';

export type TrustProxy = { hops: number } | { addresses: Set<string> } | null;

export function parseTrustProxy(value: string | undefined): TrustProxy {
  const v = (value ?? '').trim();
  if (!v || v === 'false' || v === '0') return null;
  if (/^\d+$/.test(v)) return { hops: Math.min(Number(v), 32) };
  const addresses = v.split(',').map((s) => normalizeIp(s.trim()));
  for (const a of addresses) if (!net.isIP(a)) throw new Error(`TRUST_PROXY: "${a}" is neither a hop count nor an IP address`);
  return { addresses: new Set(addresses) };
}

export function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
}

export function clientIp(req: IncomingMessage, trust: TrustProxy): string {
  const peer = normalizeIp(req.socket.remoteAddress ?? 'unknown');
  if (!trust) return peer;
  const header = req.headers['x-forwarded-for'];
  const raw = Array.isArray(header) ? header.join(',') : header;
  if (!raw) return peer;
  const chain = raw
    .split(',')
    .map((s) => normalizeIp(s.trim()))
    .filter((s) => net.isIP(s));
  if ('hops' in trust) {
    // The peer is hop 1; each further trusted hop appended one entry.
    const idx = chain.length - trust.hops;
    return idx >= 0 && idx < chain.length ? chain[idx]! : (chain[0] ?? peer);
  }
  if (!trust.addresses.has(peer)) return peer;
  for (let i = chain.length - 1; i >= 0; i--) if (!trust.addresses.has(chain[i]!)) return chain[i]!;
  return peer;
}

/**
 * Whom a playground allowance belongs to: an IPv4 address, or the /64 network of an IPv6 one (a
 * single subscriber usually gets a whole /64, so counting per address would let anyone rotate
 * through fresh allowances).
 */
export function allowanceSubject(ip: string): string {
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
