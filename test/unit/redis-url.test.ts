// REDIS_URL: one parser for the configuration check and the connection.
import { describe, expect, it } from 'vitest';
import { describeRedisTarget, parseRedisUrl } from '../../cache/redis-url.js';
import { ConfigError, loadConfig } from '../../start/config.js';
import { redisFromUrl } from '../../cache/redis-connection.js';
import { Cluster, Redis } from 'ioredis';

describe('parseRedisUrl', () => {
  it('reads the multi-host cluster and sentinel forms that new URL() refuses', () => {
    expect(parseRedisUrl('redis-cluster://127.0.0.1:7001,127.0.0.1:7002')).toMatchObject({
      topology: 'cluster',
      tls: false,
      nodes: [
        { host: '127.0.0.1', port: 7001 },
        { host: '127.0.0.1', port: 7002 },
      ],
    });
    expect(parseRedisUrl('redis-sentinel://s1:26379,s2,[::1]:26380/mymaster/2')).toMatchObject({
      topology: 'sentinel',
      masterName: 'mymaster',
      db: 2,
      nodes: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: '::1', port: 26380 },
      ],
    });
    expect(parseRedisUrl('rediss-cluster://u:p%40ss@a.example:6380,b.example:6380')).toMatchObject({
      topology: 'cluster',
      tls: true,
      username: 'u',
      password: 'p@ss',
    });
    expect(parseRedisUrl('rediss://:secret@cache.example/3')).toMatchObject({
      topology: 'standalone',
      tls: true,
      password: 'secret',
      db: 3,
      nodes: [{ host: 'cache.example', port: 6379 }],
    });
    expect(parseRedisUrl('redis://secret@127.0.0.1')).toMatchObject({ password: 'secret', username: undefined });
  });

  it('the configuration accepts what the connection accepts, and both refuse the same', () => {
    expect(loadConfig({ REDIS_URL: 'redis-cluster://127.0.0.1:7001,127.0.0.1:7002' }).redisUrl).toBe(
      'redis-cluster://127.0.0.1:7001,127.0.0.1:7002',
    );
    expect(loadConfig({ REDIS_URL: 'redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster' }).redisUrl).toContain('mymaster');
    expect(redisFromUrl('redis-cluster://127.0.0.1:7001,127.0.0.1:7002')).toBeInstanceOf(Cluster);
    const s = redisFromUrl('redis-sentinel://127.0.0.1:26379/mymaster') as Redis;
    expect(s.options).toMatchObject({ name: 'mymaster', sentinels: [{ host: '127.0.0.1', port: 26379 }] });
    expect(() => loadConfig({ REDIS_URL: 'redis-cluster://h:99999' })).toThrow(/REDIS_URL has an invalid port "99999"/);
    expect(() => redisFromUrl('redis-cluster://h:99999')).toThrow(/REDIS_URL has an invalid port "99999"/);
  });

  it.each([
    ['http://127.0.0.1:6379', /must use redis, rediss, redis-cluster/],
    ['redis-cluster://', /names no host/],
    ['redis-cluster://a:1,,b:2', /empty host/],
    ['redis://a:1,b:2', /use redis-cluster:\/\/ or redis-sentinel:\/\//],
    ['redis-sentinel://a:26379', /must name the master group/],
    ['redis-sentinel://a:26379/my master', /whitespace/],
    ['redis-sentinel://a:26379/m$ster', /must name the master group/],
    ['redis-cluster://a:0', /invalid port "0"/],
    ['redis-cluster://a:-1', /invalid port/],
    ['redis-cluster://a:1/0', /takes no path/],
    ['redis://a/16', /database number "16"/],
    ['redis://a:1?password=x', /query or fragment/],
    ['redis://a\r\nb', /control characters/],
    ['redis://bad_host!:1', /invalid host/],
    ['redis://[zz::1]:1', /invalid IPv6/],
    ['redis://u:%zz@a', /badly percent-encoded password/],
    ['redis-cluster://' + Array.from({ length: 65 }, (_, i) => `h${i}:1`).join(','), /more than 64 hosts/],
    ['redis://' + 'a'.repeat(5000), /longer than 4096/],
    ['not-a-url', /is not a URL/],
  ])('refuses %s with a clear message', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
    expect(() => loadConfig({ REDIS_URL: url })).toThrow(message);
  });

  it('as a setting: one problem naming REDIS_URL, in one line, never the password; the forms and bounds the connection takes', () => {
    const problems = (url: string) => {
      try {
        loadConfig({ REDIS_URL: url });
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    expect(problems('ftp://u:hunter2@cache.example')).toEqual([
      'REDIS_URL must use redis, rediss, redis-cluster, rediss-cluster, redis-sentinel, rediss-sentinel, got "ftp:"',
    ]);
    expect(problems('javascript:alert(1)')[0]).toMatch(/^REDIS_URL is not a URL/);
    for (const hostile of ['redis://:hunter2@bad_host!:1', 'redis://u:hunter2@a:1\nx', `redis://u:hunter2@${'a'.repeat(5000)}`]) {
      const [p, ...more] = problems(hostile);
      expect(more).toEqual([]);
      expect(p).toMatch(/^REDIS_URL /);
      expect(p).not.toContain('hunter2');
      expect(p!.length).toBeLessThan(200);
    }
    // Boundaries: the highest port and database are taken, one past them refused.
    expect(loadConfig({ REDIS_URL: ' rediss://:pw@cache.example:65535/15 ' }).redisUrl).toBe('rediss://:pw@cache.example:65535/15');
    expect(problems('redis://cache.example:65536')).toEqual(['REDIS_URL has an invalid port "65536" (use 1-65535)']);
    expect(problems('redis://cache.example/16')).toEqual(['REDIS_URL has an invalid database number "16" (use 0-15)']);
  });

  it('never repeats a password in messages or descriptions', () => {
    let message = '';
    try {
      parseRedisUrl('redis://user:hunter2-secret@bad_host!:1');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/invalid host/);
    expect(message).not.toContain('hunter2');
    expect(describeRedisTarget('rediss-sentinel://u:hunter2@a:1,b:2/mymaster')).toBe('rediss-sentinel://a:1,b:2/mymaster');
    expect(describeRedisTarget('garbage')).toBe('invalid URL');
  });
});
