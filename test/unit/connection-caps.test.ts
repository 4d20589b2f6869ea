// The per-address cap holds the sockets over it unread instead of closing them at once, so a flood
// that reconnects every closed socket cannot turn the cap into tens of thousands of accepts and
// closes a second; a held socket that sends anything is closed at once and never served.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { capConnections, type ConnectionLimits, type HoldBudget } from '../../server/http/connections.js';
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

async function cappedServer(limits: ConnectionLimits, holds?: HoldBudget) {
  let served = 0;
  const refusals: string[] = [];
  server = http.createServer({ headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: 1000 }, (_req, res) => {
    served++;
    res.end('ok');
  });
  capConnections(server, limits, (reason) => refusals.push(reason), holds);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, served: () => served, refusals };
}

/** A socket from 127.0.0.3 (or `from`); what the server sent before it closed, and whether it did. */
function connect(port: number, from = '127.0.0.3') {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
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

  it('past the hold budget, sockets over the per-address cap are closed at once instead of held', async () => {
    const s = await cappedServer({ ...LIMITS, maxConnections: 10, maxConnectionsPerIp: 2 }, { held: 0, caps: 0, max: () => 10 });
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

// 50 addresses each under the per-address cap take the listener to its cap: the sockets over it
// wait for a place unread instead of each shedding an older one (which the flood reconnects at once).
describe('sockets over the listener cap, from many addresses', () => {
  const MANY: ConnectionLimits = { ...LIMITS, maxConnections: 50, maxConnectionsPerIp: 8 };
  const from = (i: number) => `127.0.0.${10 + (i % 50)}`;

  it('a many-address reconnecting flood is held, not accepted and closed over and over', async () => {
    const s = await cappedServer(MANY);
    // 50 addresses, 4 sockets each (under the cap of 8): 200 sockets, 150 over the listener's cap.
    const floods = Array.from({ length: 50 }, (_, i) =>
      startSocketFlood({ host: '127.0.0.1', port: s.port, count: 4, localAddress: from(i), reconnectMs: 10 }),
    );
    flood = { open: 0, closedByServer: 0, stop: () => floods.forEach((f) => f.stop()) };
    const closed = () => floods.reduce((n, f) => n + f.closedByServer, 0);
    await eventually(async () => floods.every((f) => f.open === 4), 10_000, 50);
    await new Promise((r) => setTimeout(r, 500));
    // Shed at once, each of the 150 would have come back every ~10 ms: thousands closed by now.
    expect(closed()).toBe(0);
    expect(s.refusals).toEqual([]);
    // Let go within two headers timeouts (and a sweep), each counted as shed.
    await eventually(async () => closed() >= 150, 4000, 50);
    expect(s.refusals.length).toBeGreaterThanOrEqual(150);
    expect(s.refusals.every((r) => r === 'silent_shed')).toBe(true);
  }, 20_000);

  it('a held socket that sends a request is served, and the oldest silent socket makes way', async () => {
    const s = await cappedServer(MANY);
    const silent = Array.from({ length: 50 }, (_, i) => connect(s.port, from(i)));
    await Promise.all(silent.map((c) => c.connected));
    await new Promise((r) => setTimeout(r, 100));
    const partner = connect(s.port, '127.0.0.2');
    await partner.connected;
    await new Promise((r) => setTimeout(r, 100));
    expect(silent.some((c) => c.closed())).toBe(false);
    partner.socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    await eventually(async () => partner.answer().includes('ok'), 2000, 10);
    expect(s.served()).toBe(1);
    await eventually(async () => silent[0]!.closed(), 2000, 10);
    expect(silent.slice(1).some((c) => c.closed())).toBe(false);
    expect(s.refusals).toEqual(['silent_shed']);
    for (const c of [...silent, partner]) c.socket.destroy();
  });

  it('past the hold budget, the oldest never-requested sockets are shed first', async () => {
    const s = await cappedServer(MANY, { held: 0, caps: 0, max: () => 5 });
    const sockets: ReturnType<typeof connect>[] = [];
    for (let i = 0; i < 60; i++) {
      sockets.push(connect(s.port, from(i)));
      await sockets[i]!.connected;
    }
    // 50 admitted, 5 held, and each of the 5 after them sheds the oldest admitted silent socket.
    await eventually(async () => sockets.filter((c) => c.closed()).length === 5, 2000, 10);
    expect(sockets.slice(0, 5).every((c) => c.closed())).toBe(true);
    expect(s.refusals).toEqual(Array(5).fill('silent_shed'));
    for (const c of sockets) c.socket.destroy();
  });
});
