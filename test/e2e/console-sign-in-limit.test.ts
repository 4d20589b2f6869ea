// Refused console sign-ins over HTTP, against a whole gateway (embedded stores, then Redis): one
// pre-session cookie reused for a burst of wrong tokens from one address gets 429 with Retry-After
// after CONSOLE_SIGN_IN_FAILURES refusals, other addresses are not affected, and the trail holds
// one aggregated entry for the burst with its count, not one per attempt.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { issueKey } from '../../stores/key-store.js';
import { runAuditCli } from '../../cli/audit.js';
import type { AuditEntry } from '../../support/audit/audit-log.js';

const FAILURES = 5;
const BURST = 40;
let redis: TestRedis;

beforeAll(async () => {
  redis = await startTestRedis();
}, 30_000);
afterAll(async () => {
  await redis?.stop();
});

async function preSession(admin: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${admin}/console/sign-in`);
  const pre = /epc_pre=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await res.text())![1]!;
  return { cookie: `epc_pre=${pre}`, csrf };
}

async function signIn(admin: string, from: string, token: string, pre: { cookie: string; csrf: string }) {
  const res = await fetch(`${admin}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre.cookie, 'x-forwarded-for': from },
    body: new URLSearchParams({ _csrf: pre.csrf, token }).toString(),
  });
  await res.arrayBuffer();
  return res;
}

for (const store of ['embedded', 'redis'] as const) {
  describe(`console sign-in limit (${store})`, () => {
    let t: TestGateway;
    let admin: string;
    let dataDir: string;

    beforeAll(async () => {
      const port = await freePort();
      admin = `http://127.0.0.1:${port}`;
      t = await startTestGateway({
        ADMIN_PORT: String(port),
        ADMIN_TOKEN: 'admin-token-for-sign-in-limit-0123456789',
        TRUST_PROXY: '1',
        CONSOLE_SIGN_IN_FAILURES: String(FAILURES),
        CONSOLE_SIGN_IN_WINDOW: '5m',
        ...(store === 'redis' ? { REDIS_URL: redis.url } : {}),
      });
      dataDir = t.dataDir;
    }, 60_000);

    let closed = false;
    afterAll(async () => {
      if (!closed) await t?.g.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('answers 429 with Retry-After after the refusals allowed, for that address only', async () => {
      const attacker = store === 'redis' ? '203.0.113.19' : '203.0.113.9';
      const pre = await preSession(admin);
      const statuses: number[] = [];
      let retryAfter = '';
      for (let i = 0; i < BURST; i++) {
        const res = await signIn(admin, attacker, `wrong-token-${i}`, pre);
        statuses.push(res.status);
        if (res.status === 429) retryAfter = res.headers.get('retry-after') ?? '';
      }
      expect(statuses.slice(0, FAILURES)).toEqual(Array(FAILURES).fill(401));
      expect(statuses.slice(FAILURES)).toEqual(Array(BURST - FAILURES).fill(429));
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect(Number(retryAfter)).toBeLessThanOrEqual(300);
      // Another address still gets an answer on its token, and a right token signs in.
      expect((await signIn(admin, '198.51.100.1', 'wrong', await preSession(admin))).status).toBe(401);
      const { key } = await issueKey(path.join(dataDir, 'keys.json'), { environment: 'support', partnerCode: 'alice' });
      let ok = 0;
      for (let i = 0; i < 40 && ok !== 303; i++) {
        ok = (await signIn(admin, '198.51.100.2', key, await preSession(admin))).status;
        if (ok !== 303) await new Promise((r) => setTimeout(r, 250)); // the keys file is re-read within a second
      }
      expect(ok).toBe(303);
    });

    it('writes one entry per address and minute with the count, not one per attempt', async () => {
      const attacker = store === 'redis' ? '203.0.113.19' : '203.0.113.9';
      // Stopping the gateway writes the counts of the current minute.
      await t.g.close();
      closed = true;
      const out: string[] = [];
      const env = { DATA_DIR: dataDir, ...(store === 'redis' ? { REDIS_URL: redis.url } : {}) };
      const code = await runAuditCli(['list', '--action', 'sign-in', '--actor', 'anonymous', '--json'], env, {
        out: (l) => out.push(l),
        err: () => {},
      });
      expect(code).toBe(0);
      const entries = out.map((l) => JSON.parse(l) as AuditEntry).filter((e) => e.from === attacker);
      const count = (action: string) => entries.filter((e) => e.action === action).reduce((n, e) => n + (e.count ?? 1), 0);
      // A burst can straddle a minute boundary: at most two entries per action.
      expect(entries.filter((e) => e.action === 'sign-in.refused').length).toBeLessThanOrEqual(2);
      expect(entries.filter((e) => e.action === 'sign-in.limited').length).toBeLessThanOrEqual(2);
      expect(count('sign-in.refused')).toBe(FAILURES);
      expect(count('sign-in.limited')).toBe(BURST - FAILURES);
    });
  });
}
