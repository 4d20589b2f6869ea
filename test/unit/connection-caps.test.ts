// The per-address cap holds the sockets over it unread instead of closing them at once, so a flood
// that reconnects every closed socket cannot turn the cap into tens of thousands of accepts and
// closes a second; a held socket that sends anything is closed at once and never served.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { capConnections, type ConnectionLimits } from '../../server/http/connections.js';
import { startSocketFlood, type SocketFlood } from '../../scripts/harness/socket-flood.js';
import { eventually } from '../../scripts/harness/eventually.js';

const LIMITS: ConnectionLimits = {
  maxConnections: 4096,
  maxConnectionsPerIp: 8,
  headersTimeoutMs: 1000,
  requestTimeoutMs: 5000,
  keepAliveTimeoutMs: 5000,
};

let server: http.Server | undefined;
let flood: SocketFlood | undefined;
afterEach(async () => {
  flood?.stop();
  flood = undefined;
  if (server?.listening) await new Promise((r) => server!.close(r));
  server = undefined;
});

async function cappedServer(limits: ConnectionLimits) {
  let served = 0;
  const refusals: string[] = [];
  server = http.createServer({ headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: 1000 }, (_req, res) => {
    served++;
    res.end('ok');
  });
  capConnections(server, limits, (reason) => refusals.push(reason));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, served: () => served, refusals };
}

/** A socket from 127.0.0.3; what the server sent before it closed, and whether it did. */
function connect(port: number) {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.3' });
  let answer = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (d) => (answer += d));
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  const connected = new Promise<void>((r) => socket.once('connect', () => r()));
  return { socket, connected, answer: () => answer, closed: () => closed };
}

describe('sockets over the per-address cap', () => {
  it('a reconnecting flood is held, not accepted and closed over and over, and let go within two headers timeouts', async () => {
    const s = await cappedServer(LIMITS);
    flood = startSocketFlood({ host: '127.0.0.1', port: s.port, count: 200, localAddress: '127.0.0.3', reconnectMs: 10 });
    // The client sees a socket connected before the server has accepted it: wait for both.
    await eventually(async () => flood!.open === 200 && s.refusals.length >= 192, 10_000, 50);
    const refusedAtOpen = s.refusals.length;
    expect(refusedAtOpen).toBe(192);
    // Closed at once, each of the 192 would have reconnected every ~10 ms: thousands of refusals by now.
    await new Promise((r) => setTimeout(r, 500));
    expect(flood.closedByServer).toBe(0);
    expect(s.refusals.length).toBe(refusedAtOpen);
    // Held at most two headers timeouts (and one sweep) after it opened, then closed like a silent admitted socket.
    await eventually(async () => flood!.closedByServer >= 192, 4000, 50);
    expect(s.refusals.every((r) => r === 'per_ip_cap')).toBe(true);
  }, 20_000);

  it('a held socket that sends a request is closed at once and never served', async () => {
    const s = await cappedServer(LIMITS);
    const admitted = Array.from({ length: 8 }, () => connect(s.port));
    await Promise.all(admitted.map((c) => c.connected));
    const over = connect(s.port);
    await over.connected;
    await eventually(async () => s.refusals.length === 1, 2000, 10);
    const sent = Date.now();
    over.socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    await eventually(async () => over.closed(), 2000, 10);
    expect(Date.now() - sent).toBeLessThan(LIMITS.headersTimeoutMs);
    expect(over.answer()).toBe('');
    expect(s.served()).toBe(0);
    // An admitted socket of the same address is served as before.
    admitted[0]!.socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    await eventually(async () => admitted[0]!.answer().includes('ok'), 2000, 10);
    for (const c of admitted) c.socket.destroy();
  });

  it('closing the server closes the held sockets at once', async () => {
    const s = await cappedServer({ ...LIMITS, headersTimeoutMs: 60_000 });
    const sockets = Array.from({ length: 12 }, () => connect(s.port));
    await Promise.all(sockets.map((c) => c.connected));
    await eventually(async () => s.refusals.length === 4, 2000, 10);
    for (const c of sockets.slice(0, 8)) c.socket.destroy();
    const started = Date.now();
    await new Promise((r) => server!.close(r));
    expect(Date.now() - started).toBeLessThan(2000);
    await eventually(async () => sockets.every((c) => c.closed()), 2000, 10);
  });

  it('past the listener cap, sockets over the per-address cap are closed at once instead of held', async () => {
    const s = await cappedServer({ ...LIMITS, maxConnections: 10, maxConnectionsPerIp: 2 });
    const sockets = Array.from({ length: 20 }, () => connect(s.port));
    await Promise.all(sockets.map((c) => c.connected));
    // 2 admitted, 10 held, 8 closed at once.
    await eventually(async () => sockets.filter((c) => c.closed()).length === 8, 2000, 10);
    await new Promise((r) => setTimeout(r, 200));
    expect(sockets.filter((c) => c.closed()).length).toBe(8);
    expect(s.refusals.length).toBe(18);
    for (const c of sockets) c.socket.destroy();
  });
});
