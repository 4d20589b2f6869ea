// HTTPS listeners (issue 15): TLS when TLS_CERT_FILE and TLS_KEY_FILE are set, HSTS on every TLS
// answer, a renewed certificate picked up without a restart, and clear refusals of bad files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { eventually } from '../support/eventually.js';
import { loadConfig } from '../../server/config.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-tls-'));

/** A self-signed certificate for 127.0.0.1 made now with the openssl CLI; returns its PEM. */
function makeCert(name: string, cn: string): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${cn}`, '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { cert: fs.readFileSync(cert, 'utf8'), key: fs.readFileSync(key, 'utf8') };
}

function request(url: string, ca: string[], body?: string): Promise<{ status: number; headers: Record<string, unknown>; text: string; peerCn: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: body ? 'POST' : 'GET', ca, agent: false, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      const peer = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, peerCn: String(peer.subject?.CN) }));
    });
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
    fs.rmSync(dir, { recursive: true, force: true });
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

  it('refuses bad TLS settings at start with a message naming the variables', () => {
    expect(() => loadConfig({ TLS_CERT_FILE: certFile })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE must be set together/);
    expect(() => loadConfig({ TLS_CERT_FILE: path.join(dir, 'missing.crt'), TLS_KEY_FILE: keyFile })).toThrow(/cannot be read: ENOENT/);
    const garbage = path.join(dir, 'garbage.pem');
    fs.writeFileSync(garbage, 'not a certificate\n'.repeat(1000));
    expect(() => loadConfig({ TLS_CERT_FILE: garbage, TLS_KEY_FILE: keyFile })).toThrow(/not a usable PEM certificate and matching private key/);
    const other = makeCert('three', 'other');
    const mismatchedKey = path.join(dir, 'three.key');
    expect(other.key).toBeTruthy();
    expect(() => loadConfig({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: mismatchedKey })).toThrow(/not a usable PEM certificate and matching private key/);
  });
});
