// The listener sends the answers of one event-loop turn together at its end (server/http/turn-batch.ts).
// Whatever arrives together is still answered each with its own reply: requests pipelined on one
// connection in order, and many connections at once each with their own request id and body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { launchGateway } from '../../start/launch.js';
import type { GatewayHandle } from '../../start/app.js';
import { issueKey } from '../../stores/key-store.js';
import { localGatewayEnv } from '../support/feed-config.js';

const QUERY = 'query Plans($zipCode: String!) { residentialPlans(zipCode: $zipCode) { title price } }';
const body = (zipCode: string) => JSON.stringify({ query: QUERY, variables: { zipCode } });

/** Raw HTTP/1.1 requests written on one socket at once; resolves with the raw text once `count` whole answers have come. */
function pipelined(url: string, requests: string[], count: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(requests.join('')));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      text += d;
      if (answers(text).length >= count) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    // A missing answer fails here, naming how many came, rather than at the test's timeout.
    socket.setTimeout(15_000, () => socket.destroy(new Error(`${answers(text).length} of ${count} answers within 15 s`)));
  });
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function answers(text: string): RawAnswer[] {
  const out: RawAnswer[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const [statusLine, ...lines] = text.slice(at, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length']);
    if (!Number.isFinite(length) || text.length < end + 4 + length) break;
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return out;
}

describe('answers sent together at the end of a loop turn', () => {
  let dir: string;
  let gw: GatewayHandle;
  let prod: string;
  let key: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-turn-'));
    const keysFile = path.join(dir, 'keys.json');
    key = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
    // The cache stays on: the requests below are hits as well as misses.
    gw = await launchGateway({ env: localGatewayEnv(dir) });
    prod = gw.urls.production!;
  }, 120_000);

  afterAll(async () => {
    await gw?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const request = (id: string, text: string, pathname = '/graphql', apiKey: string | null = key) =>
    `POST ${pathname} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n` +
    (apiKey ? `x-api-key: ${apiKey}\r\n` : '') +
    `x-request-id: ${id}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;

  it('requests pipelined on one connection are answered in their order, hits, misses and refusals alike', async () => {
    // Warm the cache for 75001 (hits below); 10001 is then a miss.
    const warm = await fetch(prod, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: body('75001'),
    });
    expect(warm.status).toBe(200);
    const sent = [
      request('pipe-0001-hit', body('75001')),
      request('pipe-0002-miss', body('10001')),
      request('pipe-0003-nokey', body('75001'), '/graphql', null),
      request('pipe-0004-path', body('75001'), '/nowhere'),
      request('pipe-0005-hit', body('75001')),
    ];
    const got = answers(await pipelined(prod, sent, sent.length));
    expect(got.map((a) => a.headers['x-request-id'])).toEqual([
      'pipe-0001-hit',
      'pipe-0002-miss',
      'pipe-0003-nokey',
      'pipe-0004-path',
      'pipe-0005-hit',
    ]);
    expect(got.map((a) => a.status)).toEqual([200, 200, 403, 404, 200]);
    expect(got[0]!.headers['x-cache']).toBe('HIT');
    expect(got[4]!.body).toBe(got[0]!.body);
    expect(got[1]!.body).not.toBe(got[0]!.body);
    expect(JSON.parse(got[1]!.body).data.residentialPlans.length).toBeGreaterThan(0);
  });

  it('many connections at once: each answer carries its own request id and the whole body', async () => {
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        fetch(prod, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-request-id': `many-${String(i).padStart(4, '0')}` },
          body: body(i % 2 ? '75001' : '10001'),
        }).then(async (r) => ({
          id: r.headers.get('x-request-id'),
          status: r.status,
          json: (await r.json()) as { data: { residentialPlans: unknown[] } },
        })),
      ),
    );
    replies.forEach((r, i) => {
      expect(r.id).toBe(`many-${String(i).padStart(4, '0')}`);
      expect(r.status).toBe(200);
      expect(r.json.data.residentialPlans.length).toBeGreaterThan(0);
    });
  });
});
