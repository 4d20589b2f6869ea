// The default transport (undici's request API) against a real local HTTP server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { undiciTransport } from '../../sources/upstream/transport.js';
import { classifyError, UpstreamError } from '../../sources/upstream/errors.js';

const JSON_BODY = JSON.stringify({ offers: [{ id: 'a', rate: '0.1234' }] });
let server: http.Server;
let base: string;
const seen: { method?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body });
      const url = req.url ?? '/';
      if (url === '/json') return res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] }).end(JSON_BODY);
      if (url === '/gzip')
        return res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(zlib.gzipSync(JSON_BODY));
      if (url === '/bad-gzip') return res.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip at all');
      if (url === '/zip-bomb') return res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(Buffer.alloc(2_000_000, 32)));
      if (url === '/odd-encoding') return res.writeHead(200, { 'content-encoding': 'x-secret-codec' }).end(JSON_BODY);
      if (url === '/big-declared') return res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
      if (url === '/big-chunked') {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 10; i++) res.write('y'.repeat(500));
        return res.end();
      }
      if (url === '/moved') return res.writeHead(302, { location: '/json' }).end();
      if (url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (url === '/hang') return; // never answers
      if (url.startsWith('/echo'))
        return res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, body, query: url }));
      res.writeHead(404).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const signal = (ms = 2000) => AbortSignal.timeout(ms);

describe('undici transport', () => {
  const t = undiciTransport(4);
  afterAll(() => t.close());

  it('returns status, every header value and the whole body; sends no accept-encoding', async () => {
    const b = await t(`${base}/json`, { signal: signal(), headers: { accept: 'application/json', 'accept-encoding': 'gzip' } }, 1 << 20);
    expect(b.status).toBe(200);
    expect(b.statusText).toBe('OK');
    expect(Buffer.from(b.body).toString()).toBe(JSON_BODY);
    expect(b.headers.filter(([k]) => k === 'set-cookie').map(([, v]) => v)).toEqual(['a=1', 'b=2']);
    expect(b.receivedAt).toBeGreaterThan(0);
    const sent = seen.at(-1)!;
    expect(sent.headers.accept).toBe('application/json');
    expect(sent.headers['accept-encoding']).toBeUndefined();
  });

  it('sends the method, query string and body of the call', async () => {
    const b = await t(
      `${base}/echo?zip=75001&class=residential`,
      { signal: signal(), method: 'POST', body: '{"q":1}', headers: { 'content-type': 'application/json' } },
      1 << 20,
    );
    expect(b.status).toBe(201);
    expect(JSON.parse(Buffer.from(b.body).toString())).toEqual({
      method: 'POST',
      body: '{"q":1}',
      query: '/echo?zip=75001&class=residential',
    });
    const head = await t(`${base}/json`, { signal: signal(), method: 'HEAD' }, 1 << 20);
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
  });

  it('decodes a compressed answer, and refuses a corrupt, unknown or oversized one', async () => {
    const gz = await t(`${base}/gzip`, { signal: signal() }, 1 << 20);
    expect(Buffer.from(gz.body).toString()).toBe(JSON_BODY);
    for (const [path, kind] of [
      ['/bad-gzip', 'malformed'],
      ['/odd-encoding', 'malformed'],
      ['/zip-bomb', 'too_large'],
    ] as const) {
      const err = await t(`${base}${path}`, { signal: signal() }, 1 << 20).catch((e: unknown) => e);
      expect(err, path).toBeInstanceOf(UpstreamError);
      expect((err as UpstreamError).kind, path).toBe(kind);
      expect((err as Error).message).not.toContain('secret');
    }
  });

  it('stops reading past the size bound, whether the length is declared or not', async () => {
    for (const path of ['/big-declared', '/big-chunked']) {
      const err = await t(`${base}${path}`, { signal: signal() }, 1000).catch((e: unknown) => e);
      expect((err as UpstreamError).kind, path).toBe('too_large');
    }
    // Exactly at the bound is fine.
    const ok = await t(`${base}/big-declared`, { signal: signal() }, 5000);
    expect(ok.body.byteLength).toBe(5000);
  });

  it('follows a few redirects, like fetch, but not forever', async () => {
    const b = await t(`${base}/moved`, { signal: signal() }, 1 << 20);
    expect(b.status).toBe(200);
    expect(Buffer.from(b.body).toString()).toBe(JSON_BODY);
    // Past the limit the last 302 is the answer (a non-2xx, which Mesh turns into a feed error).
    const loop = await t(`${base}/loop`, { signal: signal() }, 1 << 20);
    expect(loop.status).toBe(302);
  });

  it('gives up at the deadline and on refused connections, with errors the fetch layer classifies', async () => {
    const s = signal(150);
    const hang = await t(`${base}/hang`, { signal: s }, 1 << 20).catch((e: unknown) => e);
    expect(classifyError(hang, s).kind).toBe('timeout');
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await t(`http://127.0.0.1:${port}/x`, { signal: signal() }, 1 << 20).catch((e: unknown) => e);
    const kind = classifyError(refused);
    expect(kind.kind).toBe('network');
    expect(kind.message).not.toContain('127.0.0.1');
  });
});
