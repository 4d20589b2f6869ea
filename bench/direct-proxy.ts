// Benchmark scenario 4: the upstream calls the gateway makes for keyed residentialPlans, made
// directly, without the gateway: per request, territories for the ZIP, then the two supplier feeds
// in parallel (the same shape as the resolver: it reads the territory before fanning out to the
// offers feeds), each body read and JSON-parsed, with undici fetch on a keep-alive Agent configured
// like the gateway's (64 connections). Answers a small JSON summary. The difference to the gateway
// uncached figure is what the gateway itself costs (GraphQL, Mesh, mapping, pricing, plugins).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { withoutTrailing } from '../lib/trailing.js';

const upstream = withoutTrailing(process.env.UPSTREAM_URL ?? 'http://127.0.0.1:4010', '/');
const zip = process.env.ZIP ?? '75001';
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64, pipelining: 1 });
const get = async (url: string) => {
  const res = await fetch(url, { dispatcher: agent });
  const json = JSON.parse(await res.text());
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return json;
};
const territories = `${upstream}/territories/v1/zip/${zip}`;
const voltify = `${upstream}/voltify/api/v2/offers?zip=${zip}&class=residential`;
const brightgrid = `${upstream}/brightgrid/v1/plans/${zip}?segment=RES`;

const server = http.createServer((req, res) => {
  req.resume();
  (async () => {
    const t = await get(territories);
    const [v, b] = await Promise.all([get(voltify), get(brightgrid)]);
    return JSON.stringify({
      utilities: t.utilities?.length ?? 0,
      voltify: v.offers?.length ?? 0,
      brightgrid: Array.isArray(b) ? b.length : Object.keys(b).length,
    });
  })().then(
    (text) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    },
    (err: Error) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(err.message);
    },
  );
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`READY ${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
