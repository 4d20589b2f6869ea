import { describe, expect, it } from 'vitest';
import { IpRangeError, findRange, parseAddress, parseIpRange, rangesOverlap } from '../../domain/ip-ranges.js';

describe('certification test IPs: parsing', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7', 4],
    ['198.51.100.0/28', '198.51.100.0/28', 4],
    [' 198.51.100.0/24 ', '198.51.100.0/24', 4],
    ['2001:db8::1', '2001:db8::1', 6],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1', 6],
    ['2001:db8:1::/48', '2001:db8:1::/48', 6],
    ['::ffff:203.0.113.9', '203.0.113.9', 4],
    ['203.0.113.7/32', '203.0.113.7', 4],
  ])('accepts %s as %s', (input, cidr, family) => {
    const r = parseIpRange(input);
    expect(r.cidr).toBe(cidr);
    expect(r.family).toBe(family);
  });

  it.each([
    ['', /required/],
    ['   ', /required/],
    ['localhost', /not an IPv4 or IPv6/],
    ['256.1.1.1', /not an IPv4 or IPv6/],
    ['1.2.3', /not an IPv4 or IPv6/],
    ['1.2.3.4/', /not an IPv4 or IPv6/],
    ['1.2.3.4/33', /at most \/32/],
    ['2001:db8::/129', /at most \/128/],
    ['1.2.3.4/24', /host bits set: did you mean 1\.2\.3\.0\/24/],
    ['10.0.0.0/8', /too large a range/],
    ['0.0.0.0/0', /too large a range/],
    ['::/0', /too large a range/],
    ['2001:db8::/32', /too large a range/],
    ['1.2.3.4; rm -rf /', /not an IPv4 or IPv6/],
    ['<script>alert(1)</script>', /not an IPv4 or IPv6/],
    ['1'.repeat(100), /too long/],
    ['1.2.3.4/0024', /not an IPv4 or IPv6/],
  ])('refuses %j with a clear error', (input, message) => {
    expect(() => parseIpRange(input)).toThrow(IpRangeError);
    expect(() => parseIpRange(input)).toThrow(message);
  });

  it('refuses non-strings', () => {
    for (const v of [null, undefined, 42, {}, ['1.2.3.4']]) expect(() => parseIpRange(v)).toThrow(/must be a string/);
  });
});

describe('certification test IPs: overlap and membership', () => {
  it('finds overlaps in the same family only', () => {
    expect(rangesOverlap(parseIpRange('198.51.100.0/24'), parseIpRange('198.51.100.200'))).toBe(true);
    expect(rangesOverlap(parseIpRange('198.51.100.0/25'), parseIpRange('198.51.100.128/25'))).toBe(false);
    expect(rangesOverlap(parseIpRange('2001:db8::/64'), parseIpRange('2001:db8::ffff'))).toBe(true);
    expect(rangesOverlap(parseIpRange('0.0.0.1'), parseIpRange('::1'))).toBe(false);
  });

  it('matches the boundaries of a range and nothing beyond', () => {
    const ranges = [parseIpRange('198.51.100.16/28'), parseIpRange('2001:db8:5::/48')];
    expect(findRange(ranges, '198.51.100.16')?.cidr).toBe('198.51.100.16/28');
    expect(findRange(ranges, '198.51.100.31')?.cidr).toBe('198.51.100.16/28');
    expect(findRange(ranges, '198.51.100.15')).toBeNull();
    expect(findRange(ranges, '198.51.100.32')).toBeNull();
    expect(findRange(ranges, '2001:db8:5:ffff:ffff:ffff:ffff:ffff')?.cidr).toBe('2001:db8:5::/48');
    expect(findRange(ranges, '2001:db8:6::')).toBeNull();
    expect(findRange(ranges, '::ffff:198.51.100.20')?.cidr).toBe('198.51.100.16/28');
    expect(findRange(ranges, 'garbage')).toBeNull();
  });

  it('parses addresses canonically', () => {
    expect(parseAddress('2001:DB8:0:0:1:0:0:1')?.text).toBe('2001:db8::1:0:0:1');
    expect(parseAddress('::')?.text).toBe('::');
    expect(parseAddress('1.2.3.04')).toBeNull();
  });
});
