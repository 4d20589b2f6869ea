// Issue 37, item 1, against real processes (start/main.ts, its playground process): 64 KB bodies
// crafted to make a backtracking pattern retry from every repetition (bench/crafted-bodies.ts),
// sent by one partner or one playground address, never hold up another's answers. Before client
// text was read only as a parsed document, the replay facets' ZIP search over `"zip" x 20000`
// stalled the serving process for seconds (6.8 s for one 64 KB body; production probes 2.3-6.7 s,
// the playground 12 s for 8 of them). Behaviour, not a benchmark: the bound catches a stall of that
// kind on a machine loaded many times over (the suite beside other suites), measured against a
// quiet baseline in the same run; the issue's 300 ms target is the bench's `attack crafted` row.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../stores/key-store.js';
import { startListening, type Started } from '../support/main-process.js';
import { CRAFTED_PREFIXES, craftedBody } from '../../bench/crafted-bodies.js';

const BOUND_MS = 1500;
const PROBE = JSON.stringify({ query: '{ utilities(zipCode: "75001") { id } }' });
let s: Started;
let keys: { production: string; certification: string };

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-crafted-'));
  const keysFile = path.join(dataDir, 'keys.json');
  keys = {
    production: (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key,
    certification: (await issueKey(keysFile, { environment: 'certification', partnerCode: 'EVIL' })).key,
  };
  s = await startListening({ KEYS_FILE: keysFile, TRUST_PROXY: '1', PLAYGROUND_FREE_REQUESTS: '1000000' }, dataDir);
}, 180_000);

afterAll(async () => {
  s?.proc.kill('SIGTERM');
  await s?.exited;
  if (s) fs.rmSync(s.dataDir, { recursive: true, force: true });
});

const url = (port: number) => `http://127.0.0.1:${port}/graphql`;
const post = (port: number, body: string, headers: Record<string, string>) =>
  fetch(url(port), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

/** The slowest of probes sent one after another for `ms` (each answered 200), while `during` runs. */
async function worstProbe(probe: () => Promise<Response>, ms: number, during: () => Promise<unknown> = async () => {}): Promise<number> {
  let worst = 0;
  let done = false;
  const load = during().finally(() => (done = true));
  const until = Date.now() + ms;
  while (Date.now() < until || !done) {
    const t0 = performance.now();
    const res = await probe();
    await res.text();
    expect(res.status).toBe(200);
    worst = Math.max(worst, performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  await load;
  return Math.round(worst);
}

describe('64 KB crafted bodies', () => {
  it("one partner's crafted bodies do not hold up another partner's production probes", async () => {
    const probe = () => post(s.ports.production, PROBE, { 'x-api-key': keys.production });
    await (await probe()).text();
    const quiet = await worstProbe(probe, 1000);
    let answered = 0;
    const attack = async () => {
      // 4 at a time, each prefix twice over, from the certification partner.
      await Promise.all(
        Array.from({ length: 4 }, async (_, lane) => {
          for (let i = lane; i < CRAFTED_PREFIXES.length * 2; i += 4) {
            const res = await post(s.ports.certification, craftedBody(i), { 'x-api-key': keys.certification });
            const body = await res.text();
            // Answered with a GraphQL error, never a stack trace.
            expect(res.status, body.slice(0, 200)).toBeLessThan(500);
            expect(body).not.toMatch(/\bat .+\.ts:\d+/);
            answered++;
          }
        }),
      );
    };
    const during = await worstProbe(probe, 1000, attack);
    console.log(`production probe worst: quiet ${quiet} ms, during 64 KB crafted bodies ${during} ms`);
    expect(answered).toBe(CRAFTED_PREFIXES.length * 2);
    expect(during).toBeLessThan(BOUND_MS + quiet);
  }, 120_000);

  it('8 keyless crafted requests from one address do not hold up the playground for another', async () => {
    const probe = () => post(s.ports.playground, JSON.stringify({ query: '{ __typename }' }), { 'x-forwarded-for': '198.51.100.20' });
    await (await probe()).text();
    const quiet = await worstProbe(probe, 1000);
    const attack = () =>
      Promise.all(
        Array.from({ length: 8 }, async () => {
          const res = await post(s.ports.playground, craftedBody(0), { 'x-forwarded-for': '198.51.100.10' });
          await res.text();
          expect(res.status).toBeLessThan(500);
        }),
      );
    const during = await worstProbe(probe, 1000, attack);
    console.log(`playground probe worst: quiet ${quiet} ms, during 8 keyless crafted bodies ${during} ms`);
    expect(during).toBeLessThan(BOUND_MS + quiet);
  }, 120_000);
});
