// Request coalescing end to end: a real gateway over a reference upstream whose feeds are slowed
// (fault injection), so identical requests overlap for certain while the first one executes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceUpstream, type ReferenceUpstream } from '../../sources/reference-upstream/server.js';
import { createReplayStore } from '../../stores/replay-store.js';
import { loadConfig } from '../../start/config.js';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { eventually } from '../../scripts/harness/eventually.js';

const PLANS =
  'query Plans($zip: String!) { residentialPlans(zipCode: $zip) { id title rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd } } }';
const ACCOUNTS = '{ utilityAccounts(address: "1500 Marilla St", zipCode: "75201") { accountId utilityId } }';

let upstream: ReferenceUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startReferenceUpstream({ port: 0, host: '127.0.0.1' });
  gw = await startTestGateway({ UPSTREAM_URL: upstream.url, START_REFERENCE_UPSTREAM: 'false' });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});
afterEach(() => {
  for (const feed of ['territories', 'voltify', 'brightgrid', 'premises']) upstream.setFault(feed, null);
});

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);

function burst(query: string, variables: Record<string, unknown> | undefined, requestIds: string[]) {
  return Promise.all(requestIds.map((id) => gw.post('production', query, variables, { headers: { 'x-request-id': id } })));
}

describe('request coalescing', () => {
  it('concurrent identical misses execute once; every request keeps its own id, headers and replay record', async () => {
    upstream.setFault('voltify', { kind: 'slow', ms: 1000 });
    const requestIds = ids('coalesce-a', 20);
    const answers = await burst(PLANS, { zip: '75001' }, requestIds);
    const caches = answers.map((a) => a.headers.get('x-cache'));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // One execution. A request that reached the gateway only after it ended (a loaded machine) is
    // an ordinary hit; none executes again.
    expect(caches.filter((c) => c === 'MISS')).toHaveLength(1);
    expect(caches.filter((c) => c === 'COALESCED').length).toBeGreaterThanOrEqual(10);
    expect(caches.filter((c) => c === 'COALESCED' || c === 'HIT')).toHaveLength(19);
    // Byte for byte the same answer, each under its own request id.
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers[0]!.json.data.residentialPlans.length).toBeGreaterThan(0);
    expect(answers.map((a) => a.headers.get('x-request-id'))).toEqual(requestIds);
    // The next identical request is an ordinary cache hit.
    expect((await gw.post('production', PLANS, { zip: '75001' })).headers.get('x-cache')).toBe('HIT');

    const store = createReplayStore({
      redis: null,
      dataDir: gw.dataDir,
      settings: loadConfig({ DATA_DIR: gw.dataDir }).cacheReplay.replay,
    });
    try {
      const records = await eventually(async () => {
        const list = await store.list({ since: Date.now() - 60_000, limit: 1000 });
        const mine = list.filter((r) => r.id.startsWith('coalesce-a-'));
        return mine.length === 20 ? mine : null;
      });
      expect(new Set(records.map((r) => r.id)).size).toBe(20);
      expect(records.filter((r) => r.cache === 'COALESCED')).toHaveLength(caches.filter((c) => c === 'COALESCED').length);
      for (const r of records) expect(r.responseBody).toBe(answers[0]!.text);
    } finally {
      await store.close();
    }
  });

  it('an answer with errors goes only to the requests already waiting; the next request executes again', async () => {
    upstream.setFault('voltify', { kind: 'status', status: 500 });
    upstream.setFault('brightgrid', { kind: 'slow', ms: 1000 });
    const answers = await burst(PLANS, { zip: '19103' }, ids('coalesce-b', 8));
    const caches = answers.map((a) => a.headers.get('x-cache'));
    // Answers with errors are not cached: a request arriving after the execution ended runs again.
    expect(caches.filter((c) => c === 'COALESCED').length).toBeGreaterThanOrEqual(1);
    expect(caches.filter((c) => c === 'MISS').length + caches.filter((c) => c === 'COALESCED').length).toBe(8);
    for (const a of answers) expect(a.json.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');

    upstream.setFault('voltify', null);
    upstream.setFault('brightgrid', null);
    const after = await gw.post('production', PLANS, { zip: '19103' });
    expect(after.headers.get('x-cache')).toBe('MISS');
    expect(after.json.errors).toBeUndefined();
  });

  it('different variables are different executions', async () => {
    upstream.setFault('voltify', { kind: 'slow', ms: 300 });
    const [a, b] = await Promise.all([gw.post('production', PLANS, { zip: '77002' }), gw.post('production', PLANS, { zip: '60601' })]);
    expect([a.headers.get('x-cache'), b.headers.get('x-cache')]).toEqual(['MISS', 'MISS']);
    expect(a.text).not.toBe(b.text);
  });

  it('personal data is never coalesced (nor cached)', async () => {
    upstream.setFault('premises', { kind: 'slow', ms: 300 });
    const answers = await burst(ACCOUNTS, undefined, ids('coalesce-c', 5));
    expect(answers.map((a) => a.headers.get('x-cache'))).toEqual(Array(5).fill('BYPASS'));
    for (const a of answers) expect(a.json.data.utilityAccounts.length).toBeGreaterThan(0);
  });

  it('the playground counts each coalesced call against its allowance', async () => {
    upstream.setFault('voltify', { kind: 'slow', ms: 1000 });
    const answers = await Promise.all([0, 1, 2].map(() => gw.post('playground', PLANS, { zip: '43215' })));
    expect(answers.map((a) => a.headers.get('x-cache')).sort()).toEqual(['COALESCED', 'COALESCED', 'MISS']);
    expect(answers.map((a) => Number(a.headers.get('x-ratelimit-remaining'))).sort()).toEqual([7, 8, 9]);
  });
});
