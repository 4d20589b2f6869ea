// Who a request counts for on the playground: the socket address unless proxies are trusted, and
// IPv6 clients by /64.
import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { allowanceSubject, canonicalIp, clientIp, parseTrustProxy } from '../../server/http/client-ip.js';

const req = (remoteAddress: string, xff?: string, forwarded?: string) =>
  ({
    socket: { remoteAddress },
    headers: { ...(xff ? { 'x-forwarded-for': xff } : {}), ...(forwarded ? { forwarded } : {}) },
  }) as unknown as IncomingMessage;

describe('clientIp', () => {
  it('ignores X-Forwarded-For unless TRUST_PROXY says so', () => {
    expect(clientIp(req('::ffff:127.0.0.2', '1.2.3.4'), null)).toBe('127.0.0.2');
    expect(clientIp(req('10.0.0.5', '1.2.3.4, 5.6.7.8'), parseTrustProxy('1'))).toBe('5.6.7.8');
    expect(clientIp(req('10.0.0.5', '1.2.3.4, 5.6.7.8'), parseTrustProxy('2'))).toBe('1.2.3.4');
    expect(clientIp(req('10.0.0.5', 'spoofed, 5.6.7.8, 10.0.0.6'), parseTrustProxy('10.0.0.5,10.0.0.6'))).toBe('5.6.7.8');
    expect(clientIp(req('9.9.9.9', '1.2.3.4'), parseTrustProxy('10.0.0.5'))).toBe('9.9.9.9');
  });

  it('rejects a TRUST_PROXY that is neither a count nor addresses', () => {
    expect(() => parseTrustProxy('yes please')).toThrow(/TRUST_PROXY/);
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/TRUST_PROXY: "10.0.0.0\/33"/);
    expect(() => parseTrustProxy('10.0.0.5, ')).toThrow(/TRUST_PROXY/);
    expect(() => parseTrustProxy('10.0.0.5,167772165')).toThrow(/TRUST_PROXY/);
  });

  // The proxy appends the address it saw, as it writes it; whatever the client put before that is its own.
  const ONE_HOP = parseTrustProxy('1');
  it.each([
    ['ip:port', '203.0.113.11:51234', '203.0.113.11'],
    ['[v6]:port', '[2001:db8::7]:443', '2001:db8::7'],
    ['[v6]', '[2001:DB8:0::7]', '2001:db8::7'],
    ['bare v6', '2001:db8:0:0:0:0:0:7', '2001:db8::7'],
    ['IPv4-mapped', '::ffff:203.0.113.11', '203.0.113.11'],
    ['IPv4-mapped, hex', '::ffff:cb00:710b', '203.0.113.11'],
    ['IPv4-mapped, bracketed with port', '[::ffff:cb00:710b]:8080', '203.0.113.11'],
  ])('reads an X-Forwarded-For entry written as %s, never the client-written entries before it', (_form, entry, client) => {
    expect(clientIp(req('10.0.0.5', `198.51.100.99, ${entry}`), ONE_HOP)).toBe(client);
    expect(clientIp(req('10.0.0.5', `198.51.100.99,${entry}`), parseTrustProxy('10.0.0.0/8'))).toBe(client);
  });

  it('an entry naming no address (unknown, obfuscated, garbage) stops at the last known hop', () => {
    for (const entry of ['unknown', '_hidden', 'not an address', '999.1.1.1', '[2001:db8::7', '1.2.3.4:5:6']) {
      expect(clientIp(req('10.0.0.5', `198.51.100.99, ${entry}`), ONE_HOP)).toBe('10.0.0.5');
    }
    // Two trusted hops: the second proxy saw "unknown"; the first entry is the client's own text.
    expect(clientIp(req('10.0.0.5', '198.51.100.99, unknown, 10.0.0.6'), parseTrustProxy('2'))).toBe('10.0.0.6');
  });

  it('the socket address is canonical too, and trusted ranges match it', () => {
    expect(clientIp(req('::ffff:10.0.0.5', '203.0.113.11:1'), parseTrustProxy('10.0.0.0/8,192.168.0.1'))).toBe('203.0.113.11');
    expect(clientIp(req('::ffff:cb00:710b'), null)).toBe('203.0.113.11');
    expect(clientIp(req('127.0.0.1', '203.0.113.11'), parseTrustProxy('loopback'))).toBe('203.0.113.11');
  });

  it('reads RFC 7239 Forwarded when TRUST_PROXY_HEADER says so, and only then', () => {
    const fwd = parseTrustProxy('1', 'forwarded');
    expect(clientIp(req('10.0.0.5', undefined, 'for=198.51.100.99, for="[2001:db8::7]:4711";proto=https'), fwd)).toBe('2001:db8::7');
    expect(clientIp(req('10.0.0.5', undefined, 'for=198.51.100.99,For=203.0.113.11:80'), fwd)).toBe('203.0.113.11');
    expect(clientIp(req('10.0.0.5', undefined, 'for=198.51.100.99, for=unknown'), fwd)).toBe('10.0.0.5');
    expect(clientIp(req('10.0.0.5', undefined, 'for=198.51.100.99, proto=https'), fwd)).toBe('10.0.0.5');
    // A client-sent X-Forwarded-For is ignored when the proxies write Forwarded, and the other way round.
    expect(clientIp(req('10.0.0.5', '198.51.100.1', 'for=203.0.113.11'), fwd)).toBe('203.0.113.11');
    expect(clientIp(req('10.0.0.5', '203.0.113.11', 'for=198.51.100.1'), ONE_HOP)).toBe('203.0.113.11');
  });

  it('a long header costs a walk no longer than the trusted hops', () => {
    const long = `${'198.51.100.1, '.repeat(1000)}203.0.113.11`;
    expect(clientIp(req('10.0.0.5', long), ONE_HOP)).toBe('203.0.113.11');
    expect(clientIp(req('10.0.0.5', long), parseTrustProxy('1000000'))).toBe('198.51.100.1');
  });
});

describe('canonicalIp', () => {
  it('reads addresses as proxies write them', () => {
    expect(canonicalIp(' "[::FFFF:203.0.113.11]:80" ')).toBe('203.0.113.11');
    expect(canonicalIp('0:0:0:0:0:ffff:cb00:710b')).toBe('203.0.113.11');
    expect(canonicalIp('unknown')).toBeNull();
    expect(canonicalIp('1.2.3.4:5:6')).toBeNull();
  });
});

describe('allowanceSubject', () => {
  it('counts IPv4 per address and IPv6 per /64', () => {
    expect(allowanceSubject('203.0.113.7')).toBe('203.0.113.7');
    expect(allowanceSubject('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(allowanceSubject('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(allowanceSubject('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(allowanceSubject('::1')).toBe('0:0:0:0::/64');
    // IPv4-mapped IPv6 is its IPv4 address, not a shared /64.
    expect(allowanceSubject('::ffff:203.0.113.11')).toBe('203.0.113.11');
    expect(allowanceSubject('::ffff:cb00:710b')).toBe('203.0.113.11');
  });
});
