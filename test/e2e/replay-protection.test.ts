// The keyless playground cannot evict, shadow or skip a partner's replay
// records, and personal data is not kept in clear. A real gateway over a real redis-server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { launchGateway as startGateway } from '../../start/launch.js';
import type { GatewayHandle } from '../../start/app.js';
import { issueKey } from '../../stores/key-store.js';
import { runReplayCli } from '../../cli/replay.js';
import { connectRedis, type RedisClient } from '../../cache/redis-connection.js';
import { createReplayStore, type ReplayRecord, type ReplayStore } from '../../stores/replay-store.js';
import { loadConfig } from '../../start/config.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
const PII_KEY = randomBytes(32).toString('base64');
const ACCOUNTS =
  'query Accounts($address: String!, $zip: String!) { utilityAccounts(address: $address, zipCode: $zip) { accountId idType serviceAddress { line1 zip } } }';

let tmp: string;
let redis: TestRedis;
let reader: RedisClient;
let store: ReplayStore;
let gw: GatewayHandle;
let adminUrl: string;
let prodKey: string;
let env: Record<string, string>;

async function gql(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function replayCli(args: string[], extra: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  let raw = '';
  const code = await runReplayCli(
    args,
    { ...process.env, ...env, ...extra },
    { out: (l) => out.push(l), err: (l) => err.push(l), raw: (t) => (raw += t) },
  );
  return { code, out: out.join('\n'), err: err.join('\n'), raw };
}

/** Every byte the replay log holds in Redis, inflated, as one string. */
async function everythingStored(): Promise<string> {
  const { unpackChunk } = await import('../../stores/replay-store.js');
  const keys = await reader.keys('epg:{replay}:*');
  let all = '';
  for (const k of keys) {
    const type = await reader.type(k);
    if (type !== 'string') {
      all += JSON.stringify(type === 'hash' ? await reader.hgetall(k) : await reader.zrange(k, 0, -1));
      continue;
    }
    const v = (await reader.getBuffer(k))!;
    try {
      all += unpackChunk(v);
    } catch {
      all += v.toString('utf8');
    }
  }
  return all;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-protection-'));
  redis = await startTestRedis();
  const keysFile = path.join(tmp, 'keys.json');
  prodKey = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
  const adminPort = await freePort();
  adminUrl = `http://127.0.0.1:${adminPort}`;
  env = {
    PRODUCTION_PORT: '0',
    CERTIFICATION_PORT: '0',
    PLAYGROUND_PORT: '0',
    UPSTREAM_PORT: '0',
    OPS_PORT: '0',
    LOG_LEVEL: 'silent',
    DATA_DIR: path.join(tmp, 'data'),
    REDIS_URL: redis.url,
    KEYS_FILE: keysFile,
    PLAYGROUND_ALLOWANCE: '1000',
    // Small budgets: the attack of row 3 needs only a few hundred requests to fill them.
    REPLAY_MAX_BYTES: '1MiB',
    REPLAY_PLAYGROUND_MAX_BYTES: '64KiB',
    REPLAY_PII_KEY: PII_KEY,
    // Row 3 as the issue found it: the request-path defences (free-request rate, query bytes) would
    // refuse most of the flood before the body is read; this file tests what replay keeps of it.
    PLAYGROUND_FREE_REQUESTS: '1000000',
    PLAYGROUND_MAX_QUERY_BYTES: '65536',
  };
  gw = await startGateway({ env: { ...env, ADMIN_TOKEN, ADMIN_PORT: String(adminPort) } });
  reader = await connectRedis(redis.url);
  store = createReplayStore({ redis: reader, dataDir: tmp, settings: loadConfig(env).cacheReplay.replay });
});

afterAll(async () => {
  await gw?.close().catch(() => {});
  await store?.close().catch(() => {});
  reader?.disconnect();
  await redis?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('replay partitions (rows 3 and 7)', () => {
  it('row 3: a flood of keyless 61 KB introspection documents does not evict a partner record, and keeps no full text', async () => {
    const id = `partner-case-${Date.now()}`;
    const keyed = await gql(
      gw.urls.production!,
      { query: '{ utilities(zipCode: "75001") { id name } }' },
      { 'x-api-key': prodKey, 'x-request-id': id },
    );
    expect(keyed.status).toBe(200);
    await eventually(() => store.get(id));
    const filler = `{ __typename }\n#${'x'.repeat(61 * 1024)}`;
    let lastId = '';
    for (let i = 0; i < 300; i++) {
      const r = await gql(gw.urls.playground!, { query: `${filler}${i}` });
      lastId = r.headers.get('x-request-id')!;
    }
    const flood = await eventually(() => store.get(lastId, 'playground'));
    // Recorded without its text: a digest, the size and the first characters.
    expect(flood.query).toBeNull();
    expect(flood.queryDigest).toMatchObject({ bytes: filler.length + 3, head: expect.stringMatching(/^\{ __typename \}/) });
    expect(flood.queryDigest!.head.length).toBeLessThanOrEqual(200);
    expect(flood.queryDigest!.sha256).toMatch(/^[0-9a-f]{64}$/);
    // The partner's record is still there, through the CLI as support uses it.
    const shown = await replayCli(['show', id]);
    expect(shown.code, shown.err).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({ id, environment: 'production', partnerCode: 'ACME', responseBody: keyed.text });
  });

  it("row 7: a keyless request reusing a partner's x-request-id never shadows the partner's record", async () => {
    const id = `shared-id-${Date.now()}`;
    const keyed = await gql(
      gw.urls.production!,
      { query: '{ utilities(zipCode: "75001") { id } }' },
      { 'x-api-key': prodKey, 'x-request-id': id },
    );
    expect(keyed.status).toBe(200);
    await eventually(() => store.get(id, 'production'));
    const attacker = await gql(gw.urls.playground!, { query: '{ utilities(zipCode: "75002") { id } }' }, { 'x-request-id': id });
    expect(attacker.headers.get('x-request-id')).toBe(id);
    await eventually(() => store.get(id, 'playground'));

    const shown = await replayCli(['show', id]);
    expect(JSON.parse(shown.out)).toMatchObject({ environment: 'production', partnerCode: 'ACME', responseBody: keyed.text });
    const asAttacker = await replayCli(['show', id, '--env', 'playground']);
    expect(JSON.parse(asAttacker.out)).toMatchObject({ environment: 'playground', responseBody: attacker.text });

    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const admin = await (await fetch(`${adminUrl}/replay/${id}`, { headers: auth })).json();
    expect(admin).toMatchObject({ environment: 'production', responseBody: keyed.text });
    const adminPlayground = await (await fetch(`${adminUrl}/replay/${id}?env=playground`, { headers: auth })).json();
    expect(adminPlayground).toMatchObject({ environment: 'playground' });
  });
});

describe('every keyed request is recorded', () => {
  it('an unused variable nested 20,000 levels deep still leaves a record of the answer', async () => {
    // Arrays: 40 KB, within the 64 KB body limit.
    const deep = `${'['.repeat(20_000)}0${']'.repeat(20_000)}`;
    const id = `deep-vars-${Date.now()}`;
    const body = `{"query":${JSON.stringify(ACCOUNTS)},"variables":{"address":"1500 Marilla St","zip":"75201","unused":${deep}}}`;
    const res = await gql(gw.urls.production!, body, { 'x-api-key': prodKey, 'x-request-id': id });
    expect(res.status).toBeLessThan(500);
    const rec = await eventually(() => store.get(id, 'production'));
    expect(rec.status).toBe(res.status);
    expect(JSON.stringify(rec)).not.toMatch(/MARILLA/i);
  });
});

describe('personal data at rest', () => {
  let id: string;
  let answer: string;

  it('the address, account ids and upstream query strings are not stored in clear', async () => {
    id = `accounts-${Date.now()}`;
    const res = await gql(
      gw.urls.production!,
      { query: ACCOUNTS, variables: { address: '1500 Marilla St', zip: '75201' } },
      { 'x-api-key': prodKey, 'x-request-id': id },
    );
    expect(res.status).toBe(200);
    answer = res.text;
    const accounts = JSON.parse(res.text).data.utilityAccounts as { accountId: string }[];
    expect(accounts.length).toBeGreaterThan(0);
    const rec = await eventually(() => store.get(id));
    expect(rec.personalData?.sealed).toMatchObject({ alg: 'aes-256-gcm' });
    expect(rec.upstreamCalls.length).toBeGreaterThan(0);
    for (const c of rec.upstreamCalls) expect(c.url).not.toMatch(/address=|zip=/);
    const stored = await everythingStored();
    expect(stored).toContain(id);
    expect(stored).not.toMatch(/marilla/i);
    for (const a of accounts) expect(stored).not.toContain(a.accountId);
    // The admin API lists records as stored: nothing personal in bulk either.
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const listed = await (await fetch(`${adminUrl}/replay?partner=ACME&limit=1000`, { headers: auth })).text();
    expect(listed).toContain(id);
    expect(listed).not.toMatch(/marilla/i);
    for (const a of accounts) expect(listed).not.toContain(a.accountId);
  });

  it('replay show opens it only with REPLAY_PII_KEY; otherwise masked', async () => {
    const withKey = await replayCli(['show', id]);
    expect(withKey.code).toBe(0);
    const open = JSON.parse(withKey.out) as ReplayRecord;
    expect(open.responseBody).toBe(answer);
    expect(open.variables).toEqual({ address: '1500 Marilla St', zip: '75201' });
    expect(open.upstreamCalls.some((c) => /address=1500/i.test(c.url))).toBe(true);

    const withoutKey = await replayCli(['show', id], { REPLAY_PII_KEY: '' });
    expect(withoutKey.code).toBe(0);
    expect(withoutKey.err).toMatch(/REPLAY_PII_KEY/);
    expect(withoutKey.out).not.toMatch(/marilla/i);
    const otherKey = await replayCli(['show', id], { REPLAY_PII_KEY: randomBytes(32).toString('hex') });
    expect(otherKey.err).toMatch(/another key/);
    expect(otherKey.out).not.toMatch(/marilla/i);
    const badKey = await replayCli(['show', id], { REPLAY_PII_KEY: 'short' });
    expect(badKey.code).toBe(2);
    expect(badKey.err).toMatch(/REPLAY_PII_KEY must be 32 bytes/);
    expect(badKey.err).not.toMatch(/\n\s+at /);
  });

  it('without REPLAY_PII_KEY the gateway does not store personal data at all', async () => {
    const plain = await startGateway({ env: { ...env, REPLAY_PII_KEY: '' } });
    try {
      const pid = `accounts-nokey-${Date.now()}`;
      const res = await gql(
        plain.urls.production!,
        { query: ACCOUNTS, variables: { address: '1500 Marilla St', zip: '75201' } },
        { 'x-api-key': prodKey, 'x-request-id': pid },
      );
      expect(res.status).toBe(200);
      const rec = await eventually(() => store.get(pid));
      expect(rec.personalData).toEqual({ sealed: null });
      expect(JSON.stringify(rec)).not.toMatch(/marilla/i);
      const shown = await replayCli(['show', pid]);
      expect(shown.err).toMatch(/not stored/);
    } finally {
      await plain.close();
    }
  });

  it('records holding personal data have their own, shorter retention', async () => {
    const short = await startGateway({ env: { ...env, REPLAY_PII_RETENTION: '2s' } });
    const shortStore = createReplayStore({
      redis: reader,
      dataDir: tmp,
      settings: loadConfig({ ...env, REPLAY_PII_RETENTION: '2s' }).cacheReplay.replay,
    });
    try {
      const pid = `accounts-short-${Date.now()}`;
      const oid = `plain-short-${Date.now()}`;
      await gql(
        short.urls.production!,
        { query: ACCOUNTS, variables: { address: '1500 Marilla St', zip: '75201' } },
        { 'x-api-key': prodKey, 'x-request-id': pid },
      );
      await gql(short.urls.production!, { query: '{ utilities(zipCode: "75001") { id } }' }, { 'x-api-key': prodKey, 'x-request-id': oid });
      await eventually(() => shortStore.get(pid));
      await eventually(() => shortStore.get(oid));
      await eventually(async () => ((await shortStore.get(pid)) === null ? true : null), 10_000);
      expect(await shortStore.get(oid)).not.toBeNull();
      expect(loadConfig(env).cacheReplay.replay.personal.retentionMs).toBe(24 * 3_600_000);
    } finally {
      await shortStore.close();
      await short.close();
    }
  });
});
