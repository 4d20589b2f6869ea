// HTTPS listeners: TLS when TLS_CERT_FILE and TLS_KEY_FILE are set, HSTS on every TLS
// answer, a renewed certificate picked up without a restart, and clear refusals of bad files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import https from 'node:https';
import http2 from 'node:http2';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { makeCert as harnessCert } from '../../scripts/harness/tls-cert.js';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { loadConfig } from '../../start/config.js';
import { H2_MAX_STREAMS } from '../../server/http/tls.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-tls-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A self-signed certificate for 127.0.0.1 made now (scripts/harness/tls-cert.ts); returns its PEM. */
const makeCert = (name: string, cn: string) => harnessCert(dir, name, cn);

function request(
  url: string,
  ca: string[],
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string; peerCn: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      { method: body ? 'POST' : 'GET', ca, agent: false, headers: body ? { 'content-type': 'application/json' } : {} },
      (res) => {
        const peer = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, peerCn: String(peer.subject?.CN) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTPS listeners', () => {
  let gw: TestGateway;
  let first: { cert: string; key: string };
  const certFile = path.join(dir, 'live.crt');
  const keyFile = path.join(dir, 'live.key');

  beforeAll(async () => {
    first = makeCert('one', 'gateway-one');
    fs.writeFileSync(certFile, first.cert);
    fs.writeFileSync(keyFile, first.key);
    gw = await startTestGateway({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
  });

  it('serves GraphQL over TLS with HSTS; plain HTTP on the port gets no answer', async () => {
    const url = gw.g.urls.production!;
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/graphql$/);
    const res = await request(url.replace('/graphql', '/readyz'), [first.cert]);
    expect(res.status).toBe(200);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    const page = await request(gw.g.urls.playground!, [first.cert], JSON.stringify({ query: '{ __typename }' }));
    expect(page.status).toBe(200);
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000');
    await expect(fetch(url.replace('https:', 'http:'), { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  it('a renewed certificate is served to new connections without a restart; a broken pair keeps the old one', async () => {
    const url = gw.g.urls.production!.replace('/graphql', '/healthz');
    const second = makeCert('two', 'gateway-two');
    // A half-done renewal (new cert, old key) is refused: the old pair stays.
    fs.writeFileSync(certFile, second.cert);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await request(url, [first.cert, second.cert])).peerCn).toBe('gateway-one');
    fs.writeFileSync(keyFile, second.key);
    await eventually(async () => (await request(url, [first.cert, second.cert])).peerCn === 'gateway-two');
  });

  it('without TLS_HTTP2 a client asking for h2 (ALPN) gets HTTP/1.1', async () => {
    const alpn = await new Promise<string | false | null>((resolve, reject) => {
      const socket = tls.connect(
        {
          host: '127.0.0.1',
          port: Number(new URL(gw.g.urls.production!).port),
          ca: [first.cert, fs.readFileSync(certFile, 'utf8')],
          ALPNProtocols: ['h2', 'http/1.1'],
        },
        () => {
          resolve(socket.alpnProtocol);
          socket.destroy();
        },
      );
      socket.on('error', reject);
    });
    expect(alpn).not.toBe('h2');
  });

  it('refuses bad TLS settings at start with a message naming the variables', () => {
    expect(() => loadConfig({ TLS_CERT_FILE: certFile })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE must be set together/);
    expect(() => loadConfig({ TLS_CERT_FILE: path.join(dir, 'missing.crt'), TLS_KEY_FILE: keyFile })).toThrow(/cannot be read: ENOENT/);
    const garbage = path.join(dir, 'garbage.pem');
    fs.writeFileSync(garbage, 'not a certificate\n'.repeat(1000));
    expect(() => loadConfig({ TLS_CERT_FILE: garbage, TLS_KEY_FILE: keyFile })).toThrow(
      /not a usable PEM certificate and matching private key/,
    );
    const other = makeCert('three', 'other');
    const mismatchedKey = path.join(dir, 'three.key');
    expect(other.key).toBeTruthy();
    expect(() => loadConfig({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: mismatchedKey })).toThrow(
      /not a usable PEM certificate and matching private key/,
    );
    expect(() => loadConfig({ TLS_HTTP2: 'on' })).toThrow(/TLS_HTTP2 needs TLS_CERT_FILE and TLS_KEY_FILE/);
    expect(() => loadConfig({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, TLS_HTTP2: 'maybe' })).toThrow(
      /TLS_HTTP2 must be true or false, got "maybe"/,
    );
    expect(loadConfig({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, TLS_HTTP2: 'on' }).tls).toMatchObject({ http2: true });
    expect(loadConfig({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile }).tls).toMatchObject({ http2: false });
  });
});

interface H2Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  text: string;
}

/** One request on an HTTP/2 session; `body` sent and the stream ended unless `keepOpen`. */
function h2(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: string, keepOpen = false): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers, { endStream: body === undefined && !keepOpen });
    let text = '';
    let head: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => (head = h));
    stream.setEncoding('utf8');
    stream.on('data', (d) => (text += d));
    stream.on('end', () => resolve({ status: Number(head[':status']), headers: head, text }));
    stream.on('error', reject);
    if (body !== undefined) {
      if (keepOpen) stream.write(body);
      else stream.end(body);
    }
  });
}

function h2connect(url: string, ca: string[]): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(new URL(url).origin, { ca });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

describe('HTTP/2 beside HTTP/1.1 on the TLS listener (TLS_HTTP2=on)', () => {
  let gw: TestGateway;
  let first: { cert: string; key: string };
  const certFile = path.join(dir, 'h2.crt');
  const keyFile = path.join(dir, 'h2.key');
  const post = (key: string | string[] | null, _query: string) => ({
    ':method': 'POST',
    ':path': '/graphql',
    'content-type': 'application/json',
    ...(key ? { 'x-api-key': key } : {}),
  });
  const QUERY = JSON.stringify({ query: '{ utilities(zipCode: "60601") { id } }' });

  beforeAll(async () => {
    first = makeCert('h2-one', 'h2-one');
    fs.writeFileSync(certFile, first.cert);
    fs.writeFileSync(keyFile, first.key);
    gw = await startTestGateway({
      TLS_CERT_FILE: certFile,
      TLS_KEY_FILE: keyFile,
      TLS_HTTP2: 'on',
      BODY_LIMIT_BYTES: '2048',
      KEYED_HEADERS_TIMEOUT_MS: '1000',
      KEYED_REQUEST_TIMEOUT_MS: '1500',
      KEYED_KEEP_ALIVE_TIMEOUT_MS: '1000',
      PLAYGROUND_MAX_CONNECTIONS_PER_IP: '2',
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
  });

  it('serves h2 (ALPN) and HTTP/1.1 on one port, the same answers, HSTS on both', async () => {
    const url = gw.g.urls.production!;
    const session = await h2connect(url, [first.cert]);
    try {
      expect(session.alpnProtocol).toBe('h2');
      const a = await h2(session, post(gw.keys.production, QUERY), QUERY);
      expect(a.status).toBe(200);
      expect(a.headers['strict-transport-security']).toBe('max-age=31536000');
      expect(a.headers['x-request-id']).toBeTruthy();
      expect(JSON.parse(a.text).data.utilities.length).toBeGreaterThan(0);
      const ready = await h2(session, { ':path': '/readyz' });
      expect(ready.status).toBe(200);
      const one = await request(url.replace('/graphql', '/readyz'), [first.cert]);
      expect(one.status).toBe(200);
      expect(one.headers['strict-transport-security']).toBe('max-age=31536000');
      // The playground's static assets too (HEAD included).
      const play = await h2connect(gw.g.urls.playground!, [first.cert]);
      try {
        const page = await h2(play, { ':path': '/graphql', accept: 'text/html' });
        expect(page.status).toBe(200);
        const asset = /src="(\/playground\/assets\/[^"]+)"/.exec(page.text)![1]!;
        const head = await h2(play, { ':method': 'HEAD', ':path': asset });
        expect(head.status).toBe(200);
        expect(head.text).toBe('');
        expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
      } finally {
        play.close();
      }
    } finally {
      session.close();
    }
  });

  it('keys are checked from the raw headers: a key sent twice is refused, a missing one too', async () => {
    const session = await h2connect(gw.g.urls.production!, [first.cert]);
    try {
      expect((await h2(session, post([gw.keys.production, gw.keys.production], QUERY), QUERY)).status).toBe(403);
      expect((await h2(session, post(null, QUERY), QUERY)).status).toBe(403);
      expect((await h2(session, post(gw.keys.certification, QUERY), QUERY)).status).toBe(403);
    } finally {
      session.close();
    }
  });

  it('body limit, request timeout (a slow body gets 408), idle sessions closed, streams per session bounded', async () => {
    const session = await h2connect(gw.g.urls.production!, [first.cert]);
    try {
      expect(session.remoteSettings.maxConcurrentStreams).toBe(H2_MAX_STREAMS);
      const big = JSON.stringify({ query: `{ utilities(zipCode: "60601") { id } } ${' '.repeat(3000)}` });
      expect((await h2(session, post(gw.keys.production, big), big)).status).toBe(413);
      const t0 = Date.now();
      const slow = await h2(session, post(gw.keys.production, QUERY), QUERY.slice(0, 10), true);
      expect(slow.status).toBe(408);
      expect(Date.now() - t0).toBeLessThan(4000);
    } finally {
      session.close();
    }
    // HTTP/1.1 on the same port keeps node:http's own request timeout (set on the HTTP/2 server).
    const t1 = Date.now();
    const h1 = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect(
        { host: '127.0.0.1', port: Number(new URL(gw.g.urls.production!).port), ca: [first.cert], ALPNProtocols: ['http/1.1'] },
        () => {
          socket.write(
            `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\nx-api-key: ${gw.keys.production}\r\n\r\n{`,
          );
        },
      );
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d) => (text += d));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(h1).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - t1).toBeLessThan(5000);
    // A session with nothing open is closed after the keep-alive timeout (1 s here).
    const idle = await h2connect(gw.g.urls.production!, [first.cert]);
    expect((await h2(idle, { ':path': '/healthz' })).status).toBe(200);
    await eventually(async () => idle.closed || idle.destroyed, 5000);
  });

  it('broken h2 clients (garbage frames, streams reset mid-body) cost them their stream or session, nothing else', async () => {
    const port = Number(new URL(gw.g.urls.production!).port);
    await new Promise<void>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca: [first.cert], ALPNProtocols: ['h2'] }, () => {
        socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
        socket.write(Buffer.from('00000a01ff00000001deadbeefdeadbeefdead', 'hex'));
      });
      // Read what the server answers (a GOAWAY), or the socket never ends.
      socket.resume();
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
    });
    const session = await h2connect(gw.g.urls.production!, [first.cert]);
    try {
      const stream = session.request(post(gw.keys.production, QUERY), { endStream: false });
      stream.on('error', () => {});
      stream.write(QUERY.slice(0, 5));
      await new Promise((r) => setTimeout(r, 100));
      stream.close(http2.constants.NGHTTP2_CANCEL);
      expect((await h2(session, post(gw.keys.production, QUERY), QUERY)).status).toBe(200);
    } finally {
      session.close();
    }
  });

  it('the per-IP connection cap counts h2 connections', async () => {
    const url = gw.g.urls.playground!;
    const open = [await h2connect(url, [first.cert]), await h2connect(url, [first.cert])];
    try {
      for (const s of open) expect((await h2(s, { ':path': '/healthz' })).status).toBe(200);
      const third = http2.connect(new URL(url).origin, { ca: [first.cert] });
      const outcome = await new Promise<string>((resolve) => {
        third.once('connect', () => resolve('connected'));
        third.once('error', () => resolve('refused'));
        third.once('close', () => resolve('refused'));
      });
      third.destroy();
      expect(outcome).toBe('refused');
    } finally {
      for (const s of open) s.close();
    }
  });

  it('a renewed certificate reaches new h2 sessions without a restart', async () => {
    const second = makeCert('h2-two', 'h2-two');
    fs.writeFileSync(certFile, second.cert);
    fs.writeFileSync(keyFile, second.key);
    await eventually(async () => {
      const s = await h2connect(gw.g.urls.production!, [first.cert, second.cert]);
      const cn = String((s.socket as tls.TLSSocket).getPeerCertificate().subject?.CN);
      s.close();
      return cn === 'h2-two';
    });
  });

  it('closing the gateway ends open h2 sessions (GOAWAY) instead of waiting on them', async () => {
    const session = await h2connect(gw.g.urls.certification!, [first.cert, fs.readFileSync(certFile, 'utf8')]);
    expect((await h2(session, { ':path': '/healthz' })).status).toBe(200);
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    const t0 = Date.now();
    await gw.close();
    gw = null as unknown as TestGateway;
    await goaway;
    expect(Date.now() - t0).toBeLessThan(5000);
    session.destroy();
  });
});
