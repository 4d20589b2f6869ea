// Defences of the request path against a real gateway on a real redis-server:
// documents refused before parsing, free requests rate-limited per IP (through Redis), hostile
// variables refused with 400, connection caps and timeouts, refusal warnings throttled, the
// listener's own refusals (caps, 400/408/431) counted on /metrics and logged, and operationName
// logged only when it names an operation. Each case uses its own client IP
// (X-Forwarded-For with TRUST_PROXY=1) so the per-IP state of one does not touch another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { Redis } from 'ioredis';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { captureLog } from '../../scripts/harness/log-capture.js';
import { scrape } from '../../scripts/harness/metrics-text.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { monitorRedis } from '../../scripts/harness/redis-monitor.js';
import { allowanceKey, freeRateKey } from '../../cache/allowance.js';

const FREE = 12;
const PLANS = 'query Plans($zip: String!) { residentialPlans(zipCode: $zip) { title } }';
const ACCOUNTS =
  'query Accounts($address: String!, $zip: String!, $extra: [[String]]) { utilityAccounts(address: $address, zipCode: $zip) { utilityId } }';

let redis: TestRedis;
let t: TestGateway;
let lines: Record<string, any>[];
let metricsUrl: string;
let ipCounter = 0;
/** A fresh client address per case. */
const nextIp = () => `10.12.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

beforeAll(async () => {
  redis = await startTestRedis();
  const log = captureLog();
  lines = log.lines;
  const ops = await freePort();
  metricsUrl = `http://127.0.0.1:${ops}/metrics`;
  t = await startTestGateway(
    {
      REDIS_URL: redis.url,
      TRUST_PROXY: '1',
      PLAYGROUND_ALLOWANCE: '2',
      PLAYGROUND_FREE_REQUESTS: String(FREE),
      PLAYGROUND_FREE_WINDOW_SECONDS: '600',
      PLAYGROUND_MAX_CONNECTIONS_PER_IP: '40',
      PLAYGROUND_HEADERS_TIMEOUT_MS: '1000',
      PLAYGROUND_KEEP_ALIVE_TIMEOUT_MS: '1000',
      KEYED_MAX_CONNECTIONS: '10',
      CACHE_ENABLED: 'true',
      OPS_PORT: String(ops),
    },
    { logger: log.logger },
  );
});
afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

type Sent = { status: number; headers: Headers; json: any };
async function send(environment: 'production' | 'playground', body: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  const h: Record<string, string> = { 'content-type': 'application/json', ...headers };
  if (environment === 'production') h['x-api-key'] ??= t.keys.production;
  const res = await fetch(t.g.urls[environment]!, {
    method: 'POST',
    headers: h,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text) };
}
const play = (ip: string, body: unknown) => send('playground', body, { 'x-forwarded-for': ip });

/** An introspection-only document of ~1,000 tokens, distinct per n. */
const spreadDocument = (n: number) => `{ ${'...A '.repeat(480)} } fragment A on Query { __typename } #${n}`;

/** `levels` arrays nested in one another, as JSON text (JSON.stringify would recurse). */
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** A request body whose variables hold `deep` as one more variable, written as text. */
const withDeep = (query: string, variables: Record<string, unknown>, deep: string) =>
  `{"query":${JSON.stringify(query)},"variables":${JSON.stringify(variables).slice(0, -1)},"deep":${deep}}}`;

describe('row 1: documents are bounded before and after parsing', () => {
  it('refuses query text over the playground byte limit before parsing (comments count)', async () => {
    const r = await play(nextIp(), { query: `{ __typename }\n#${'x'.repeat(20_000)}` });
    expect(r.status).toBe(200);
    expect(r.json.data).toBeUndefined();
    expect(r.json.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(r.json.errors[0].message).toBe('Query text is 20016 bytes; at most 8192 are allowed.');
  });

  it('keyed limits are wider than the playground ones: the same text is served on production', async () => {
    const r = await send('production', { query: `{ __typename }\n#${'x'.repeat(20_000)}` });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ data: { __typename: 'Query' } });
  });

  it('distinct ~1,000-token free documents from one IP stop at the free-request rate', async () => {
    const ip = nextIp();
    const statuses: number[] = [];
    for (let n = 0; n < FREE + 3; n++) statuses.push((await play(ip, { query: spreadDocument(n) })).status);
    expect(statuses.slice(0, FREE).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(FREE)).toEqual([429, 429, 429]);
  });
});

describe('row 2: free is not unlimited', () => {
  it('concurrent invalid and introspection queries are refused past the limit with 429 FREE_REQUEST_RATE and Retry-After', async () => {
    const ip = nextIp();
    const bodies = Array.from({ length: 32 }, (_, i) =>
      i % 2 ? { query: `{ nope #${i}\n }` } : { query: `{ __schema { queryType { name } } } #${i}` },
    );
    const replies = await Promise.all(bodies.map((b) => play(ip, b)));
    const refused = replies.filter((r) => r.status === 429);
    expect(replies.length - refused.length).toBe(FREE);
    for (const r of refused) {
      expect(r.json.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', reason: 'FREE_REQUEST_RATE' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(600);
      // The allowance headers stay exact: nothing was counted.
      expect(r.headers.get('x-ratelimit-limit')).toBe('2');
      expect(r.headers.get('x-ratelimit-remaining')).toBe('2');
    }
    // A page load is a free request too.
    const page = await fetch(t.g.urls.playground!, { headers: { accept: 'text/html', 'x-forwarded-for': ip } });
    await page.arrayBuffer();
    expect(page.status).toBe(429);
  });

  it('an IP over the limit is refused without a Redis command, not even the allowance peek, with its allowance headers', async () => {
    const ip = nextIp();
    for (let i = 0; i < FREE; i++) expect((await play(ip, { query: `{ __typename } #${i}` })).status).toBe(200);
    // Every command naming this IP's allowance or free-request counter, in the order Redis ran them.
    const keys = [allowanceKey(ip), freeRateKey(ip)];
    const commands: string[] = [];
    const monitor = await monitorRedis(redis.port, (args) => {
      if (args.some((a) => keys.includes(a))) commands.push(args.join(' '));
    });
    const client = new Redis(redis.url);
    /** Commands seen up to a marker sent now (MONITOR reports in order, so nothing earlier is still to come). */
    const settled = async () => {
      await client.exists(keys[0]!);
      await eventually(async () => commands.at(-1)?.startsWith('exists ') ?? false, 5_000, 20);
      return commands.splice(0).slice(0, -1);
    };
    try {
      await settled();
      // The request that goes over asks Redis (the peek, the count) ...
      const over = await play(ip, { query: '{ __typename } #over' });
      expect(over.status).toBe(429);
      expect((await settled()).length).toBeGreaterThan(0);
      // ... the ones after it do not.
      const refused = await Promise.all(Array.from({ length: 20 }, (_, i) => play(ip, { query: `{ __typename } #${i}` })));
      expect(await settled()).toEqual([]);
      for (const r of [over, ...refused]) {
        expect(r.status).toBe(429);
        expect(r.json.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', reason: 'FREE_REQUEST_RATE' });
        expect(r.headers.get('x-ratelimit-limit')).toBe('2');
        expect(r.headers.get('x-ratelimit-remaining')).toBe('2');
      }
    } finally {
      monitor.close();
      client.disconnect();
    }
  });

  it('the count is kept in Redis, shared by every gateway process', async () => {
    const ip = nextIp();
    await play(ip, { query: '{ __typename }' });
    const client = new Redis(redis.url);
    try {
      expect(Number(await client.get(freeRateKey(ip)))).toBe(1);
    } finally {
      client.disconnect();
    }
  });

  it('counted calls do not use free requests; requests after the allowance is spent do, and the two 429s differ', async () => {
    const ip = nextIp();
    expect((await play(ip, { query: PLANS, variables: { zip: '75001' } })).status).toBe(200);
    const second = await play(ip, { query: PLANS, variables: { zip: '75001' } });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
    const spent: Sent[] = [];
    for (let i = 0; i < FREE; i++) spent.push(await play(ip, { query: PLANS, variables: { zip: '75001' } }));
    for (const r of spent) {
      expect(r.status).toBe(429);
      expect(r.json.errors[0].extensions).toEqual({ code: 'RATE_LIMITED', reason: 'ALLOWANCE_USED_UP', limit: 2 });
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    const limited = await play(ip, { query: PLANS, variables: { zip: '75001' } });
    expect(limited.status).toBe(429);
    expect(limited.json.errors[0].extensions.reason).toBe('FREE_REQUEST_RATE');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
  });
});

describe('row 4: hostile variables are a 400, never a 500', () => {
  it('a keyed utilityAccounts call with a variable nested 20,000 levels deep', async () => {
    const r = await send('production', withDeep(ACCOUNTS, { address: '1500 MARILLA ST', zip: '75201' }, nested(20_000)));
    expect(r.status).toBe(400);
    expect(r.json.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(r.json.errors[0].message).toBe('"variables" is nested more than 32 levels deep.');
  });

  it('a cacheable playground query with a deep variable (the cache key used to overflow the stack)', async () => {
    const r = await play(nextIp(), withDeep(PLANS, { zip: '75001' }, nested(5_000)));
    expect(r.status).toBe(400);
    expect(r.json.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('the depth bound is exact: 32 levels pass, 33 do not', async () => {
    const ok = await send('production', withDeep(PLANS, { zip: '75001' }, nested(31)));
    expect(ok.status).toBe(200);
    expect(ok.json.data.residentialPlans.length).toBeGreaterThan(0);
    const over = await send('production', withDeep(PLANS, { zip: '75001' }, nested(32)));
    expect(over.status).toBe(400);
  });

  it('too many values in variables', async () => {
    const r = await send('production', { query: PLANS, variables: { zip: '75001', many: Array.from({ length: 10_001 }, () => 0) } });
    expect(r.status).toBe(400);
    expect(r.json.errors[0].message).toBe('"variables" holds more than 10000 values.');
  });

  it('no error-level log line for any of them', () => {
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});

/** Opens a socket and resolves once connected; `closed` resolves when the server closes it. */
function idleSocket(url: string): Promise<{ socket: net.Socket; closed: Promise<void> }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => {});
    // Like any client, read what the server sends (its 408, its FIN).
    socket.resume();
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Writes `text` on a new socket; what the server answered before closing it. */
function rawExchange(url: string, text: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (answer += d));
    socket.on('error', () => {});
    socket.once('close', () => resolve(answer));
    socket.end(text);
  });
}

/** The listener-defence count of one environment and reason on /metrics. */
const refusedCount = async (environment: string, reason: string) =>
  (await scrape(metricsUrl))('gateway_connections_refused_total', { environment, reason });
/** The listener-defence warnings of one environment and reason logged since line `since`. */
const defenceWarnings = (environment: string, reason: string, since: number) =>
  lines.slice(since).filter((l) => l.level === 40 && l.environment === environment && l.reason === reason);

describe('row 5: connections', () => {
  it('an idle keep-alive socket is closed after the keep-alive timeout', async () => {
    const { socket, closed } = await idleSocket(t.g.urls.playground!);
    socket.write(`GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n`);
    let answered = false;
    socket.prependOnceListener('data', () => (answered = true));
    let isClosed = false;
    void closed.then(() => (isClosed = true));
    await eventually(async () => answered, 3000).catch(() => {
      throw new Error('no answer');
    });
    await eventually(async () => isClosed, 3000);
  });

  it('idle sockets to the playground past the per-IP cap are refused (held, then closed), and production keeps serving', async () => {
    const since = lines.length;
    const [capped, timedOut] = [await refusedCount('playground', 'per_ip_cap'), await refusedCount('playground', 'request_timeout')];
    const started = Date.now();
    const sockets = await Promise.all(Array.from({ length: 60 }, () => idleSocket(t.g.urls.playground!)));
    let closedCount = 0;
    for (const s of sockets) void s.closed.then(() => closedCount++);
    await eventually(async () => closedCount >= 20, 5000);
    const r = await send('production', { query: PLANS, variables: { zip: '75001' } });
    expect(r.status).toBe(200);
    // The ones it kept are closed by the headers timeout (1 s, swept every second), not ~40 s later.
    await eventually(async () => closedCount === 60, 4000).catch((e) => {
      throw new Error(`${e.message}: ${closedCount} closed`);
    });
    for (const s of sockets) s.socket.destroy();
    // Counted on /metrics and logged, throttled: the refusals over the cap, then the 408s of the rest.
    expect((await refusedCount('playground', 'per_ip_cap')) - capped).toBeGreaterThanOrEqual(20);
    expect((await refusedCount('playground', 'request_timeout')) - timedOut).toBeGreaterThanOrEqual(1);
    // The trailing line of the second stands for the refusals held back.
    await eventually(async () => defenceWarnings('playground', 'per_ip_cap', since).some((l) => l.refusedSinceLastWarning > 0), 3000);
    const capLines = defenceWarnings('playground', 'per_ip_cap', since);
    expect(capLines.length).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 1);
    expect(capLines[0]).toMatchObject({
      remoteAddress: expect.stringMatching(/127\.0\.0\.1$/),
      maxConnectionsPerIp: 40,
      msg: expect.stringMatching(/per-address connection cap/),
    });
    expect(defenceWarnings('playground', 'request_timeout', since)[0]).toMatchObject({ status: 408 });
  });

  it('a keyed listener caps its sockets too', async () => {
    const since = lines.length;
    const shed = await refusedCount('certification', 'silent_shed');
    const sockets = await Promise.all(Array.from({ length: 14 }, () => idleSocket(t.g.urls.certification!)));
    let closedCount = 0;
    for (const s of sockets) void s.closed.then(() => closedCount++);
    // The 4 over the cap wait unread for a place; the last one's request gets the oldest silent one's.
    const answered = new Promise<string>((resolve) => {
      let text = '';
      sockets[13]!.socket.on('data', (d: Buffer) => (text += d.toString())).once('close', () => resolve(text));
    });
    sockets[13]!.socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    expect(await answered).toMatch(/^HTTP\/1\.1 /);
    await eventually(async () => closedCount >= 2, 5000);
    for (const s of sockets) s.socket.destroy();
    expect((await refusedCount('certification', 'silent_shed')) - shed).toBeGreaterThanOrEqual(1);
    expect(defenceWarnings('certification', 'silent_shed', since)[0]).toMatchObject({
      maxConnections: 10,
      remoteAddress: expect.any(String),
    });
  });

  it('malformed requests (400) and oversized headers (431) are answered by the listener, counted and logged', async () => {
    const since = lines.length;
    const [malformed, tooLarge] = [await refusedCount('production', 'malformed'), await refusedCount('production', 'headers_too_large')];
    expect(await rawExchange(t.g.urls.production!, 'NOT HTTP AT ALL\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    const pad = 'a'.repeat(20_000);
    expect(await rawExchange(t.g.urls.production!, `GET /healthz HTTP/1.1\r\nhost: x\r\nx-pad: ${pad}\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 431 /,
    );
    expect((await refusedCount('production', 'malformed')) - malformed).toBe(1);
    expect((await refusedCount('production', 'headers_too_large')) - tooLarge).toBe(1);
    expect(defenceWarnings('production', 'malformed', since)).toMatchObject([{ status: 400, msg: expect.stringMatching(/malformed/) }]);
    expect(defenceWarnings('production', 'headers_too_large', since)).toMatchObject([{ status: 431 }]);
  });
});

describe('row 10: refusals are throttled in the log, with counts', () => {
  it('spent-allowance, free-rate and key refusals write one warning a second each', async () => {
    const ip = nextIp();
    const since = lines.length;
    const started = Date.now();
    for (let i = 0; i < 2; i++) await play(ip, { query: PLANS, variables: { zip: '75001' } });
    for (let i = 0; i < 30; i++) await play(ip, { query: PLANS, variables: { zip: '75001' } });
    for (let i = 0; i < 30; i++) await send('production', { query: '{ __typename }' }, { 'x-api-key': 'nope' });
    const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
    const warn = lines.slice(since).filter((l) => l.level === 40);
    const of = (msg: RegExp) => warn.filter((l) => msg.test(l.msg));
    for (const kind of [/allowance used up/, /free-request rate/, /api key/]) {
      expect(of(kind).length).toBeGreaterThan(0);
      expect(of(kind).length).toBeLessThanOrEqual(seconds);
    }
    await eventually(
      async () => {
        await play(ip, { query: '{ __typename }' });
        const latest = lines.filter((l) => /free-request rate/.test(l.msg)).at(-1);
        return latest && latest.refusedSinceLastWarning > 0;
      },
      5000,
      300,
    );
  });
});

describe('row 11: operationName', () => {
  it('is logged only when it names an operation of the document', async () => {
    const ip = nextIp();
    await play(ip, { query: '{ __typename }', operationName: '1500 MARILLA ST' });
    await play(ip, { query: 'query Intro { __typename }', operationName: 'Intro' });
    await play(ip, { query: 'query Intro { __typename }', operationName: 'SomeoneElse' });
    const mine = await eventually(async () => {
      const l = lines.filter((x) => x.msg === 'request' && x.clientIp === ip);
      return l.length === 3 ? l : null;
    });
    expect(mine.map((l) => l.operationName)).toEqual([null, 'Intro', null]);
    expect(JSON.stringify(mine)).not.toContain('MARILLA');
  });
});
