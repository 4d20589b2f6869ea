// Connection budgets and timeouts of one listener. Each environment has its own listener, so a
// budget spent on the playground (idle sockets, slow headers) leaves the keyed listeners their own
// file descriptors and sockets. Timeouts are swept every second (node's default sweep is 30 s, which
// let an idle socket live ~40 s), so they are enforced within a second of expiry.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { SettingValues } from '../../lib/settings-table.js';

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

/** A listener's limits from the settings table: KEYED_* or PLAYGROUND_* (lib/settings-table.ts). */
export function connectionLimits(s: SettingValues, prefix: 'KEYED' | 'PLAYGROUND'): ConnectionLimits {
  const headersTimeoutMs = s[`${prefix}_HEADERS_TIMEOUT_MS`];
  return {
    maxConnections: s[`${prefix}_MAX_CONNECTIONS`],
    maxConnectionsPerIp: s[`${prefix}_MAX_CONNECTIONS_PER_IP`],
    headersTimeoutMs,
    // node requires headersTimeout <= requestTimeout.
    requestTimeoutMs: Math.max(headersTimeoutMs, s[`${prefix}_REQUEST_TIMEOUT_MS`]),
    keepAliveTimeoutMs: s[`${prefix}_KEEP_ALIVE_TIMEOUT_MS`],
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
