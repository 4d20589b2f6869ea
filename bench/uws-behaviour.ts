// What a uWebSockets.js listener (its npm build @trufflesuite/uws-js-unofficial) does with the
// requests our node:http listeners answer in a defined way: malformed HTTP, oversized headers,
// idle and half-sent sockets, and whether it offers a hook to cap connections. Run with
// `npx tsx bench/uws-behaviour.ts`; docs/benchmark.md reports the evaluation it was part of.
import { createRequire } from 'node:module';
import net from 'node:net';

type Uws = typeof import('@trufflesuite/uws-js-unofficial');
const uws = createRequire(import.meta.url)('@trufflesuite/uws-js-unofficial') as Uws;

const app = uws.App();
app.any('/*', (res) => {
  res.onAborted(() => {});
  res.end('{"ok":true}');
});
const port = await new Promise<number>((resolve, reject) => {
  app.listen('127.0.0.1', 0, (token) => (token ? resolve(uws.us_socket_local_port(token)) : reject(new Error('uWS could not listen'))));
});

/** Sends `text` on a new socket; what came back within `waitMs`, and when the server closed it (null: still open). */
function exchange(text: string, waitMs: number): Promise<{ answer: string; closedByServerAfterMs: number | null }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const t0 = Date.now();
    let answer = '';
    let closedByServerAfterMs: number | null = null;
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('end', () => (closedByServerAfterMs = Date.now() - t0));
    socket.on('error', () => {});
    socket.write(text);
    setTimeout(() => {
      socket.destroy();
      resolve({ answer: answer.split('\r\n')[0] ?? '', closedByServerAfterMs });
    }, waitMs);
  });
}

const checks: [string, string, number][] = [
  ['malformed request line', 'GARBAGE\r\n\r\n', 2000],
  ['invalid header name', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 2000],
  ['20 KB header (our bound: 16 KB, answered 431)', `GET / HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 2000],
  ['socket that sends nothing (our keyed headers timeout: 10 s, keep-alive 5 s)', '', 15_000],
  ['half-sent headers', 'GET / HTTP/1.1\r\nHost: x\r\n', 15_000],
];
console.log(
  `connection hook (filter) to cap sockets: ${typeof (app as unknown as { filter?: unknown }).filter === 'function' ? 'yes' : 'none'}`,
);
const results = await Promise.all(checks.map(async ([name, text, wait]) => [name, await exchange(text, wait)] as const));
for (const [name, r] of results)
  console.log(
    `${name}: ${r.answer ? JSON.stringify(r.answer) : 'no answer'}, ` +
      `${r.closedByServerAfterMs === null ? 'socket left open' : `closed by uWS after ${r.closedByServerAfterMs} ms`}`,
  );
const ok = await exchange('GET / HTTP/1.1\r\nHost: x\r\n\r\n', 500);
console.log(`a plain GET: ${JSON.stringify(ok.answer)} (uWS adds its own Date and "uWebSockets: 20" headers)`);
process.exit(0);
