// The isolation scenario's playground flood (bench/run.ts), a process of its own so that bench/run.ts
// can give the load generator the playground process's lower priority: in production the flood's
// generator runs on the attacker's machine, not on the gateway's cores. One client (one
// X-Forwarded-For), CONNECTIONS connections, each request a distinct ~1,000-token free document.
//
// Environment: URL, CONNECTIONS, DURATION (s), CLIENT_IP. Prints `RESULT {autocannon result}` at the end.
import autocannon from 'autocannon';
import { spreadDocument } from './spread-document.js';

const headers = { 'content-type': 'application/json', 'x-forwarded-for': process.env.CLIENT_IP ?? '203.0.113.7' };
const url = process.env.URL ?? 'http://127.0.0.1:4002/graphql';
let n = 0;
const result = await autocannon({
  url,
  connections: Number(process.env.CONNECTIONS ?? 16),
  duration: Number(process.env.DURATION ?? 10),
  timeout: 10,
  requests: [
    { method: 'POST', path: new URL(url).pathname, headers, setupRequest: (req) => ({ ...req, headers, body: spreadDocument(n++) }) },
  ],
});
// What bench/run.ts reads of it, on one short line.
const { requests, latency, throughput, errors, timeouts, non2xx, statusCodeStats, duration } = result;
process.stdout.write(`RESULT ${JSON.stringify({ requests, latency, throughput, errors, timeouts, non2xx, statusCodeStats, duration })}\n`);
