// What a replay record keeps and how support finds it, against real stores (Redis and embedded):
// a request id two partners sent names no single record (admin /replay/<id> lists both with 300
// until partner and environment pick one), and an operationName that names no operation of the
// document is stored as `<unknown>`, never verbatim.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { issueKey } from '../../stores/key-store.js';
import { runReplayCli } from '../../cli/replay.js';

const ADMIN_TOKEN = 'admin-token-for-replay-record-tests-0123';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const PLANS = '{ utilities(zipCode: "75001") { id } }';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe.each(['redis', 'embedded'])('replay records (%s store)', (store) => {
  let t: TestGateway;
  let admin: string;
  let betaKey: string;

  beforeAll(async () => {
    const port = await freePort();
    admin = `http://127.0.0.1:${port}`;
    t = await startTestGateway({
      ADMIN_TOKEN,
      ADMIN_PORT: String(port),
      CACHE_ENABLED: 'false',
      ...(store === 'redis' ? { REDIS_URL: redis.url } : {}),
    });
    betaKey = (await issueKey(path.join(t.dataDir, 'keys.json'), { environment: 'production', partnerCode: 'BETA' })).key;
    // The keys file is reloaded every second.
    await eventually(async () => (await t.post('production', PLANS, undefined, { key: betaKey })).status === 200, 10_000, 200);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const record = (id: string, query = '') => fetch(`${admin}/replay/${encodeURIComponent(id)}${query}`, { headers: auth });

  it('a request id two partners sent: 300 listing both; partner and environment pick one', async () => {
    const id = `reused-${store}-${Date.now()}`;
    const acme = await t.post('production', PLANS, undefined, { headers: { 'x-request-id': id } });
    expect(acme.status).toBe(200);
    await eventually(async () => (await record(id)).status === 200);
    const beta = await t.post('production', '{ utilities(zipCode: "77002") { id } }', undefined, {
      key: betaKey,
      headers: { 'x-request-id': id },
    });
    expect(beta.status).toBe(200);
    await eventually(async () => (await record(id)).status === 300, 10_000, 100);

    const both = await (await record(id)).json();
    expect(both.count).toBe(2);
    expect(both.records.map((r: { partnerCode: string }) => r.partnerCode).sort()).toEqual(['ACME', 'BETA']);
    expect(both.problems[0]).toMatch(/partner= and \?env=/);

    const picked = await record(id, '?partner=ACME&env=production');
    expect(picked.status).toBe(200);
    expect(await picked.json()).toMatchObject({ partnerCode: 'ACME', environment: 'production', responseBody: acme.text });
    expect((await record(id, '?partner=NOBODY')).status).toBe(404);

    // `npm run replay -- show` never picks one either.
    const cli = async (args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const env = { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: t.dataDir, REDIS_URL: store === 'redis' ? redis.url : '' };
      const code = await runReplayCli(args, env, { out: (l) => out.push(l), err: (l) => err.push(l), raw: () => {} });
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    const ambiguous = await cli(['show', id]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.err).toMatch(
      /more than one partner.*production\/ACME.*production\/BETA|more than one partner.*production\/BETA.*production\/ACME/,
    );
    const shown = await cli(['show', id, '--partner', 'beta', '--env', 'production']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({ partnerCode: 'BETA', responseBody: beta.text });
  });

  it('an operationName that names no operation of the document is stored as <unknown>; a real one as it is', async () => {
    const sent = async (query: string, operationName: string) => {
      const id = `opname-${store}-${Math.random().toString(36).slice(2)}`;
      const res = await fetch(t.g.urls.production!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': t.keys.production, 'x-request-id': id },
        body: JSON.stringify({ query, operationName }),
      });
      await res.text();
      return (await eventually(async () => {
        const r = await record(id);
        return r.status === 200 ? r.json() : null;
      })) as { operationName: string | null };
    };
    const accounts = '{ utilityAccounts(address: "901 Bagby St", zipCode: "77002") { accountId } }';
    const address = await sent(accounts, '901 Bagby St');
    expect(address.operationName).toBe('<unknown>');
    expect(JSON.stringify(address)).not.toContain('Bagby');
    expect((await sent(PLANS, 'SomeoneElse')).operationName).toBe('<unknown>');
    const long = `A${'x'.repeat(200)}`;
    expect((await sent(`query ${long} ${PLANS}`, long)).operationName).toBe('<unknown>');
    expect((await sent(`query Utilities ${PLANS}`, 'Utilities')).operationName).toBe('Utilities');
  });
});
