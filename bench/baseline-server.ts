// Benchmark baseline: a bare node:http server answering every request with the same 2 KB JSON body
// (the physical limit of this machine for an HTTP/1.1 JSON answer, measured in the same run).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const item = { id: '00000000-0000-5000-8000-000000000000', title: 'Fixed 12', price: 0.123456, term: 12 };
const items: unknown[] = [];
const size = (extra: unknown[], pad: string) => Buffer.byteLength(JSON.stringify({ data: { items: extra }, pad }));
while (size([...items, item], '') <= 2048) items.push(item);
const body = JSON.stringify({ data: { items }, pad: 'x'.repeat(2048 - size(items, '')) });
const buf = Buffer.from(body);

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': buf.length });
    res.end(buf);
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`READY ${port} ${buf.length}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
