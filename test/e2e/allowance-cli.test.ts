// `npm run allowance -- show|reset --ip ADDRESS` beside a running gateway, with Redis and with the
// embedded store: show counts what the gateway counted, reset gives it back at once (the next
// playground answer says so), and both are in the audit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { runAllowanceCli } from '../../cli/allowance.js';
import { createAuditLog } from '../../support/audit/audit-log.js';
import { connectRedis } from '../../cache/redis-connection.js';

async function cli(args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAllowanceCli(args, { PATH: process.env.PATH, ...env }, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const QUERY = '{ utilities(zipCode: "75001") { id } }';

function suite(name: string, redisUrl: () => string | null) {
  describe(`npm run allowance (${name})`, () => {
    let gw: TestGateway;
    let env: Record<string, string>;
    beforeAll(async () => {
      const url = redisUrl();
      gw = await startTestGateway(url ? { REDIS_URL: url, PLAYGROUND_ALLOWANCE: '5' } : { PLAYGROUND_ALLOWANCE: '5' });
      env = { DATA_DIR: gw.dataDir, KEYS_FILE: `${gw.dataDir}/keys.json`, PLAYGROUND_ALLOWANCE: '5', ...(url ? { REDIS_URL: url } : {}) };
    });
    afterAll(async () => {
      await gw?.close();
    });

    it('show counts what the gateway counted; reset gives it back to the running gateway; both audited', async () => {
      for (let i = 0; i < 3; i++) expect((await gw.post('playground', QUERY)).status).toBe(200);
      const shown = await cli(['show', '--ip', '127.0.0.1'], env);
      expect(shown).toMatchObject({ code: 0, err: '' });
      expect(shown.out).toMatch(/^127\.0\.0\.1: 3 of 5 calls used, 2 left \(/);
      expect(JSON.parse((await cli(['show', '--ip', '127.0.0.1', '--json'], env)).out)).toEqual({
        subject: '127.0.0.1',
        used: 3,
        remaining: 2,
        limit: 5,
      });
      // Spent to the end: refused.
      for (let i = 0; i < 2; i++) await gw.post('playground', QUERY);
      expect((await gw.post('playground', QUERY)).status).toBe(429);

      const reset = await cli(['reset', '--ip', '127.0.0.1'], env);
      expect(reset.code).toBe(0);
      expect(reset.out).toMatch(/^127\.0\.0\.1: allowance given back \(5 of 5 were used\); 5 calls left/);
      const after = await gw.post('playground', QUERY);
      expect(after.status).toBe(200);
      expect(after.headers.get('x-ratelimit-remaining')).toBe('4');
      expect((await cli(['show', '--ip', '127.0.0.1'], env)).out).toMatch(/: 1 of 5 calls used, 4 left/);

      const url = redisUrl();
      const redis = url ? await connectRedis(url) : null;
      try {
        const entries = await createAuditLog({ redis, dataDir: gw.dataDir, retentionMs: 86_400_000 }).list({});
        const mine = entries.filter((e) => e.action.startsWith('allowance.')).reverse();
        expect(mine.map((e) => [e.action, e.target, e.from, e.details])).toEqual([
          ['allowance.show', '127.0.0.1', 'cli', { usedBefore: 3, limit: 5 }],
          ['allowance.show', '127.0.0.1', 'cli', { usedBefore: 3, limit: 5 }],
          ['allowance.reset', '127.0.0.1', 'cli', { usedBefore: 5, limit: 5 }],
          ['allowance.show', '127.0.0.1', 'cli', { usedBefore: 1, limit: 5 }],
        ]);
        expect(mine.every((e) => e.actor.startsWith('cli:'))).toBe(true);
      } finally {
        redis?.disconnect();
      }
    });

    it('an IPv6 address counts by its /64; a bad address or command is a usage error, not a stack trace', async () => {
      expect((await cli(['show', '--ip', '2001:db8:0:1::7'], env)).out).toMatch(/^2001:db8:0:1::\/64: 0 of 5 calls used, 5 left/);
      expect((await cli(['reset', '--ip', '2001:db8::1'], env)).out).toMatch(/nothing to reset/);
      const bad = await cli(['show', '--ip', 'not-an-ip'], env);
      expect(bad.code).toBe(2);
      expect(bad.err).toContain('allowance: --ip must be an IPv4 or IPv6 address, got "not-an-ip"');
      expect((await cli(['wipe', '--ip', '127.0.0.1'], env)).code).toBe(2);
      expect((await cli(['show'], env)).err).toContain('show needs --ip ADDRESS');
    });
  });
}

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});
suite('embedded store', () => null);
suite('Redis', () => redis.url);
