// Hostile and malformed input against a running gateway (all three environments), generated with
// fast-check: random bytes, random JSON, GraphQL-ish token soup, bodies at the size limit, deep
// nesting, random content types and API keys (also raw bytes Node's client would refuse, over a
// plain socket), and the public queries with random arguments and variables.
//
// For every response: a well-formed JSON body with `data` or an `errors` array whose entries have
// `message` and `extensions.code`; no 5xx but the documented 503; no stack trace, file path, key or
// upstream address. Afterwards: the process still answers, and no key reached a log line.
// Bounded: ~3000 requests, well under a minute.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { launchGateway as startGateway } from '../../start/launch.js';
import type { GatewayHandle } from '../../start/app.js';
import { issueKey } from '../../stores/key-store.js';
import { headerSafe, randomKey, contentType, accept, keyChoice, gqlish, operation, mangledVariables } from '../support/fuzz-arbitraries.js';

type Env = 'production' | 'certification' | 'playground';
const ENVS: Env[] = ['production', 'certification', 'playground'];
const BODY_LIMIT = 16 * 1024;

interface Sent {
  env: Env;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

let dir: string;
let gw: GatewayHandle;
let keys: Record<'production' | 'certification', string>;
const logLines: string[] = [];
const consoleLines: string[] = [];
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
let requests = 0;
const statusCounts = new Map<number, number>();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-'));
  const keysFile = path.join(dir, 'keys.json');
  keys = {
    production: (await issueKey(keysFile, { environment: 'production', partnerCode: 'FUZZ' })).key,
    certification: (await issueKey(keysFile, { environment: 'certification', partnerCode: 'FUZZ' })).key,
  };
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  for (const m of ['log', 'info', 'warn', 'error'] as const) {
    vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void consoleLines.push(args.map(String).join(' ')));
  }
  gw = await startGateway({
    env: {
      PATH: process.env.PATH,
      PRODUCTION_PORT: '0',
      CERTIFICATION_PORT: '0',
      PLAYGROUND_PORT: '0',
      UPSTREAM_PORT: '0',
      OPS_PORT: '0',
      DATA_DIR: dir,
      KEYS_FILE: keysFile,
      LOG_LEVEL: 'debug',
      // The fuzz run would spend any realistic allowance in seconds (TRUST_PROXY stays off).
      PLAYGROUND_ALLOWANCE: '1000000',
      // Likewise the free-request rate and the per-address socket cap (request-defences.test.ts).
      PLAYGROUND_FREE_REQUESTS: '1000000',
      PLAYGROUND_MAX_CONNECTIONS_PER_IP: '0',
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
    },
    // Deliberately without the production logger's redaction: nothing may log a key at all.
    logger: pino({ level: 'debug' }, sink),
  });
});

afterAll(async () => {
  agent.destroy();
  await gw?.close();
  vi.restoreAllMocks();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function send(s: Sent): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      gw.urls[s.env]!,
      { method: s.method, agent, headers: { ...s.headers, 'content-length': String(s.body.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error('gateway did not answer within 15 s')));
    req.on('error', reject);
    req.end(s.body);
  });
}

/** Over a plain socket: header bytes Node's client refuses (control characters, raw UTF-8). */
function sendRaw(env: Env, head: Buffer, body: Buffer): Promise<Got> {
  const { port } = new URL(gw.urls[env]!);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    sock.setTimeout(15_000, () => sock.destroy(new Error('no answer within 15 s')));
    sock.on('data', (c) => chunks.push(c));
    sock.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve(parseRaw(Buffer.concat(chunks))) : reject(err),
    );
    sock.on('end', () => resolve(parseRaw(Buffer.concat(chunks))));
    sock.write(Buffer.concat([head, body]));
  });
}

function parseRaw(raw: Buffer): Got {
  const text = raw.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  if (!m || split < 0) return { status: 0, headers: {}, text };
  const headers: http.IncomingHttpHeaders = {};
  for (const line of text.slice(0, split).split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(m[1]), headers, text: raw.subarray(Buffer.byteLength(text.slice(0, split + 4), 'latin1')).toString('utf8') };
}

const STACK = /\n\s+at |\bat [\w.<>]+ \(|(?:file:\/\/|\/)[\w./-]+\.(?:ts|js|mjs):\d+/;

/** The invariants every answer keeps, whatever was sent. */
function check(sentText: string, s: { env: Env; method: string }, got: Got): void {
  requests++;
  statusCounts.set(got.status, (statusCounts.get(got.status) ?? 0) + 1);
  const where = `${s.env} ${s.method} -> ${got.status} ${got.text.slice(0, 300)}`;
  expect(got.status, where).toBeGreaterThanOrEqual(200);
  if (got.status >= 500) {
    // The one documented 5xx: the playground cannot count calls (store down).
    expect(got.status, where).toBe(503);
    expect(JSON.parse(got.text).errors[0].extensions.code, where).toBe('SERVICE_UNAVAILABLE');
  }
  if (s.method === 'OPTIONS' && got.status === 204) {
    expect(got.text, where).toBe('');
    return;
  }
  expect(String(got.headers['content-type']), where).toMatch(/^application\/(?:graphql-response\+)?json/);
  let json: any;
  expect(() => (json = JSON.parse(got.text)), where).not.toThrow();
  expect(json !== null && typeof json === 'object' && !Array.isArray(json), where).toBe(true);
  if ('errors' in json) {
    expect(Array.isArray(json.errors) && json.errors.length > 0, where).toBe(true);
    for (const e of json.errors) {
      expect(typeof e.message, where).toBe('string');
      expect(typeof e.extensions?.code, where).toBe('string');
    }
  } else {
    expect('data' in json, where).toBe(true);
  }
  expect(got.text, where).not.toMatch(STACK);
  expect(got.text, where).not.toContain(gw.upstreamUrl);
  expect(got.text, where).not.toContain(new URL(gw.upstreamUrl).host);
  expect(got.text, where).not.toContain(keys.production);
  expect(got.text, where).not.toContain(keys.certification);
  // An `epk_` in an answer may only be an echo of what the request itself carried.
  if (!sentText.includes('epk_')) expect(got.text, where).not.toContain('epk_');
}

// --- generators -------------------------------------------------------------------------------

const anyEnv = fc.constantFrom<Env>(...ENVS);
const keyFor = (env: Env, choice: 'own' | 'other' | 'none' | 'random', random: string): string | null => {
  if (choice === 'none') return null;
  if (choice === 'random') return random;
  if (env === 'playground') return choice === 'own' ? null : keys.production;
  if (choice === 'own') return keys[env];
  return keys[env === 'production' ? 'certification' : 'production'];
};
// --- the runs ---------------------------------------------------------------------------------

describe('fuzz: a running gateway under generated input', () => {
  it('random bodies: bytes, JSON, GraphQL-ish text, near-limit sizes, deep nesting', async () => {
    const body = fc.oneof(
      { weight: 3, arbitrary: fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)) },
      { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 6 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
      { weight: 3, arbitrary: gqlish.map((q) => Buffer.from(JSON.stringify({ query: q }))) },
      {
        weight: 2,
        arbitrary: fc
          .record(
            {
              query: fc.oneof(gqlish, fc.jsonValue()),
              variables: fc.oneof(fc.jsonValue({ maxDepth: 3 }), mangledVariables),
              operationName: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
              extensions: fc.jsonValue({ maxDepth: 2 }),
            },
            { requiredKeys: [] },
          )
          .map((o) => Buffer.from(JSON.stringify(o))),
      },
      {
        weight: 1,
        arbitrary: fc
          .integer({ min: -64, max: 64 })
          .map((d) => Buffer.from(JSON.stringify({ query: `{ __typename }`, pad: 'x'.repeat(Math.max(0, BODY_LIMIT + d - 40)) }))),
      },
      {
        weight: 1,
        arbitrary: fc.integer({ min: 1, max: 8000 }).map((n) =>
          Buffer.from(
            JSON.stringify({
              query: `{ ${'utilities(zipCode: "75001") { '.repeat(Math.min(n, 400))}id${' }'.repeat(Math.min(n, 400))} }`,
            }),
          ),
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .integer({ min: 1, max: 7000 })
          .map((n) => Buffer.from(`{"query":"{ __typename }","variables":{"x":${'['.repeat(n)}${']'.repeat(n)}}}`)),
      },
      {
        weight: 1,
        arbitrary: fc.integer({ min: 1, max: 3000 }).map((n) =>
          Buffer.from(
            JSON.stringify({
              query: `query Q($x: String) { utilities(zipCode: "75001") { ${'id '.repeat(n)} } }`,
              variables: { x: 'a' },
            }),
          ),
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(
            '',
            '{}',
            '[]',
            'null',
            '[{"query":"{ __typename }"}]',
            '{"query":"{ __typename }"',
            '\u00ef\u00bb\u00bf{"query":"{ __typename }"}',
          )
          .map((t) => Buffer.from(t, 'latin1')),
      },
    );
    await fc.assert(
      fc.asyncProperty(
        anyEnv,
        body,
        contentType,
        keyChoice,
        randomKey,
        fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
        async (env, b, type, kc, rk, method) => {
          const key = keyFor(env, kc, rk);
          const headers: Record<string, string> = { 'content-type': type };
          if (key !== null) headers['x-api-key'] = key;
          const got = await send({ env, method, headers, body: b });
          check(b.toString('latin1') + (key ?? ''), { env, method }, got);
        },
      ),
      { numRuns: 900 },
    );
  });

  it('bodies at the size limit and deeply nested ones, with valid headers', async () => {
    const seen = new Map<number, number>();
    const body = fc.oneof(
      // Around the limit: 413 above, an ordinary answer at or below.
      fc.integer({ min: -64, max: 64 }).map((d) => {
        const base = JSON.stringify({ query: '{ __typename }', pad: '' });
        return Buffer.from(JSON.stringify({ query: '{ __typename }', pad: 'x'.repeat(Math.max(0, BODY_LIMIT + d - base.length)) }));
      }),
      fc
        .integer({ min: 1, max: 8000 })
        .map((n) => Buffer.from(`{"query":"{ __typename }","variables":{"x":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}}`)),
      fc.integer({ min: 1, max: 5000 }).map((n) =>
        Buffer.from(
          JSON.stringify({
            query: `query Q($x: String) { ${'residentialPlans(zipCode: "75001") { supplier { '.repeat(1)}${'a: __typename '.repeat(n)} } } }`,
            variables: { x: '1' },
          }),
        ),
      ),
      fc
        .integer({ min: 1, max: 3000 })
        .map((n) => Buffer.from(JSON.stringify({ query: `${'{ a: utilities(zipCode: "75001") '.repeat(n)}{ id }${' }'.repeat(n)}` }))),
      fc
        .integer({ min: 1, max: 3000 })
        .map((n) => Buffer.from(JSON.stringify({ query: `{ utilities(zipCode: ${'['.repeat(n)}"75001"${']'.repeat(n)}) { id } }` }))),
    );
    await fc.assert(
      fc.asyncProperty(anyEnv, body, async (env, b) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (env !== 'playground') headers['x-api-key'] = keys[env];
        const got = await send({ env, method: 'POST', headers, body: b });
        seen.set(got.status, (seen.get(got.status) ?? 0) + 1);
        check(b.toString('latin1'), { env, method: 'POST' }, got);
        if (b.length > BODY_LIMIT) {
          expect(got.status).toBe(413);
          expect(JSON.parse(got.text).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
        }
      }),
      { numRuns: 250 },
    );
    expect(seen.get(413)).toBeGreaterThan(0);
    expect(seen.get(200)).toBeGreaterThan(0);
  });

  it('random headers: content types, accept, keys incl. unicode and control characters', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyEnv,
        contentType,
        accept,
        keyChoice,
        randomKey,
        fc.boolean(),
        fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), fc.string({ maxLength: 60 }).filter(headerSafe)), { maxLength: 5 }),
        async (env, type, acc, kc, rk, twoKeys, extra) => {
          const key = keyFor(env, kc, rk);
          const headers: Record<string, string> = { 'content-type': type, accept: acc };
          for (const [k, v] of extra)
            if (!['content-length', 'transfer-encoding', 'host', 'connection', 'expect', 'upgrade'].includes(k)) headers[k] = v;
          if (key !== null) headers['x-api-key'] = twoKeys ? `${key}, ${keys.production}` : key;
          const body = Buffer.from(JSON.stringify({ query: '{ utilities(zipCode: "75001") { id name } }' }));
          const got = await send({ env, method: 'POST', headers, body });
          check(JSON.stringify(headers), { env, method: 'POST' }, got);
        },
      ),
      { numRuns: 500 },
    );

    // Bytes Node's own client would refuse: control characters, raw UTF-8, obs-fold, huge values.
    const rawValue = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 80 }).map((a) => Buffer.from(a.map((x) => (x === 0x0d || x === 0x0a ? 0x20 : x)))),
      fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => Buffer.from(s, 'utf8')),
      fc.constantFrom(
        Buffer.from('\u0000'),
        Buffer.from('a\r\n b'),
        Buffer.from('x'.repeat(20_000)),
        Buffer.from('\u007f'),
        Buffer.from(`${keys?.production ?? ''}\u0001`),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        anyEnv,
        rawValue,
        fc.constantFrom('x-api-key', 'content-type', 'x-request-id', 'x-forwarded-for'),
        async (env, value, name) => {
          const body = Buffer.from(JSON.stringify({ query: '{ __typename }' }));
          const head = Buffer.concat([
            Buffer.from(`POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: ${body.length}\r\n`),
            name === 'content-type' ? Buffer.alloc(0) : Buffer.from('content-type: application/json\r\n'),
            Buffer.from(`${name}: `),
            value,
            Buffer.from('\r\n\r\n'),
          ]);
          const got = await sendRaw(env, head, body);
          expect(got.status, got.text).toBeGreaterThan(0);
          check(value.toString('latin1'), { env, method: 'POST' }, got);
        },
      ),
      { numRuns: 250 },
    );
  });

  it('the public queries with random arguments, inline and as variables', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyEnv,
        operation,
        fc.constantFrom('inline', 'variables', 'mangled'),
        mangledVariables,
        accept,
        async (env, op, mode, mangled, acc) => {
          const payload =
            mode === 'inline' ? { query: op.inline } : mode === 'variables' ? op.withVars : { ...op.withVars, variables: mangled };
          const text = JSON.stringify(payload);
          const headers: Record<string, string> = { 'content-type': 'application/json', accept: acc };
          if (env !== 'playground') headers['x-api-key'] = keys[env];
          const got = await send({ env, method: 'POST', headers, body: Buffer.from(text) });
          check(text, { env, method: 'POST' }, got);
          // A well-formed, executable query is never refused with a bare HTTP error.
          if (got.status === 200) {
            const json = JSON.parse(got.text);
            if (json.errors)
              for (const e of json.errors)
                expect(e.extensions.code).toMatch(
                  /^(?:BAD_USER_INPUT|GRAPHQL_[A-Z_]+|UPSTREAM_UNAVAILABLE|NOT_FOUND|QUERY_TOO_COMPLEX|FORBIDDEN|[A-Z_]+)$/,
                );
          }
        },
      ),
      { numRuns: 1200 },
    );
  });

  it('afterwards: still serving, and no key in any log line', async () => {
    for (const env of ENVS) {
      const res = await fetch(gw.urls[env]!.replace('/graphql', '/healthz'));
      expect(res.status).toBe(200);
    }
    const ok = await fetch(gw.urls.production!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keys.production },
      body: JSON.stringify({ query: '{ utilities(zipCode: "75001") { id } }' }),
    });
    expect(await ok.json()).toEqual({ data: { utilities: [{ id: 'ONCOR' }] } });

    expect(requests).toBeGreaterThan(2500);
    expect(logLines.length).toBeGreaterThan(requests / 2);
    const logs = logLines.join('') + consoleLines.join('\n');
    expect(logs).not.toContain(keys.production);
    expect(logs).not.toContain(keys.certification);
    // Nor the secret part alone, nor any generated key-shaped value (they were all sent as keys).
    expect(logs).not.toContain(keys.production.slice('epk_live_'.length));
    expect(logs).not.toContain(keys.certification.slice('epk_cert_'.length));
    expect(logs).not.toMatch(/epk_(?:live|cert)_[A-Za-z0-9_-]{8,}/);
    process.stdout.write(
      `fuzz: ${requests} requests, statuses ${JSON.stringify(Object.fromEntries([...statusCounts].sort()))}, ${logLines.length} log lines\n`,
    );
  });
});
