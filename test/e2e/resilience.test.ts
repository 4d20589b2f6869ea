// Failure behaviour end to end, with real processes: the reference upstream with fault injection
// (down, slow, garbage, 5xx, JSON null) behind real gateways, a real redis-server stopped and
// restarted mid-run, and `tsx start/main.ts` stopped with SIGTERM during an in-flight request.
// Each scenario asserts what the partner receives.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { issueKey } from '../../stores/key-store.js';
import { upstreamStats } from '../../sources/upstream/stats.js';
import { eventually } from '../../scripts/harness/eventually.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PLANS = (zip: string, usage: number) => `{ residentialPlans(zipCode: "${zip}", monthlyUsage: ${usage}) { id title price } }`;
const UTILITIES = (zip: string) => `{ utilities(zipCode: "${zip}") { id name } }`;

/** Unhandled rejections seen while a test ran: every test checks it saw none (see afterEach). */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);

/** Lets rejections of work a test left behind (timers, sockets) surface before they are checked. */
const settle = () => new Promise((r) => setImmediate(r)).then(() => new Promise((r) => setImmediate(r)));
afterEach(async () => {
  await settle();
  expect(unhandled.splice(0)).toEqual([]);
});

async function fault(gw: TestGateway, feed: string, f: unknown): Promise<void> {
  const res = await fetch(`${gw.g.upstreamUrl}/__faults/${feed}`, { method: 'POST', body: JSON.stringify(f) });
  expect(res.status).toBe(200);
}

async function clearFaults(gw: TestGateway): Promise<void> {
  await fetch(`${gw.g.upstreamUrl}/__faults`, { method: 'DELETE' });
}

/** Nothing a partner must never see: stack frames, file paths, the upstream's address. */
function expectClean(gw: TestGateway, text: string): void {
  const upstream = new URL(gw.g.upstreamUrl);
  expect(text).not.toContain(upstream.host);
  expect(text).not.toContain(gw.g.upstreamUrl);
  expect(text).not.toMatch(/\bat [^\n"]*\(?[^\s"]*:\d+:\d+\)?/);
  expect(text).not.toMatch(/node_modules|\/work\/|\.ts:\d+|\.js:\d+/);
  expect(text).not.toMatch(/epk_/);
}

const ids = (json: any): string[] => (json?.data?.residentialPlans ?? []).map((p: { id: string }) => p.id).sort();

let redis: TestRedis;
/** Breaker off, stale-if-error off, response cache off: every fault reaches the partner as is. */
let plain: TestGateway;
/** Defaults (retries, breaker with a short reset, stale-if-error), Redis, response cache on. */
let main: TestGateway;

beforeAll(async () => {
  redis = await startTestRedis();
  plain = await startTestGateway({ CACHE_ENABLED: 'false', UPSTREAM_BREAKER: 'false', STALE_IF_ERROR_SECONDS: '0' });
  main = await startTestGateway({ REDIS_URL: redis.url, UPSTREAM_BREAKER_RESET_MS: '1500' });
});

afterAll(async () => {
  await plain?.close();
  await main?.close();
  await redis?.stop();
  process.off('unhandledRejection', onUnhandled);
});

describe("a supplier feed fails: the other feeds' plans plus an error naming the feed", () => {
  const FAULTS = [
    { fault: { kind: 'down' }, detail: 'could not be reached' },
    { fault: { kind: 'slow', ms: 8000 }, detail: 'did not answer in time' },
    { fault: { kind: 'garbage' }, detail: 'answered with a malformed payload' },
    { fault: { kind: 'status', status: 500 }, detail: 'answered with an error' },
    { fault: { kind: 'null' }, detail: 'answered with a malformed payload' },
  ];
  const FEEDS = [
    { control: 'voltify', source: 'Voltify' },
    { control: 'brightgrid', source: 'Brightgrid' },
  ];
  let baseline: string[];
  /** The plans left when a feed is down, per feed: what every fault of that feed must leave. */
  const remaining = new Map<string, string[]>();

  beforeAll(async () => {
    const r = await plain.post('production', PLANS('75001', 1000));
    expect(r.status).toBe(200);
    expect(r.json.errors).toBeUndefined();
    baseline = ids(r.json);
    expect(baseline.length).toBeGreaterThan(1);
    for (const { control, source } of FEEDS) {
      await fault(plain, control, { kind: 'down' });
      try {
        remaining.set(source, ids((await plain.post('production', PLANS('75001', 1000))).json));
      } finally {
        await clearFaults(plain);
      }
    }
  });

  for (const { control, source } of FEEDS) {
    for (const { fault: f, detail } of FAULTS) {
      it(`${source} ${JSON.stringify(f)}`, async () => {
        await fault(plain, control, f);
        try {
          const r = await plain.post('production', PLANS('75001', 1000));
          expect(r.status).toBe(200);
          expect(r.json.errors).toEqual([
            {
              message: `Upstream feed ${source} is unavailable: ${detail}.`,
              path: ['residentialPlans'],
              extensions: { code: 'UPSTREAM_UNAVAILABLE', feed: source },
            },
          ]);
          const got = ids(r.json);
          expect(got.length).toBeGreaterThan(0);
          expect(got.length).toBeLessThan(baseline.length);
          for (const id of got) expect(baseline).toContain(id);
          // The same plans whatever the fault.
          expect(got).toEqual(remaining.get(source));
          // A hanging feed (8 s) is cut at its budget (2.5 s): "did not answer in time" above.
          expectClean(plain, r.text);
        } finally {
          await fault(plain, control, null);
        }
      });
    }
  }

  it("the two feeds' plans make up the whole list", () => {
    const v = remaining.get('Brightgrid')!; // Brightgrid failed: Voltify's plans
    const b = remaining.get('Voltify')!;
    expect([...v, ...b].sort()).toEqual(baseline);
  });

  it('on every environment, and the process is still up', async () => {
    await fault(plain, 'brightgrid', { kind: 'null' });
    try {
      for (const env of ['certification', 'playground'] as const) {
        const r = await plain.post(env, PLANS('75001', 1000));
        expect(r.status).toBe(200);
        expect(r.json.errors).toEqual([expect.objectContaining({ extensions: { code: 'UPSTREAM_UNAVAILABLE', feed: 'Brightgrid' } })]);
        expect(ids(r.json)).toEqual(remaining.get('Brightgrid'));
        expectClean(plain, r.text);
      }
    } finally {
      await clearFaults(plain);
    }
    const health = await fetch(plain.g.urls.production!.replace('/graphql', '/healthz'));
    expect(health.status).toBe(200);
  });

  it('all supplier feeds down: an error per feed, no plans', async () => {
    await fault(plain, 'voltify', { kind: 'down' });
    await fault(plain, 'brightgrid', { kind: 'status', status: 503 });
    try {
      const r = await plain.post('production', PLANS('75001', 1000));
      expect(r.status).toBe(200);
      expect(ids(r.json)).toEqual([]);
      expect(r.json.data?.residentialPlans ?? null).toBeNull();
      const feeds = r.json.errors.map((e: any) => e.extensions.feed).sort();
      expect(feeds).toEqual(['Brightgrid', 'Voltify']);
      for (const e of r.json.errors) expect(e.extensions.code).toBe('UPSTREAM_UNAVAILABLE');
      expectClean(plain, r.text);
    } finally {
      await clearFaults(plain);
    }
  });

  it('the territories feed down: utilities fails with an error naming it', async () => {
    await fault(plain, 'territories', { kind: 'garbage' });
    try {
      const r = await plain.post('production', UTILITIES('75001'));
      expect(r.status).toBe(200);
      expect(r.json.errors).toEqual([
        expect.objectContaining({
          message: 'Upstream feed Territories is unavailable: answered with a malformed payload.',
          extensions: { code: 'UPSTREAM_UNAVAILABLE', feed: 'Territories' },
        }),
      ]);
      expectClean(plain, r.text);
    } finally {
      await clearFaults(plain);
    }
  });

  it('the reference upstream stopped altogether: errors, no crash', async () => {
    const upstreamPort = new URL(plain.g.upstreamUrl).port;
    // Every feed resets the connection: the same as a stopped process from the gateway's side.
    for (const feed of ['territories', 'voltify', 'brightgrid']) await fault(plain, feed, { kind: 'down' });
    try {
      const r = await plain.post('production', PLANS('75001', 1000));
      expect(r.status).toBe(200);
      expect(r.json.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(r.text).not.toContain(upstreamPort);
    } finally {
      await clearFaults(plain);
    }
    expect((await plain.post('production', PLANS('75001', 1000))).json.errors).toBeUndefined();
  });
});

describe('stale-if-error, circuit breaker and deduplication (default settings)', () => {
  let baseline: { text: string; ids: string[] };

  it('a feed that fails after a good answer: the last good copy, reported in extensions.stale', async () => {
    const first = await main.post('production', PLANS('75001', 1000));
    expect(first.json.errors).toBeUndefined();
    baseline = { text: first.text, ids: ids(first.json) };
    await fault(main, 'brightgrid', { kind: 'down' });
    try {
      // Another usage: a response-cache miss that needs the same upstream calls.
      const r = await main.post('production', PLANS('75001', 1001));
      expect(r.status).toBe(200);
      expect(r.json.errors).toBeUndefined();
      expect(ids(r.json)).toEqual(baseline.ids);
      expect(r.json.extensions.stale).toEqual([{ feed: 'Brightgrid', ageSeconds: expect.any(Number) }]);
      expect(r.json.extensions.stale[0].ageSeconds).toBeLessThan(30);
      expect(r.headers.get('x-cache')).toBe('STALE');
      // Not stored as fresh: asked again, it is still a stale answer.
      const again = await main.post('production', PLANS('75001', 1001));
      expect(again.headers.get('x-cache')).toBe('STALE');
      expect(again.json.extensions.stale[0].feed).toBe('Brightgrid');
      // No copy for a ZIP never asked: the feed's error as usual.
      const fresh = await main.post('production', PLANS('75002', 1000));
      expect(fresh.json.errors).toEqual([expect.objectContaining({ extensions: { code: 'UPSTREAM_UNAVAILABLE', feed: 'Brightgrid' } })]);
      expect(fresh.json.extensions).toBeUndefined();
      expectClean(main, r.text);
    } finally {
      await clearFaults(main);
    }
    const healed = await main.post('production', PLANS('75001', 1002));
    expect(healed.json.extensions).toBeUndefined();
    expect(healed.headers.get('x-cache')).toBe('MISS');
  });

  it('identical concurrent requests make one upstream call per feed', async () => {
    const before = upstreamStats.snapshot().Brightgrid!;
    // Different usages: response-cache misses, but the same upstream URLs.
    const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => main.post('production', PLANS('75201', 1500 + i))));
    for (const r of rs) expect(r.json.errors).toBeUndefined();
    const after = upstreamStats.snapshot().Brightgrid!;
    expect(after.calls - before.calls).toBe(10);
    expect(after.attempts - before.attempts).toBeLessThan(10);
    expect(after.dedupHits - before.dedupHits).toBeGreaterThan(0);
  });

  it('a hanging feed: once the breaker is open a request no longer waits for it; it closes again', async () => {
    // Fast failures on fresh ZIPs (no stale copies) open Voltify's breaker once more than half of
    // the calls in its rolling window (earlier successes included) failed.
    await fault(main, 'voltify', { kind: 'down' });
    let sent = 0;
    while (upstreamStats.snapshot().Voltify!.breaker !== 'open' && sent < 40) {
      const batch = Array.from({ length: 4 }, (_, i) => `760${String(10 + sent + i).padStart(2, '0')}`);
      sent += batch.length;
      const rs = await Promise.all(batch.map((z) => main.post('production', PLANS(z, 1000))));
      for (const r of rs) expect(r.json.errors[0].extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', feed: 'Voltify' });
    }
    expect(upstreamStats.snapshot().Voltify!.breaker).toBe('open');
    // Now the feed hangs; a request is answered at once with the other feed's plans.
    await fault(main, 'voltify', { kind: 'slow', ms: 20_000 });
    const attempts = upstreamStats.snapshot().Voltify!.attempts;
    const r = await main.post('production', PLANS('76090', 1000));
    expect(r.json.errors).toEqual([
      {
        message: 'Upstream feed Voltify is unavailable: is temporarily disabled after repeated failures.',
        path: ['residentialPlans'],
        extensions: { code: 'UPSTREAM_UNAVAILABLE', feed: 'Voltify' },
      },
    ]);
    expect(ids(r.json).length).toBeGreaterThan(0);
    // Answered without a call to the hanging feed, so without waiting for it.
    expect(upstreamStats.snapshot().Voltify!.attempts).toBe(attempts);

    // Healthy again: after the reset time the trial call closes the breaker.
    await clearFaults(main);
    await eventually(async () => {
      const ok = await main.post('production', PLANS('76091', 1000));
      return ok.json.errors === undefined && ok;
    }, 8000);
    expect(upstreamStats.snapshot().Voltify!.breaker).toBe('closed');
  });
});

describe('Redis outage', () => {
  const readyz = () => fetch(main.g.urls.production!.replace('/graphql', '/readyz'));
  const healthz = () => fetch(main.g.urls.production!.replace('/graphql', '/healthz'));

  it('keyed environments keep answering correctly and promptly; readiness degraded; playground fails closed; recovery', async () => {
    const cached = await main.post('production', PLANS('75001', 2000));
    const uncachedRef = await main.post('certification', PLANS('75201', 2100));
    expect(cached.json.errors).toBeUndefined();
    expect((await readyz()).status).toBe(200);
    expect((await main.post('playground', PLANS('75001', 2000))).status).toBe(200);

    await redis.stop();
    try {
      // Right after the kill, and a little later: all answered, none slower than the bound.
      for (const round of [0, 1]) {
        const calls = [
          () => main.post('production', PLANS('75001', 2000)),
          () => main.post('production', PLANS('75201', 2100)),
          () => main.post('certification', PLANS('75001', 2000 + round)),
          () => main.post('certification', UTILITIES('60601')),
          () => main.post('production', '{ __typename }'),
        ];
        const timed = await Promise.all(
          calls.map(async (c) => {
            const t = Date.now();
            const r = await c();
            return { r, ms: Date.now() - t };
          }),
        );
        for (const { r, ms } of timed) {
          expect(r.status).toBe(200);
          expect(r.json.errors).toBeUndefined();
          expect(ms).toBeLessThan(3000);
          expectClean(main, r.text);
        }
        expect(timed[0]!.r.json.data).toEqual(cached.json.data);
        expect(timed[1]!.r.json.data).toEqual(uncachedRef.json.data);
        await new Promise((r) => setTimeout(r, 500));
      }
      const ready = await readyz();
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'degraded', redis: 'down' });
      expect((await healthz()).status).toBe(200);

      // The playground cannot count: counted calls are refused with a GraphQL body.
      const t = Date.now();
      const pg = await main.post('playground', PLANS('75001', 2000));
      expect(Date.now() - t).toBeLessThan(3000);
      expect(pg.status).toBe(503);
      expect(pg.headers.get('content-type')).toMatch(/application\/json/);
      expect(pg.json).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'SERVICE_UNAVAILABLE' } }] });
      expect(Number(pg.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await redis.start();
    }
    const recoveredIn = await eventually(async () => {
      const t = Date.now();
      return (await readyz()).status === 200 && Date.now() - t + 1;
    }, 15_000);
    expect(recoveredIn).toBeGreaterThan(0);
    expect((await main.post('playground', PLANS('75001', 2000))).status).toBe(200);
    expect((await main.post('production', PLANS('75001', 2000))).json.data).toEqual(cached.json.data);
  });

  it('a hung Redis (SIGSTOP, connections open, no answers): bounded waits, playground fails closed, recovery', async () => {
    const cached = await main.post('production', PLANS('75001', 2300));
    expect(cached.json.errors).toBeUndefined();
    redis.pause();
    try {
      const timed = async (c: () => Promise<{ status: number; json: any; text: string }>) => {
        const t = Date.now();
        const r = await c();
        return { r, ms: Date.now() - t };
      };
      // Answered from the in-process cache, and a new question answered from the feeds; neither
      // waits on Redis longer than its command timeouts.
      const [hit, miss] = await Promise.all([
        timed(() => main.post('production', PLANS('75001', 2300))),
        timed(() => main.post('production', PLANS('75201', 2400))),
      ]);
      for (const { r, ms } of [hit, miss]) {
        expect(r.status).toBe(200);
        expect(r.json.errors).toBeUndefined();
        expect(ms).toBeLessThan(3000);
        expectClean(main, r.text);
      }
      expect(hit.r.json.data).toEqual(cached.json.data);
      // The playground cannot count a call: refused within the command timeout, not hung.
      const pg = await timed(() => main.post('playground', PLANS('75001', 2300)));
      expect(pg.ms).toBeLessThan(3000);
      expect(pg.r.status).toBe(503);
      expect(pg.r.json.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      // The health PING notices the hang: readiness degraded, and requests stop waiting on Redis.
      await eventually(async () => (await readyz()).status === 503 || undefined, 5000);
      const fast = await timed(() => main.post('playground', PLANS('75001', 2300)));
      expect(fast.r.status).toBe(503);
      expect(fast.ms).toBeLessThan(500);
    } finally {
      redis.resume();
    }
    await eventually(async () => (await readyz()).status === 200 || undefined, 15_000);
    await eventually(async () => (await main.post('playground', PLANS('75001', 2300))).status === 200 || undefined, 15_000);
  });
});

describe('no unhandled promise rejection', () => {
  it('while feeds fail in every way and Redis goes away and comes back', async () => {
    const readyz = () => fetch(main.g.urls.production!.replace('/graphql', '/readyz'));
    const seen: unknown[] = [];
    const onRejection = (reason: unknown) => void seen.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const kinds = [{ kind: 'down' }, { kind: 'garbage' }, { kind: 'null' }, { kind: 'status', status: 502 }, { kind: 'slow', ms: 4000 }];
      // On the gateway without breaker (a breaker opened here would change the other tests' answers).
      try {
        for (const [i, f] of kinds.entries()) {
          await fault(plain, 'voltify', f);
          await fault(plain, 'territories', i % 2 ? f : null);
          const rs = await Promise.all([
            plain.post('production', PLANS(`770${10 + i}`, 1000)),
            plain.post('certification', UTILITIES(`770${10 + i}`)),
            plain.post('certification', PLANS(`770${20 + i}`, 1000)),
          ]);
          for (const r of rs) expect(r.status).toBe(200);
        }
      } finally {
        await clearFaults(plain);
      }
      await redis.stop();
      try {
        const rs = await Promise.all([main.post('production', PLANS('77040', 1000)), main.post('playground', PLANS('77041', 1000))]);
        expect(rs.map((r) => r.status)).toEqual([200, 503]);
      } finally {
        await redis.start();
      }
      await eventually(async () => (await readyz()).status === 200 || undefined, 15_000);
      await settle();
    } finally {
      process.off('unhandledRejection', onRejection);
    }
    expect(seen).toEqual([]);
  });
});

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(false);
    });
    sock.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('graceful shutdown (SIGTERM)', () => {
  it('stops accepting, finishes the in-flight request, exits 0', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resilience-sigterm-'));
    const keysFile = path.join(dir, 'keys.json');
    const key = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
    // What `npm start` runs (the bundle), without npm in between so the signal goes straight to it.
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT });
    // ASCII only, so V8 holds its text at one byte a character (scripts/ascii-source.mjs).
    expect(/[^\x00-\x7f]/.test(fs.readFileSync(path.join(ROOT, 'dist/gateway.mjs'), 'utf8'))).toBe(false);
    // Free ports are found, then bound by the gateway: another test process may take one in
    // between (EADDRINUSE). Then the start is tried again on new ports.
    const start = async () => {
      const [prod, cert, play, up, ops, playOps] = await Promise.all([
        freePort(),
        freePort(),
        freePort(),
        freePort(),
        freePort(),
        freePort(),
      ]);
      const child = spawn(process.execPath, ['dist/gateway.mjs'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          PRODUCTION_PORT: String(prod),
          CERTIFICATION_PORT: String(cert),
          PLAYGROUND_PORT: String(play),
          UPSTREAM_PORT: String(up),
          OPS_PORT: String(ops),
          PLAYGROUND_OPS_PORT: String(playOps),
          DATA_DIR: dir,
          KEYS_FILE: keysFile,
          LOG_LEVEL: 'silent',
          SHUTDOWN_GRACE_MS: '8000',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
      );
      const base = `http://127.0.0.1:${prod}`;
      // The bundle starts in a second or two, more on a busy machine.
      await eventually(async () => {
        if (child.exitCode !== null) throw new Error(`gateway exited during start-up (${child.exitCode}): ${output}`);
        return (await fetch(`${base}/healthz`).catch(() => null))?.status === 200;
      }, 75_000);
      return { child, exited, base, up, prod, output: () => output };
    };
    let gateway: Awaited<ReturnType<typeof start>> | null = null;
    for (let attempt = 1; !gateway; attempt++) {
      try {
        gateway = await start();
      } catch (err) {
        if (attempt >= 3 || !/EADDRINUSE/.test(String(err))) throw err;
      }
    }
    const { child, exited, base, up, prod, output } = gateway;
    try {
      // The in-flight request: one feed answers after 2 s (within its 2.5 s budget).
      const ctl = await fetch(`http://127.0.0.1:${up}/__faults/brightgrid`, {
        method: 'POST',
        body: JSON.stringify({ kind: 'slow', ms: 2000 }),
      });
      expect(ctl.status).toBe(200);
      const started = Date.now();
      const inFlight = fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query: PLANS('75001', 1000) }),
      }).then(async (r) => ({ status: r.status, json: await r.json(), at: Date.now() }));
      let answered = false;
      void inFlight.then(
        () => (answered = true),
        () => (answered = true),
      );
      // Let the request reach the gateway (and wait on the slow feed) before the signal.
      await new Promise((r) => setTimeout(r, 700));
      child.kill('SIGTERM');
      // Not accepting any more while the request above is still running (new connections each
      // time: a pooled keep-alive socket would only show the server closing it).
      let refusedWhileInFlight = false;
      while (!answered) {
        if ((await connectionRefused(prod)) && !answered) {
          refusedWhileInFlight = true;
          break;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(refusedWhileInFlight).toBe(true);
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect(answer.json.errors).toBeUndefined();
      expect(answer.json.data.residentialPlans.length).toBeGreaterThan(0);
      expect(answer.at - started).toBeGreaterThanOrEqual(1900);
      const exit = await exited;
      expect(exit, output()).toMatchObject({ code: 0, signal: null });
      // Exit 0 means main.ts's watchdog (grace + 5 s, exit 1) did not have to cut it short.
      expect(exit.at - started).toBeLessThan(700 + 8000 + 5000);
      console.info(`SIGTERM: in-flight answered after ${answer.at - started} ms, process exited after ${exit.at - started} ms`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
