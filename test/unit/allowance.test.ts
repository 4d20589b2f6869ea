import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  AllowanceUnavailableError,
  EmbeddedAllowanceStore,
  RedisAllowanceStore,
  allowanceKey,
  appendAllowanceReset,
  type AllowanceStore,
} from '../../cache/allowance.js';
import { allowanceSubject } from '../../server/http/client-ip.js';
import { connectRedis, type RedisClient } from '../../cache/redis-connection.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';

function tally(results: { allowed: boolean }[]) {
  return { allowed: results.filter((r) => r.allowed).length, refused: results.filter((r) => !r.allowed).length };
}

describe('RedisAllowanceStore', () => {
  let redis: TestRedis;
  const clients: RedisClient[] = [];
  const client = async () => {
    const c = await connectRedis(redis.url);
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await redis?.stop();
  });

  it('30 concurrent calls from one IP: exactly 10 allowed, counts 1..10, never refilled', async () => {
    const c = await client();
    const store = new RedisAllowanceStore(c, 10);
    expect(await store.peek('192.0.2.1')).toEqual({ remaining: 10 });
    const results = await Promise.all(Array.from({ length: 30 }, () => store.consume('192.0.2.1')));
    expect(tally(results)).toEqual({ allowed: 10, refused: 20 });
    expect(
      results
        .filter((r) => r.allowed)
        .map((r) => r.used)
        .sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(
      results
        .filter((r) => r.allowed)
        .map((r) => r.remaining)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const r of results.filter((x) => !x.allowed)) expect(r).toEqual({ allowed: false, remaining: 0, used: 10 });
    expect(await store.peek('192.0.2.1')).toEqual({ remaining: 0 });
    // The counter stays at the limit (refusals do not increment it) and has no TTL.
    expect(await c.get(allowanceKey('192.0.2.1'))).toBe('10');
    expect(await c.ttl(allowanceKey('192.0.2.1'))).toBe(-1);
    expect(allowanceKey('192.0.2.1')).toBe('epg:allowance:v1:192.0.2.1');
    // Other IPs are separate.
    expect(await store.consume('192.0.2.2')).toEqual({ allowed: true, used: 1, remaining: 9 });
    expect(await store.consume('2001:db8::1')).toEqual({ allowed: true, used: 1, remaining: 9 });
    expect(store.health()).toEqual({ ok: true, mode: 'redis' });
  });

  it('two clients (two gateway processes) on one Redis share the allowance', async () => {
    const a = new RedisAllowanceStore(await client(), 10);
    const b = new RedisAllowanceStore(await client(), 10);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).consume('192.0.2.50')));
    expect(tally(results)).toEqual({ allowed: 10, refused: 20 });
    expect(await a.peek('192.0.2.50')).toEqual({ remaining: 0 });
    // A new store instance (a restarted gateway) does not refill.
    const c = new RedisAllowanceStore(await client(), 10);
    expect(await c.consume('192.0.2.50')).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('fails closed while Redis is down and recovers (script reloaded after a Redis restart)', async () => {
    const c = await client();
    const store = new RedisAllowanceStore(c, 3);
    expect((await store.consume('192.0.2.99')).allowed).toBe(true);
    await redis.stop();
    await expect(store.consume('192.0.2.99')).rejects.toBeInstanceOf(AllowanceUnavailableError);
    await expect(store.peek('192.0.2.99')).rejects.toBeInstanceOf(AllowanceUnavailableError);
    expect(store.health().ok).toBe(false);
    await redis.start();
    const end = Date.now() + 10_000;
    while (c.status !== 'ready' && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    // This test Redis keeps no data across restarts, so the count starts over here; the script
    // cache is empty too, and EVALSHA falls back to EVAL.
    expect(await store.consume('192.0.2.99')).toEqual({ allowed: true, used: 1, remaining: 2 });
    expect(store.health().ok).toBe(true);
  });
});

describe('EmbeddedAllowanceStore', () => {
  const dirs: string[] = [];
  const stores: AllowanceStore[] = [];
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'allowance-'));
    dirs.push(d);
    return d;
  };
  const open = async (dir: string, limit = 10) => {
    const s = await EmbeddedAllowanceStore.open(dir, limit);
    stores.push(s);
    return s;
  };
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('30 concurrent calls from one IP: exactly 10 allowed', async () => {
    const store = await open(tmp());
    const results = await Promise.all(Array.from({ length: 30 }, () => store.consume('192.0.2.1')));
    expect(tally(results)).toEqual({ allowed: 10, refused: 20 });
    expect(await store.peek('192.0.2.1')).toEqual({ remaining: 0 });
    expect(await store.peek('192.0.2.2')).toEqual({ remaining: 10 });
    expect(store.health()).toEqual({ ok: true, mode: 'embedded' });
  });

  it('a restart does not refill: counts are replayed from allowance.log, which is compacted', async () => {
    const dir = tmp();
    const first = await open(dir);
    for (let i = 0; i < 4; i++) await first.consume('192.0.2.7');
    for (let i = 0; i < 12; i++) await first.consume('2001:db8::7');
    const log = fs.readFileSync(path.join(dir, 'allowance.log'), 'utf8').trim().split('\n');
    expect(log).toHaveLength(14); // one line per counted call, none for refusals
    expect(fs.statSync(path.join(dir, 'allowance.log')).mode & 0o777).toBe(0o600);
    await first.close();

    const second = await open(dir);
    expect(await second.peek('192.0.2.7')).toEqual({ remaining: 6 });
    expect(await second.peek('2001:db8::7')).toEqual({ remaining: 0 });
    expect(await second.consume('192.0.2.7')).toEqual({ allowed: true, used: 5, remaining: 5 });
    expect(await second.consume('2001:db8::7')).toMatchObject({ allowed: false });
    await second.close();
    expect(fs.readFileSync(path.join(dir, 'allowance.log'), 'utf8').trim().split('\n').sort()).toEqual([
      '192.0.2.7 4',
      '192.0.2.7 5',
      '2001:db8::7 10',
    ]);
    expect(await (await open(dir)).peek('192.0.2.7')).toEqual({ remaining: 5 });
  });

  it('an IPv6 client counts by its /64 in the log too: a restart does not refill it', async () => {
    const dir = tmp();
    const subject = allowanceSubject('2001:db8:0:1::7');
    const first = await open(dir);
    for (let i = 0; i < 3; i++) await first.consume(subject);
    await first.close();
    const second = await open(dir);
    expect(second.skippedLines).toBe(0);
    expect(await second.peek(subject)).toEqual({ remaining: 7 });
  });

  it('a reset appended by another process applies before the next count and survives a restart', async () => {
    const dir = tmp();
    const store = await open(dir);
    for (let i = 0; i < 10; i++) await store.consume('192.0.2.9');
    await store.consume('192.0.2.10');
    expect(await store.consume('192.0.2.9')).toMatchObject({ allowed: false });
    appendAllowanceReset(path.join(dir, 'allowance.log'), '192.0.2.9');
    expect(await store.peek('192.0.2.9')).toEqual({ remaining: 10 });
    expect(await store.consume('192.0.2.9')).toEqual({ allowed: true, used: 1, remaining: 9 });
    expect(await store.peek('192.0.2.10')).toEqual({ remaining: 9 });
    await store.close();
    const again = await open(dir);
    expect(await again.peek('192.0.2.9')).toEqual({ remaining: 9 });
    expect(await again.peek('192.0.2.10')).toEqual({ remaining: 9 });
    expect(() => appendAllowanceReset(path.join(dir, 'allowance.log'), 'nobody')).toThrow(/not an address/);
  });

  it('ignores corrupt lines, including a torn last line', async () => {
    const dir = tmp();
    fs.writeFileSync(
      path.join(dir, 'allowance.log'),
      [
        '192.0.2.1 3',
        'garbage',
        '',
        '192.0.2.1 2',
        'not-an-ip 5',
        '192.0.2.2 -1',
        '192.0.2.3 abc',
        '\u0000\u0001\u0002',
        '192.0.2.4 99999999999',
        '192.0.2.5 7 extra',
        '198.51.100.9 1',
        '192.0.2.1 4',
        '198.51.100.10 9',
      ].join('\n') + '\n198.51.100.9 2\n198.51.100.1',
    );
    const store = await open(dir);
    expect(store.skippedLines).toBe(8);
    expect(await store.peek('192.0.2.1')).toEqual({ remaining: 6 });
    expect(await store.peek('198.51.100.9')).toEqual({ remaining: 8 });
    expect(await store.peek('198.51.100.10')).toEqual({ remaining: 1 });
    expect(await store.peek('198.51.100.1')).toEqual({ remaining: 10 }); // torn line: no count
    for (const ip of ['192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5']) expect(await store.peek(ip)).toEqual({ remaining: 10 });
    // Compacted to the parsed counts; the next append starts on a fresh line.
    await store.consume('198.51.100.1');
    await store.close();
    expect(fs.readFileSync(path.join(dir, 'allowance.log'), 'utf8')).toBe('192.0.2.1 4\n198.51.100.9 2\n198.51.100.10 9\n198.51.100.1 1\n');
  });

  it('fails closed when it cannot record a call', async () => {
    const store = await open(tmp());
    await store.close();
    await expect(store.consume('192.0.2.1')).rejects.toBeInstanceOf(AllowanceUnavailableError);
    expect(store.health().ok).toBe(false);
  });

  it('one store per log: a second open in this process or a live other process is refused; a dead owner is taken over', async () => {
    const dir = tmp();
    const first = await open(dir);
    await expect(EmbeddedAllowanceStore.open(dir, 10)).rejects.toThrow(/already in use by this process/);
    await first.close();
    fs.writeFileSync(path.join(dir, 'allowance.log.lock'), `${process.ppid}\n`);
    await expect(EmbeddedAllowanceStore.open(dir, 10)).rejects.toThrow(/in use by process/);
    fs.writeFileSync(path.join(dir, 'allowance.log.lock'), '2147483646\n');
    const again = await open(dir);
    expect(fs.readFileSync(path.join(dir, 'allowance.log.lock'), 'utf8').trim()).toBe(String(process.pid));
    await again.close();
    expect(fs.existsSync(path.join(dir, 'allowance.log.lock'))).toBe(false);
  });

  it('a limit of 0 allows nothing', async () => {
    const store = await open(tmp(), 0);
    expect(await store.consume('192.0.2.1')).toEqual({ allowed: false, used: 0, remaining: 0 });
  });
});
