// The `floor/uws` row: the `floor` server's work (read and JSON-parse the same POST, answer the same
// headers and body size) on uWebSockets.js (its npm build @trufflesuite/uws-js-unofficial) instead
// of node:http. It measures what a uWS listener could buy before porting the gateway to one: the
// listener's own ceiling, with no gateway code.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { API_HEADERS } from '../server/http/security-headers.js';

const uws = createRequire(import.meta.url)('@trufflesuite/uws-js-unofficial') as typeof import('@trufflesuite/uws-js-unofficial');
const size = Number(process.env.BODY_BYTES ?? 2048);
const body = Buffer.from(JSON.stringify({ data: { pad: 'x'.repeat(Math.max(0, size - 20)) } }));
const headers = Object.entries({ ...API_HEADERS, 'content-type': 'application/json; charset=utf-8', age: '1', 'x-cache': 'HIT' });

const app = uws.App().post('/graphql', (res, _req) => {
  let aborted = false;
  res.onAborted(() => (aborted = true));
  const chunks: Buffer[] = [];
  res.onData((chunk, last) => {
    chunks.push(Buffer.from(chunk.slice(0)));
    if (!last) return;
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (aborted) return;
    res.cork(() => {
      res.writeStatus('200 OK');
      for (const [k, v] of headers) res.writeHeader(k, v);
      res.writeHeader('x-request-id', randomUUID());
      res.end(body);
    });
  });
});
app.listen('127.0.0.1', Number(process.env.PORT ?? 0), (token) => {
  if (!token) {
    process.stderr.write('floor/uws: could not listen\n');
    process.exit(1);
  }
  process.stdout.write(`READY ${uws.us_socket_local_port(token)} ${body.length}\n`);
});
process.on('SIGTERM', () => process.exit(0));
