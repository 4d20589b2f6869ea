// Settings: defaults, every bad value named at once, per-environment feed URLs.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../start/config.js';
import { feedKeysFor, feedUrlsFor } from '../../server/config.js';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c.environments).toEqual(['production', 'certification', 'playground']);
    expect([c.ports.production, c.ports.certification, c.ports.playground]).toEqual([4000, 4001, 4002]);
    expect(c.upstream).toEqual({ start: true, port: 4010, url: 'http://127.0.0.1:4010' });
    expect(c.redisUrl).toBeNull();
    expect(c.keysFile).toBe('/srv/app/data/keys.json');
    expect(c.fillPartnerRef).toBe(false);
    expect(c.playgroundAllowance).toBe(10);
    expect(c.corsOrigins).toEqual(new Set());
    expect([c.logLevel, c.meshLogLevel]).toEqual(['info', 'warn']);
  });

  it('caps keyed sockets per address by default, unless the peers are trusted proxies or the setting says otherwise', () => {
    expect(loadConfig({}).connections.keyed.maxConnectionsPerIp).toBe(512);
    expect(loadConfig({ TRUST_PROXY: '1' }).connections.keyed.maxConnectionsPerIp).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '1', KEYED_MAX_CONNECTIONS_PER_IP: '64' }).connections.keyed.maxConnectionsPerIp).toBe(64);
    expect(loadConfig({ KEYED_MAX_CONNECTIONS_PER_IP: '0' }).connections.keyed.maxConnectionsPerIp).toBe(0);
  });

  it('runs the admin listener in a process of its own at niceness 19 by default; refuses a bad switch or niceness', () => {
    expect(loadConfig({}).admin.process).toEqual({ enabled: true, nice: 19 });
    expect(loadConfig({ ADMIN_PROCESS: 'off', ADMIN_NICE: '0' }).admin.process).toEqual({ enabled: false, nice: 0 });
    for (const [name, value, message] of [
      ['ADMIN_PROCESS', 'maybe', 'ADMIN_PROCESS must be true or false, got "maybe"'],
      ['ADMIN_NICE', '20', 'ADMIN_NICE must be an integer from 0 to 19, got "20"'],
      ['ADMIN_NICE', '-1', 'ADMIN_NICE must be an integer from 0 to 19, got "-1"'],
      ['ADMIN_NICE', '5.5', 'ADMIN_NICE must be an integer from 0 to 19, got "5.5"'],
    ]) {
      expect(() => loadConfig({ [name!]: value })).toThrow(message);
    }
  });

  it('lists every problem, naming the variable', () => {
    try {
      loadConfig({
        PRODUCTION_PORT: '70000',
        ENVIRONMENTS: 'production,staging',
        REDIS_URL: 'http://x',
        FILL_PARTNER_REF: 'maybe',
        ENROLLMENT_BASE_URL: 'http://insecure.example',
        TRUST_PROXY: 'nope',
        BODY_LIMIT_BYTES: '12',
        ADMIN_TOKEN: 'short',
        LOG_LEVEL: 'loud',
        MESH_LOG_LEVEL: 'INFO',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const text = (err as ConfigError).problems.join('\n');
      for (const name of [
        'PRODUCTION_PORT',
        'ENVIRONMENTS',
        'REDIS_URL',
        'FILL_PARTNER_REF',
        'ENROLLMENT_BASE_URL',
        'TRUST_PROXY',
        'BODY_LIMIT_BYTES',
        'ADMIN_TOKEN',
        'LOG_LEVEL',
        'MESH_LOG_LEVEL',
      ]) {
        expect(text).toContain(name);
      }
      expect(text).toContain('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"');
    }
  });

  it('takes the log levels pino knows, surrounding spaces aside', () => {
    expect(loadConfig({ LOG_LEVEL: ' debug ', MESH_LOG_LEVEL: 'silent' })).toMatchObject({ logLevel: 'debug', meshLogLevel: 'silent' });
  });

  it('does not start the reference upstream when an upstream is given', () => {
    const c = loadConfig({ UPSTREAM_URL: 'https://feeds.example.com' });
    expect(c.upstream.start).toBe(false);
    expect(c.upstream.url).toBe('https://feeds.example.com');
  });
});

describe('feedUrlsFor', () => {
  it('gives each source its own URL, certification its staging one, else the shared upstream', () => {
    const env = {
      VOLTIFY_URL: 'https://voltify.example/',
      CERTIFICATION_VOLTIFY_URL: 'https://staging.voltify.example',
      CERTIFICATION_UPSTREAM_URL: 'https://staging.feeds.example',
    };
    expect(feedUrlsFor('production', ['Voltify', 'Territories'], env, 'http://127.0.0.1:4010')).toEqual({
      Voltify: 'https://voltify.example',
      Territories: 'http://127.0.0.1:4010',
    });
    expect(feedUrlsFor('certification', ['Voltify', 'Territories'], env, 'http://127.0.0.1:4010')).toEqual({
      Voltify: 'https://staging.voltify.example',
      Territories: 'https://staging.feeds.example',
    });
  });

  it("sends Eia to EIA's API once EIA_API_KEY is set (EIA_URL still wins); the key is the source's feedKey", () => {
    const fallback = 'http://127.0.0.1:4010';
    expect(feedUrlsFor('production', ['Eia'], {}, fallback)).toEqual({ Eia: fallback });
    expect(feedUrlsFor('production', ['Eia'], { EIA_API_KEY: 'k' }, fallback)).toEqual({ Eia: 'https://api.eia.gov' });
    expect(feedUrlsFor('production', ['Eia'], { EIA_API_KEY: 'k', EIA_URL: 'https://eia.mirror.example/' }, fallback)).toEqual({
      Eia: 'https://eia.mirror.example',
    });
    expect(feedKeysFor(['Eia', 'Voltify'], { EIA_API_KEY: ' k ', VOLTIFY_API_KEY: '' })).toEqual({ Eia: 'k' });
  });
});

describe('WORKERS and PLAYGROUND_WORKERS', () => {
  const redis = { REDIS_URL: 'redis://127.0.0.1:6379' };
  it('default to one process; take a count or auto (the cores this process may use)', async () => {
    const os = await import('node:os');
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ ...redis, WORKERS: '4', PLAYGROUND_WORKERS: '2' })).toMatchObject({
      workers: 4,
      playgroundProcess: { workers: 2 },
    });
    expect(loadConfig({ ...redis, WORKERS: 'auto' }).workers).toBe(os.availableParallelism());
  });

  it('refuse a bad count, and more than one worker without Redis', () => {
    expect(() => loadConfig({ WORKERS: '0' })).toThrow(/WORKERS must be a number of processes 1-256 or "auto", got "0"/);
    expect(() => loadConfig({ ...redis, WORKERS: 'many' })).toThrow(/WORKERS must be/);
    expect(() => loadConfig({ WORKERS: '2' })).toThrow(/WORKERS=2 needs REDIS_URL/);
    expect(() => loadConfig({ PLAYGROUND_WORKERS: '3' })).toThrow(/PLAYGROUND_WORKERS=3 needs REDIS_URL/);
    expect(() => loadConfig({ WORKERS: '1' })).not.toThrow();
  });
});
