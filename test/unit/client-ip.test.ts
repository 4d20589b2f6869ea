// Who a request counts for on the playground: the socket address unless proxies are trusted, and
// IPv6 clients by /64.
import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { allowanceSubject, clientIp, parseTrustProxy } from '../../server/http/client-ip.js';

const req = (remoteAddress: string, xff?: string) =>
  ({ socket: { remoteAddress }, headers: xff ? { 'x-forwarded-for': xff } : {} }) as unknown as IncomingMessage;

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
  });
});

describe('allowanceSubject', () => {
  it('counts IPv4 per address and IPv6 per /64', () => {
    expect(allowanceSubject('203.0.113.7')).toBe('203.0.113.7');
    expect(allowanceSubject('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(allowanceSubject('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(allowanceSubject('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(allowanceSubject('::1')).toBe('0:0:0:0::/64');
  });
});
