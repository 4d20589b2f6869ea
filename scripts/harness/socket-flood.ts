// Holds `count` silent TCP sockets open to a listener from one local address, reconnecting each one
// that the server closes (an idle-socket flood, as an attacker runs it). Used by tests and the bench.
import net from 'node:net';

export interface SocketFlood {
  /** Sockets open right now. */
  readonly open: number;
  /** Sockets the server closed (or refused) so far. */
  readonly closedByServer: number;
  stop(): void;
}

interface SocketFloodOptions {
  host: string;
  port: number;
  count: number;
  /** The source address (another loopback address, e.g. 127.0.0.3, stands for another client). */
  localAddress?: string;
  /** Wait before reconnecting a closed socket (keeps a test's own CPU use bounded). */
  reconnectMs?: number;
}

export function startSocketFlood(opts: SocketFloodOptions): SocketFlood {
  let open = 0;
  let closedByServer = 0;
  let stopped = false;
  const sockets = new Set<net.Socket>();
  const connect = () => {
    if (stopped) return;
    const socket = net.connect({ host: opts.host, port: opts.port, localAddress: opts.localAddress });
    sockets.add(socket);
    let connected = false;
    socket.once('connect', () => {
      connected = true;
      open++;
    });
    socket.on('error', () => {});
    socket.once('close', () => {
      sockets.delete(socket);
      if (connected) open--;
      if (stopped) return;
      closedByServer++;
      setTimeout(connect, opts.reconnectMs ?? 10).unref();
    });
  };
  // Opened 100 at a time: a burst larger than the listen backlog leaves sockets that the client sees
  // connected but the server has not accepted yet, which would hide what the server holds.
  let started = 0;
  const ramp = () => {
    for (let i = 0; i < 100 && started < opts.count; i++, started++) connect();
    if (started < opts.count && !stopped) setTimeout(ramp, 20).unref();
  };
  ramp();
  return {
    get open() {
      return open;
    },
    get closedByServer() {
      return closedByServer;
    },
    stop() {
      stopped = true;
      for (const s of sockets) s.destroy();
    },
  };
}
