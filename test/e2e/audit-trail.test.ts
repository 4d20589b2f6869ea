// The audit trail cannot be flooded away: after 100,000 refused sign-ins (written straight through
// the store API, from as many addresses) every earlier entry is still found by actor and action, in
// Redis (a real redis-server) and in the embedded segment store, from the store and from
// `npm run audit -- list`; the embedded store reads only segments that can hold a match; the trail
// is trimmed by size with noise first; the single-file trail of earlier versions is migrated.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { createAuditLog, createAuditStore, type AuditLog } from '../../support/audit/audit-log.js';
import { runAuditCli } from '../../cli/audit.js';

const FLOOD = 100_000;
const DAY = 86_400_000;
let redisServer: TestRedis;
let redis: Redis;
let dir: string;

beforeAll(async () => {
  redisServer = await startTestRedis();
  redis = new Redis(redisServer.url);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-trail-'));
}, 30_000);

afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** 100,000 refused sign-ins from 100,000 addresses, one second apart, after `start`. */
async function flood(log: AuditLog, start: number): Promise<void> {
  for (let i = 0; i < FLOOD; i += 1000) {
    await Promise.all(
      Array.from({ length: 1000 }, (_, j) =>
        log.write({
          actor: 'anonymous',
          action: 'sign-in.refused',
          target: null,
          from: `10.${(i + j) >> 16}.${((i + j) >> 8) & 255}.${(i + j) & 255}`,
          time: new Date(start + (i + j) * 1000).toISOString(),
          details: { reason: 'unknown' },
        }),
      ),
    );
  }
}

async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAuditCli(['list', ...args], env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

for (const kind of ['redis', 'embedded'] as const) {
  describe(`audit trail (${kind})`, () => {
    const dataDir = () => path.join(dir, kind);
    const env = () => ({ DATA_DIR: dataDir(), ...(kind === 'redis' ? { REDIS_URL: redisServer.url } : {}) });
    const start = Date.now() - 3 * DAY;
    let log: AuditLog;

    beforeAll(async () => {
      log = createAuditStore({ redis: kind === 'redis' ? redis : null, dataDir: dataDir(), retentionMs: 400 * DAY });
      const at = (ms: number) => new Date(start - ms).toISOString();
      await log.write({ actor: 'support:ALICE', action: 'record.unmask', target: 'req-unmasked', from: '192.0.2.7', time: at(3000) });
      await log.write({ actor: 'support:ALICE', action: 'record.view', target: 'req-unmasked', from: '192.0.2.7', time: at(4000) });
      await log.write({ actor: 'support:BOB', action: 'record.unmask', target: 'req-bob', from: '192.0.2.8', time: at(2000) });
      await log.write({ actor: 'cli:root', action: 'key.revoke', target: 'key_1', from: 'cli', time: at(1000) });
      await flood(log, start);
    }, 240_000);

    it('finds every earlier entry by actor and action, and by a family of actions', async () => {
      const unmask = await log.list({ actor: 'support:ALICE', action: 'record.unmask' });
      expect(unmask.map((e) => e.target)).toEqual(['req-unmasked']);
      expect((await log.list({ action: 'record.unmask' })).map((e) => e.target)).toEqual(['req-bob', 'req-unmasked']);
      expect((await log.list({ action: 'record' })).map((e) => e.action)).toEqual(['record.unmask', 'record.unmask', 'record.view']);
      expect((await log.list({ actor: 'cli:root' })).map((e) => e.action)).toEqual(['key.revoke']);
      const refused = await log.list({ action: 'sign-in.refused', limit: 5 });
      expect(refused).toHaveLength(5);
      expect(refused[0]!.time).toBe(new Date(start + (FLOOD - 1) * 1000).toISOString());
    });

    it('filters by time inside the store', async () => {
      const from = start + 5000 * 1000;
      const page = await log.list({ action: 'sign-in.refused', from, to: from + 9000, limit: 100 });
      expect(page.map((e) => e.time)).toEqual(Array.from({ length: 10 }, (_, i) => new Date(from + (9 - i) * 1000).toISOString()));
      expect(await log.list({ action: 'record.unmask', from: start })).toEqual([]);
    });

    it('serves a deep page of the whole trail (Redis is asked for that page only)', async () => {
      const asked: number[] = [];
      const spy = kind === 'redis' ? vi.spyOn(redis, 'zrevrangebyscore') : null;
      try {
        const page = await log.list({ offset: FLOOD - 1, limit: 3 });
        expect(page.map((e) => [e.action, e.target])).toEqual([
          ['sign-in.refused', null],
          ['key.revoke', 'key_1'],
          ['record.unmask', 'req-bob'],
        ]);
        expect(page[0]!.time).toBe(new Date(start).toISOString());
        for (const call of spy?.mock.calls ?? []) asked.push(Number(call.at(-1)));
      } finally {
        spy?.mockRestore();
      }
      if (kind === 'redis') expect(Math.max(...asked)).toBeLessThanOrEqual(3);
    });

    it('answers `npm run audit -- list --action --actor` from the same store', async () => {
      const r = await cli(['--action', 'record.unmask', '--actor', 'support:ALICE', '--json'], env());
      expect(r.code).toBe(0);
      expect(r.out.map((l) => JSON.parse(l).target)).toEqual(['req-unmasked']);
      const bad = await cli(['--action', 'record.unmasked'], env());
      expect(bad.code).toBe(2);
      expect(bad.err.join('\n')).toMatch(/unknown audit action "record.unmasked"; use one of .*record.unmask/);
    });

    if (kind === 'embedded')
      it('reads no noise segment for a filter on other actions, and one segment for the newest page', async () => {
        const opened: string[] = [];
        const original = fsp.open;
        const spy = vi.spyOn(fsp, 'open').mockImplementation(((file: string, ...rest: unknown[]) => {
          opened.push(path.basename(String(file)));
          return Reflect.apply(original, fsp, [file, ...rest]);
        }) as typeof fsp.open);
        try {
          await log.list({ actor: 'support:ALICE', action: 'record.unmask' });
          expect(opened.filter((f) => f.startsWith('noise-'))).toEqual([]);
          opened.length = 0;
          await log.list({ limit: 25 });
          expect(opened.filter((f) => f.endsWith('.jsonl')).length).toBeLessThanOrEqual(2);
        } finally {
          spy.mockRestore();
        }
        const segments = fs.readdirSync(path.join(dataDir(), 'audit')).filter((f) => f.endsWith('.jsonl'));
        expect(segments.length).toBeGreaterThan(20);
      });
  });
}

describe('audit trail size', () => {
  for (const kind of ['redis', 'embedded'] as const)
    it(`trims noise first once it holds more than AUDIT_MAX_ENTRIES (${kind})`, async () => {
      let now = Date.now();
      const dataDir = path.join(dir, `trim-${kind}`);
      if (kind === 'redis') await redis.flushall();
      const log = createAuditStore({
        redis: kind === 'redis' ? redis : null,
        dataDir,
        retentionMs: 400 * DAY,
        maxEntries: 2000,
        now: () => now,
      });
      await log.write({ actor: 'support:ALICE', action: 'record.unmask', target: 'kept', from: '192.0.2.7' });
      for (let i = 0; i < 8000; i += 500)
        await Promise.all(
          Array.from({ length: 500 }, (_, j) =>
            log.write({ actor: 'anonymous', action: 'sign-in.refused', target: null, from: `10.0.${i + j}` }),
          ),
        );
      now += 61_000;
      await log.write({ actor: 'support:ALICE', action: 'sign-in', target: null, from: '192.0.2.7' });
      if (kind === 'redis') expect(await redis.zcard('{audit}:x:all')).toBeLessThanOrEqual(2000);
      else {
        const lines = fs
          .readdirSync(path.join(dataDir, 'audit'))
          .filter((f) => f.endsWith('.jsonl'))
          .reduce(
            (n, f) =>
              n +
              fs
                .readFileSync(path.join(dataDir, 'audit', f), 'utf8')
                .split('\n')
                .filter(Boolean).length,
            0,
          );
        expect(lines).toBeLessThanOrEqual(2000);
      }
      expect((await log.list({ action: 'record.unmask' })).map((e) => e.target)).toEqual(['kept']);
    });
});

describe('aggregated noise', () => {
  it('keeps one entry per actor, action and address per minute, with a count', async () => {
    let now = Date.parse('2026-03-01T10:00:05Z');
    const log = createAuditLog({ redis: null, dataDir: path.join(dir, 'agg'), retentionMs: 400 * DAY, now: () => now });
    for (let i = 0; i < 50; i++) await log.write({ actor: 'anonymous', action: 'sign-in.refused', target: null, from: '203.0.113.9' });
    now += 1000;
    await log.write({ actor: 'anonymous', action: 'sign-in.refused', target: null, from: '203.0.113.10' });
    for (let i = 0; i < 3; i++) await log.write({ actor: 'support:ALICE', action: 'search', target: null, from: '192.0.2.7' });
    await log.write({ actor: 'support:ALICE', action: 'record.view', target: 'r1', from: '192.0.2.7' });
    await log.write({ actor: 'support:ALICE', action: 'record.view', target: 'r1', from: '192.0.2.7' });
    const refused = await log.list({ action: 'sign-in.refused' });
    expect(refused.map((e) => [e.from, e.count])).toEqual([
      ['203.0.113.10', 1],
      ['203.0.113.9', 50],
    ]);
    expect((await log.list({ action: 'search' })).map((e) => e.count)).toEqual([3]);
    expect(await log.list({ action: 'record.view' })).toHaveLength(2);
    now += 60_000;
    await log.write({ actor: 'anonymous', action: 'sign-in.refused', target: null, from: '203.0.113.9' });
    await log.close!();
    // The counts survive the process: a fresh reader sees what was written.
    const fresh = createAuditStore({ redis: null, dataDir: path.join(dir, 'agg'), retentionMs: 400 * DAY, now: () => now });
    expect((await fresh.list({ action: 'sign-in.refused', actor: 'anonymous' })).map((e) => e.count)).toEqual([1, 1, 50]);
  });
});

describe('migration', () => {
  it('splits the single-file trail of earlier versions into segments', async () => {
    const dataDir = path.join(dir, 'legacy');
    fs.mkdirSync(path.join(dataDir, 'audit'), { recursive: true });
    const t = Date.now() - DAY;
    const lines = [
      { id: 'aud_1', time: new Date(t).toISOString(), actor: 'support:ALICE', action: 'record.unmask', target: 'old', from: '192.0.2.7' },
      { id: 'aud_2', time: new Date(t + 1).toISOString(), actor: 'anonymous', action: 'sign-in.refused', target: null, from: '10.0.0.1' },
    ];
    fs.writeFileSync(path.join(dataDir, 'audit', 'audit.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const log = createAuditStore({ redis: null, dataDir, retentionMs: 400 * DAY });
    expect((await log.list()).map((e) => e.id)).toEqual(['aud_2', 'aud_1']);
    expect(fs.existsSync(path.join(dataDir, 'audit', 'audit.jsonl'))).toBe(false);
  });

  it('moves the single sorted set of earlier versions into the indexes (redis)', async () => {
    await redis.flushall();
    const e = {
      id: 'aud_9',
      time: new Date().toISOString(),
      actor: 'support:ALICE',
      action: 'record.rerun',
      target: 'x',
      from: '192.0.2.7',
    };
    await redis.zadd('audit:log', Date.parse(e.time), JSON.stringify(e));
    const log = createAuditStore({ redis, dataDir: dir, retentionMs: 400 * DAY });
    expect((await log.list({ action: 'record.rerun', actor: 'support:ALICE' })).map((x) => x.id)).toEqual(['aud_9']);
    expect(await redis.exists('audit:log')).toBe(0);
  });
});
