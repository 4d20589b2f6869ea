// Connection budgets and timeouts of one listener. Each environment has its own listener, so a
// budget spent on the playground (idle sockets, slow headers) leaves the keyed listeners their own
// file descriptors and sockets. Timeouts are swept every second (node's default sweep is 30 s, which
// let an idle socket live ~40 s), so they are enforced within a second of expiry.
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { SettingValues } from '../../lib/settings-table.js';
import type { DefenceReport } from './defences.js';

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

let filesLimit: number | undefined;

/**
 * The soft limit on open files (node raises it to the hard limit at start), from /proc, read once a
 * process (every listener, rerun servers included, asks); 65,536 where unreadable.
 */
function openFilesLimit(): number {
  if (filesLimit !== undefined) return filesLimit;
  filesLimit = 65_536;
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    if (line) filesLimit = line[1] === 'unlimited' ? Infinity : Number(line[1]);
  } catch {
    // Not Linux: assume a server's usual limit.
  }
  return filesLimit;
}

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

/** The key of a connection that both its TCP socket and (over TLS) the socket a request reports share. */
function connectionKey(socket: { remoteAddress?: string; remotePort?: number }): string {
  return `${socket.remoteAddress ?? 'unknown'}|${socket.remotePort ?? 0}`;
}

/**
 * Caps open sockets per peer address and per listener. At the listener's cap, sockets that have not
 * sent a complete request yet are shed first, oldest first (a silent-socket flood then evicts
 * itself), so sockets that carry requests, such as partners' keep-alive connections, stay open and
 * a new connection is refused only when every open one has sent a request. Each refused or shed
 * socket is reported (per_ip_cap, silent_shed).
 *
 * A socket over its address's cap is never served. It is held unread, not closed at once: an
 * attacker that reconnects every closed socket would otherwise make the listener accept and close
 * tens of thousands a second, and that work shares the cores with partners' requests. A held socket
 * is closed the moment it sends anything (a client that does send a request is refused as promptly
 * as before) and otherwise between one and two headers timeouts after it opened, spread so that a
 * flood opened at once is not let go, and reconnected, at once. At most `maxConnections` (4096 when
 * uncapped) and a quarter of the process's open-file limit are held per listener; past that a
 * socket over the cap is closed at once.
 */
export function capConnections(server: Server, limits: ConnectionLimits, report: DefenceReport = () => {}): void {
  // At most maxConnections entries: an address leaves when its last socket closes.
  const perIp = new Map<string, number>();
  // Sockets that have not sent a complete request, in the order they connected (oldest first).
  const silent = new Map<string, Socket>();
  const held = heldSockets(Math.min(limits.maxConnections || 4096, Math.floor(openFilesLimit() / 4)), limits.headersTimeoutMs);
  // Held sockets are never served, so nothing of theirs is drained: closing the server closes them.
  const close = server.close.bind(server);
  server.close = ((cb?: (err?: Error) => void) => {
    held.closeAll();
    return close(cb);
  }) as Server['close'];
  let open = 0;
  // node:http's own connection listener (or TLS's, or HTTP/2's) runs only for the sockets admitted here.
  const serve = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress ?? 'unknown';
    const n = (perIp.get(ip) ?? 0) + 1;
    if (limits.maxConnectionsPerIp > 0 && n > limits.maxConnectionsPerIp) {
      if (!held.hold(socket)) socket.destroy();
      report('per_ip_cap', ip, { maxConnectionsPerIp: limits.maxConnectionsPerIp });
      return;
    }
    perIp.set(ip, n);
    open++;
    const key = connectionKey(socket);
    silent.set(key, socket);
    socket.once('close', () => {
      open--;
      if (silent.get(key) === socket) silent.delete(key);
      const left = (perIp.get(ip) ?? 1) - 1;
      if (left <= 0) perIp.delete(ip);
      else perIp.set(ip, left);
    });
    for (const listener of serve) listener.call(server, socket);
    if (limits.maxConnections > 0 && open > limits.maxConnections) shed(open - limits.maxConnections);
  });
  // Complete request headers: the connection is in use (HTTP/1.1 over TCP or TLS, and HTTP/2 streams).
  server.on('request', (req: { socket: { remoteAddress?: string; remotePort?: number } }) => {
    if (silent.size) silent.delete(connectionKey(req.socket));
  });

  /** Closes `count` never-requested sockets, oldest first (the newest, just accepted, last). */
  function shed(count: number): void {
    for (const [key, socket] of silent) {
      if (count-- <= 0) break;
      silent.delete(key);
      report('silent_shed', socket.remoteAddress, { maxConnections: limits.maxConnections });
      socket.destroy();
    }
  }
}

/** Refused sockets held unread until a deadline, closed by one sweep a second rather than a timer each. */
function heldSockets(max: number, holdMs: number) {
  const held = new Map<Socket, number>();
  let sweep: NodeJS.Timeout | undefined;
  const release = (socket: Socket) => {
    held.delete(socket);
    if (held.size || !sweep) return;
    clearInterval(sweep);
    sweep = undefined;
  };
  return {
    /** Holds the socket; false when `max` are held already (the caller closes it). */
    hold(socket: Socket): boolean {
      if (held.size >= max) return false;
      held.set(socket, Date.now() + holdMs * (1 + Math.random()));
      socket.on('error', () => {});
      // Anything it sends ends it: a held socket is never read, so its data would only pile up.
      socket.once('readable', () => socket.destroy());
      socket.once('close', () => release(socket));
      sweep ??= setInterval(() => {
        const now = Date.now();
        for (const [s, deadline] of held) if (deadline <= now) s.destroy();
      }, CONNECTION_SWEEP_MS).unref();
      return true;
    },
    closeAll(): void {
      for (const s of [...held.keys()]) s.destroy();
    },
  };
}
