// Connection budgets and timeouts of one listener. Each environment has its own listener, so a
// budget spent on the playground (idle sockets, slow headers) leaves the keyed listeners their own
// file descriptors and sockets. Timeouts are swept every second (node's default sweep is 30 s, which
// let an idle socket live ~40 s), so they are enforced within a second of expiry.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Open sockets this listener accepts at once; over it, a new socket is closed at once. 0 = no cap. */
  maxConnections: number;
  /** Open sockets per peer address (the socket's, not X-Forwarded-For); 0 = no cap. */
  maxConnectionsPerIp: number;
  /** A socket must have sent complete request headers this long after it opened or its last request. */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must arrive within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive socket is closed after this. */
  keepAliveTimeoutMs: number;
}

export const CONNECTION_SWEEP_MS = 1000;

export const DEFAULT_CONNECTION_LIMITS: Record<'keyed' | 'playground', ConnectionLimits> = {
  // Partners arrive through NATs and load balancers: no per-address cap by default.
  keyed: { maxConnections: 4096, maxConnectionsPerIp: 0, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 },
  // A browser opens at most six connections per host, GraphiQL needs one or two; scripts get 32.
  playground: {
    maxConnections: 256,
    maxConnectionsPerIp: 32,
    headersTimeoutMs: 5_000,
    requestTimeoutMs: 15_000,
    keepAliveTimeoutMs: 5_000,
  },
};

type IntReader = (name: string, fallback: number, min: number, max: number) => number;

/** <PREFIX>_MAX_CONNECTIONS, _MAX_CONNECTIONS_PER_IP, _HEADERS_TIMEOUT_MS, _REQUEST_TIMEOUT_MS, _KEEP_ALIVE_TIMEOUT_MS. */
export function connectionLimits(prefix: 'KEYED' | 'PLAYGROUND', d: ConnectionLimits, int: IntReader): ConnectionLimits {
  const headersTimeoutMs = int(`${prefix}_HEADERS_TIMEOUT_MS`, d.headersTimeoutMs, 500, 600_000);
  return {
    maxConnections: int(`${prefix}_MAX_CONNECTIONS`, d.maxConnections, 0, 1_000_000),
    maxConnectionsPerIp: int(`${prefix}_MAX_CONNECTIONS_PER_IP`, d.maxConnectionsPerIp, 0, 1_000_000),
    headersTimeoutMs,
    // node requires headersTimeout <= requestTimeout.
    requestTimeoutMs: Math.max(headersTimeoutMs, int(`${prefix}_REQUEST_TIMEOUT_MS`, d.requestTimeoutMs, 500, 3_600_000)),
    keepAliveTimeoutMs: int(`${prefix}_KEEP_ALIVE_TIMEOUT_MS`, d.keepAliveTimeoutMs, 100, 600_000),
  };
}

/** The options node:http takes at creation (timeouts and their sweep). */
export function serverTimeouts(limits: ConnectionLimits) {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: CONNECTION_SWEEP_MS,
  };
}

/** Caps open sockets per listener and per peer address. */
export function capConnections(server: Server, limits: ConnectionLimits): void {
  // node closes a socket over maxConnections before it is handed to the HTTP layer.
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
  if (limits.maxConnectionsPerIp <= 0) return;
  // At most maxConnections entries: an address leaves when its last socket closes.
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress ?? 'unknown';
    const n = (open.get(ip) ?? 0) + 1;
    if (n > limits.maxConnectionsPerIp) {
      socket.destroy();
      return;
    }
    open.set(ip, n);
    socket.once('close', () => {
      const left = (open.get(ip) ?? 1) - 1;
      if (left <= 0) open.delete(ip);
      else open.set(ip, left);
    });
  });
}
