// What a partner listener accepts (server/http/listener-settings.ts): TRUST_PROXY and CORS_ORIGINS
// are kinds of their own, read once into what the listener uses; a malformed, hostile or oversized
// value is refused at start naming its variable, in one line, without echoing more than a slice.
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/settings.js';
import { listenerSettings } from '../../server/http/listener-settings.js';
import { loadConfig } from '../../start/config.js';

const read = (env: Record<string, string>) => {
  const problems: string[] = [];
  const settings = readSettings(listenerSettings, env, problems);
  return { settings: settings!, problems };
};

describe('TRUST_PROXY', () => {
  it('takes a hop count, or addresses, CIDR ranges and proxy-addr names; 0 and false trust none', () => {
    expect(read({ TRUST_PROXY: '2' }).settings.trustProxy).toMatchObject({ hops: 2, header: 'x-forwarded-for' });
    expect(read({ TRUST_PROXY: ' 10.0.0.5 , 192.168.0.0/16,loopback,fe80::/10 ' }).settings.trustProxy).toMatchObject({
      ranges: ['10.0.0.5', '192.168.0.0/16', 'loopback', 'fe80::/10'],
    });
    expect(read({ TRUST_PROXY: '1', TRUST_PROXY_HEADER: 'forwarded' }).settings.trustProxy).toMatchObject({ hops: 1, header: 'forwarded' });
    for (const none of ['0', 'false', '', '  ']) expect(read({ TRUST_PROXY: none }).settings.trustProxy).toBeNull();
    // A count past what any deployment has is capped, not refused (as before).
    expect(read({ TRUST_PROXY: '9'.repeat(400) }).settings.trustProxy).toMatchObject({ hops: 32 });
  });

  it.each([
    ['10.0.0.0/33', '10.0.0.0/33'],
    ['10.0.0.0/-1', '10.0.0.0/-1'],
    ['300.1.1.1', '300.1.1.1'],
    ['10.0.0.0/8/8', '10.0.0.0/8/8'],
    ['fe80::/129', 'fe80::/129'],
    ['10.0.0.5,,10.0.0.6', ''],
    ['-1', '-1'],
    ['10.0.0.5,167772165', '167772165'],
    ['10.0.0.5\n10.0.0.6', '10.0.0.5\n10.0.0.6'],
    ['yes please', 'yes please'],
  ])('refuses %j, naming the variable and the entry', (value, entry) => {
    const { problems } = read({ TRUST_PROXY: value });
    expect(problems).toEqual([
      `TRUST_PROXY: "${entry}" is neither a hop count nor an IP address or CIDR range (such as 10.0.0.5 or 10.0.0.0/8)`,
    ]);
  });

  it('refuses an oversized value without echoing it', () => {
    const { problems } = read({ TRUST_PROXY: '10.0.0.1,'.repeat(600) });
    expect(problems).toEqual(['TRUST_PROXY is longer than 4096 characters']);
    const long = read({ TRUST_PROXY: `${'a'.repeat(1000)}` }).problems.join('');
    expect(long.length).toBeLessThan(200);
  });

  it('trusted proxies turn the keyed per-address socket cap off unless it is set; trusting none keeps it', () => {
    expect(read({ TRUST_PROXY: '1' }).settings.connections.keyed.maxConnectionsPerIp).toBe(0);
    expect(read({ TRUST_PROXY: '10.0.0.0/8' }).settings.connections.keyed.maxConnectionsPerIp).toBe(0);
    expect(read({ TRUST_PROXY: '0' }).settings.connections.keyed.maxConnectionsPerIp).toBe(512);
    expect(read({ TRUST_PROXY: 'false' }).settings.connections.keyed.maxConnectionsPerIp).toBe(512);
    expect(read({ TRUST_PROXY: '1', KEYED_MAX_CONNECTIONS_PER_IP: '7' }).settings.connections.keyed.maxConnectionsPerIp).toBe(7);
    // A wrong TRUST_PROXY reads as unset: the cap stays on while the problem is reported.
    const wrong = read({ TRUST_PROXY: 'nope' });
    expect(wrong.problems).toHaveLength(1);
    expect(wrong.settings.connections.keyed.maxConnectionsPerIp).toBe(512);
  });
});

describe('CORS_ORIGINS', () => {
  it('takes * or origins, each kept as a browser sends it in Origin', () => {
    expect(read({}).settings.corsOrigins).toEqual(new Set());
    expect(read({ CORS_ORIGINS: ' * ' }).settings.corsOrigins).toBe('*');
    expect(read({ CORS_ORIGINS: 'https://app.example.com, http://localhost:3000,' }).settings.corsOrigins).toEqual(
      new Set(['https://app.example.com', 'http://localhost:3000']),
    );
    expect(read({ CORS_ORIGINS: 'HTTPS://App.Example.COM:443/,http://[::1]:8080' }).settings.corsOrigins).toEqual(
      new Set(['https://app.example.com', 'http://[::1]:8080']),
    );
  });

  it.each([
    'https://app.example.com/path',
    'https://app.example.com?x=1',
    'https://app.example.com/?',
    'https://app.example.com#top',
    'https://user:pw@app.example.com',
    'ftp://app.example.com',
    'app.example.com',
    'null',
    'javascript:alert(1)',
    'https://app.exa\tmple.com',
    'https://',
  ])('refuses %j, naming the variable and the entry', (value) => {
    const { problems } = read({ CORS_ORIGINS: `https://ok.example,${value}` });
    expect(problems).toEqual([
      `CORS_ORIGINS: "${value}" is not an origin (http or https, a host and a port, no path: https://app.example.com)`,
    ]);
  });

  it('refuses * in a list, and an oversized list without echoing it', () => {
    expect(read({ CORS_ORIGINS: 'https://a.example,*' }).problems).toEqual([
      'CORS_ORIGINS: * stands alone (every origin), not in a list of origins',
    ]);
    expect(read({ CORS_ORIGINS: 'https://a.example,'.repeat(500) }).problems).toEqual(['CORS_ORIGINS is longer than 8192 characters']);
    const long = read({ CORS_ORIGINS: `https://${'a'.repeat(5000)}.example/x` }).problems.join('');
    expect(long.length).toBeLessThan(250);
  });

  it('reaches the gateway config: the listener reads what the setting says', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com/' }).corsOrigins).toEqual(new Set(['https://app.example.com']));
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/embed' })).toThrow(/CORS_ORIGINS: "https:\/\/app.example.com\/embed"/);
  });
});
