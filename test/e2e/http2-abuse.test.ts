// HTTP/2 (TLS_HTTP2) against abusive clients: a connection that opens and cancels streams in a loop
// (rapid reset) is closed with GOAWAY ENHANCE_YOUR_CALM after a bounded number of resets while
// another connection is served; request headers over the 16 KiB bound get 431 as on HTTP/1.1, and
// past twice the bound a stream reset with ENHANCE_YOUR_CALM (docs/deployment.md). The GOAWAY
// and the 431 are counted on /metrics and logged at warn with the client's address.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../scripts/harness/eventually.js';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { captureLog } from '../../scripts/harness/log-capture.js';
import { scrape } from '../../scripts/harness/metrics-text.js';
import { connectRawH2 } from '../../scripts/harness/h2-raw-client.js';
import { makeCert } from '../../scripts/harness/tls-cert.js';
import { H2_MAX_RESETS } from '../../server/http/tls.js';

const QUERY = JSON.stringify({ query: '{ utilities(zipCode: "60601") { id } }' });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-h2-'));
let redis: TestRedis;
let gw: TestGateway;
let ca: string;
let lines: Record<string, any>[];
let metricsUrl: string;

/** The listener-defence count of production for `reason` on /metrics. */
const refusedCount = async (reason: string) =>
  (await scrape(metricsUrl))('gateway_connections_refused_total', { environment: 'production', reason });
const defenceWarnings = (reason: string) => lines.filter((l) => l.environment === 'production' && l.reason === reason);

beforeAll(async () => {
  redis = await startTestRedis();
  const pair = makeCert(dir, 'h2');
  ca = pair.cert;
  const log = captureLog('warn');
  lines = log.lines;
  const ops = await freePort();
  metricsUrl = `http://127.0.0.1:${ops}/metrics`;
  gw = await startTestGateway(
    { TLS_CERT_FILE: pair.certFile, TLS_KEY_FILE: pair.keyFile, TLS_HTTP2: 'on', REDIS_URL: redis.url, OPS_PORT: String(ops) },
    { logger: log.logger },
  );
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await redis?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function connect(): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(new URL(gw.g.urls.production!).origin, { ca: [ca] });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

const headers = (extra: Record<string, string> = {}) => ({
  ':method': 'POST',
  ':path': '/graphql',
  'content-type': 'application/json',
  'x-api-key': gw.keys.production,
  ...extra,
});

/** One request; its status and body, or the stream's reset code. */
function send(
  session: http2.ClientHttp2Session,
  h: http2.OutgoingHttpHeaders,
): Promise<{ status?: number; text?: string; rstCode?: number }> {
  return new Promise((resolve) => {
    const stream = session.request(h);
    let status: number | undefined;
    let text = '';
    stream.on('response', (r) => (status = Number(r[':status'])));
    stream.setEncoding('utf8');
    stream.on('data', (d) => (text += d));
    stream.on('error', () => {});
    stream.on('close', () => resolve(status === undefined ? { rstCode: stream.rstCode } : { status, text }));
    stream.end(QUERY);
  });
}

describe('HTTP/2 rapid reset', () => {
  it('a connection cancelling streams in a loop gets GOAWAY ENHANCE_YOUR_CALM; another connection is served meanwhile', async () => {
    // Frames written by hand: HEADERS then RST_STREAM for each stream, as the attack puts them on the wire.
    const attacker = await connectRawH2(gw.g.urls.production!, ca);
    const partner = await connect();
    try {
      let sent = 0;
      // At most the bound the test asserts, in writes of 25 streams.
      while (attacker.goaway === null && !attacker.closed && sent < H2_MAX_RESETS * 20) {
        await attacker.openAndCancel(25, { 'content-type': 'application/json', 'x-api-key': gw.keys.production });
        sent += 25;
        await new Promise((r) => setTimeout(r, 1));
      }
      // The GOAWAY may still be on its way when the loop stops.
      await eventually(async () => attacker.goaway !== null || attacker.closed, 5000).catch(() => {});
      expect(attacker.goaway).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
      // Closed after about H2_MAX_RESETS resets (some are in flight when the GOAWAY leaves).
      expect(sent).toBeLessThan(H2_MAX_RESETS * 20);
      const answer = await send(partner, headers());
      expect(answer.status).toBe(200);
      // One connection closed: counted once, and a warning names the attacker's address.
      expect(await refusedCount('h2_rapid_reset')).toBe(1);
      expect(defenceWarnings('h2_rapid_reset')).toMatchObject([
        {
          level: 40,
          remoteAddress: expect.stringMatching(/127\.0\.0\.1$/),
          maxResets: H2_MAX_RESETS,
          msg: expect.stringMatching(/rapid reset/),
        },
      ]);
    } finally {
      attacker.destroy();
      partner.close();
    }
  }, 30_000);

  it('a few cancelled streams (a client navigating away) leave the connection open', async () => {
    const session = await connect();
    try {
      for (let i = 0; i < 10; i++) {
        const stream = session.request(headers(), { endStream: true });
        stream.on('error', () => {});
        stream.close(http2.constants.NGHTTP2_CANCEL);
      }
      expect((await send(session, headers())).status).toBe(200);
    } finally {
      session.close();
    }
  });
});

describe('HTTP/2 request headers over the bound', () => {
  it('16-32 KiB of headers get 431 with a JSON body, and the connection stays usable', async () => {
    const session = await connect();
    try {
      expect((await send(session, headers({ 'x-pad': 'a'.repeat(10_000) }))).status).toBe(200);
      const big = await send(session, headers({ 'x-pad': 'a'.repeat(20_000) }));
      expect(big.status).toBe(431);
      expect(JSON.parse(big.text!).errors[0].message).toBe('Request headers are too large.');
      expect(await refusedCount('headers_too_large')).toBeGreaterThanOrEqual(1);
      expect(defenceWarnings('headers_too_large')[0]).toMatchObject({
        level: 40,
        remoteAddress: expect.any(String),
        maxHeaderSize: 16_384,
      });
      expect((await send(session, headers())).status).toBe(200);
    } finally {
      session.close();
    }
  });

  it('past twice the bound: 431 or a stream reset with ENHANCE_YOUR_CALM or REFUSED_STREAM (documented), never more', async () => {
    const session = await connect();
    session.on('error', () => {});
    try {
      for (const size of [40_000, 100_000]) {
        const huge = await send(session, headers({ 'x-pad': 'a'.repeat(size) }));
        if (huge.status !== undefined) expect(huge.status).toBe(431);
        else expect([http2.constants.NGHTTP2_ENHANCE_YOUR_CALM, http2.constants.NGHTTP2_REFUSED_STREAM]).toContain(huge.rstCode);
      }
      const other = await connect();
      expect((await send(other, headers())).status).toBe(200);
      other.close();
    } finally {
      session.destroy();
    }
  });
});
