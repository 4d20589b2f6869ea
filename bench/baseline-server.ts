// Benchmark reference servers, plain node:http (no gateway code):
//   MODE=baseline (default): every request gets the same 2 KB JSON body: the physical limit of this
//     machine for an HTTP/1.1 JSON answer, measured in the same run as the gateway.
//   MODE=floor: what the shape of the cached gateway answer costs by itself: reads and JSON-parses
//     the POST body, answers a fixed JSON body of BODY_BYTES (the size of the gateway's answer) with
//     the same response headers the gateway sends. No auth, cache, metrics or replay.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { API_HEADERS } from '../server/http/security-headers.js';

const mode = process.env.MODE ?? 'baseline';
const bytes = Number(process.env.BODY_BYTES ?? 2048);

function jsonOf(size: number): Buffer {
  const item = { id: '00000000-0000-5000-8000-000000000000', title: 'Fixed 12', price: 0.123456, term: 12 };
  const items: unknown[] = [];
  const length = (list: unknown[], pad: string) => Buffer.byteLength(JSON.stringify({ data: { items: list }, pad }));
  while (length([...items, item], '') <= size) items.push(item);
  return Buffer.from(JSON.stringify({ data: { items }, pad: 'x'.repeat(Math.max(0, size - length(items, ''))) }));
}

const body = jsonOf(mode === 'floor' ? bytes : 2048);
// The gateway's own answer headers, so the floor pays for exactly what the gateway sends.
const FLOOR_HEADERS = { ...API_HEADERS, 'content-type': 'application/json; charset=utf-8' };

const server = http.createServer((req, res) => {
  if (mode === 'floor') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, {
        ...FLOOR_HEADERS,
        'x-request-id': randomUUID(),
        age: '1',
        'x-cache': 'HIT',
        'content-length': String(body.length),
      });
      res.end(body.toString('latin1'));
    });
    return;
  }
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`READY ${port} ${body.length}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
