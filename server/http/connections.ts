// Connection budgets and timeouts of one listener. Each environment has its own listener, so a
// budget spent on the playground (idle sockets, slow headers) leaves the keyed listeners their own
// file descriptors and sockets. Timeouts are swept every second (node's default sweep is 30 s, which
// let an idle socket outlive its timeout by up to that), so they are enforced within a second of expiry.
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { DefenceReport } from './defences.js';
import type { ConnectionLimits } from './listener-settings.js';

export type { ConnectionLimits };

const CONNECTION_SWEEP_MS = 1000;

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
 * How many sockets this process's listeners may hold unread at once: half of what the open-file
 * limit leaves after every listening listener's own cap (the sockets it admits), so that held and
 * admitted sockets together stay clear of the limit, with room for files, Redis and upstreams.
 */
export interface HoldBudget {
  held: number;
  /** Sum of the caps of the listeners listening now. */
  caps: number;
  max(): number;
}

const processHolds: HoldBudget = {
  held: 0,
  caps: 0,
  max: () => Math.max(0, Math.floor((openFilesLimit() - processHolds.caps) / 2)),
};

/**
 * Caps open sockets per peer address and per listener. A socket over its address's cap is never
 * served; a socket over the listener's cap waits for a place. Either is held unread, not closed at
 * once: an attacker that reconnects every closed socket (from one address or from many) would
 * otherwise make the listener accept and close tens of thousands a second, and that work shares the
 * cores with partners' requests. A held socket is let go between one and two headers timeouts after
 * it opened (as a silent admitted socket is), spread so that a flood opened at once is not let go,
 * and reconnected, at once. When it sends anything, a socket over its address's cap is closed at
 * once; one waiting for a place is served: it is admitted and the listener's oldest socket that has
 * not sent a complete request is closed (silent_shed), so a partner's new connection gets in while
 * the flood's own sockets make way, and a new connection is refused only when every open one has
 * sent a request. Sockets that never speak cost nothing more.
 *
 * Held sockets count against the process's hold budget (above). Past it, a socket over its
 * address's cap is closed at once, and one over the listener's cap is admitted, the oldest silent
 * socket shed to make room (oldest first: a silent-socket flood then evicts itself). Each refused
 * or shed socket is reported (per_ip_cap, silent_shed).
 */
export function capConnections(
  server: Server,
  limits: ConnectionLimits,
  report: DefenceReport = () => {},
  holds: HoldBudget = processHolds,
): void {
  // At most maxConnections entries, plus addresses with held sockets waiting: an address leaves when its last socket closes.
  const perIp = new Map<string, number>();
  // Admitted sockets that have not sent a complete request, in the order they connected (oldest first).
  const silent = new Map<string, Socket>();
  const held = heldSockets(holds, limits.headersTimeoutMs);
  const cap = limits.maxConnections || 4096;
  server.once('listening', () => {
    holds.caps += cap;
    server.once('close', () => (holds.caps -= cap));
  });
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
      if (
        !held.hold(
          socket,
          () => socket.destroy(),
          () => {},
        )
      )
        socket.destroy();
      report('per_ip_cap', ip, { maxConnectionsPerIp: limits.maxConnectionsPerIp });
      return;
    }
    perIp.set(ip, n);
    socket.once('close', () => {
      const left = (perIp.get(ip) ?? 1) - 1;
      if (left <= 0) perIp.delete(ip);
      else perIp.set(ip, left);
    });
    if (limits.maxConnections > 0 && open >= limits.maxConnections && held.hold(socket, () => admitSpeaking(socket), expired)) return;
    admit(socket);
  });
  // Complete request headers: the connection is in use (HTTP/1.1 over TCP or TLS, and HTTP/2 streams).
  server.on('request', (req: { socket: { remoteAddress?: string; remotePort?: number } }) => {
    if (silent.size) silent.delete(connectionKey(req.socket));
  });

  /** A held socket that sent something gets a place; one that only closed its side is let go. */
  function admitSpeaking(socket: Socket): void {
    if (socket.readableLength > 0) admit(socket);
    else socket.destroy();
  }

  /** A socket that waited for a place and never spoke is shed like a silent admitted one. */
  function expired(socket: Socket): void {
    report('silent_shed', socket.remoteAddress, { maxConnections: limits.maxConnections });
  }

  /** Hands the socket to node:http (what it sent while held is still unread); over the cap, sheds the oldest silent one. */
  function admit(socket: Socket): void {
    open++;
    const key = connectionKey(socket);
    silent.set(key, socket);
    socket.once('close', () => {
      open--;
      if (silent.get(key) === socket) silent.delete(key);
    });
    for (const listener of serve) listener.call(server, socket);
    if (limits.maxConnections > 0 && open > limits.maxConnections) shed(open - limits.maxConnections);
  }

  /** Closes `count` never-requested sockets, oldest first (the newest, just admitted, last). */
  function shed(count: number): void {
    for (const [key, socket] of silent) {
      if (count-- <= 0) break;
      silent.delete(key);
      report('silent_shed', socket.remoteAddress, { maxConnections: limits.maxConnections });
      socket.destroy();
    }
  }
}

/** Sockets held unread until a deadline, closed by one sweep a second rather than a timer each. */
function heldSockets(holds: HoldBudget, holdMs: number) {
  const held = new Map<Socket, { deadline: number; expire: (socket: Socket) => void }>();
  let sweep: NodeJS.Timeout | undefined;
  const release = (socket: Socket) => {
    if (!held.delete(socket)) return;
    holds.held--;
    if (held.size || !sweep) return;
    clearInterval(sweep);
    sweep = undefined;
  };
  return {
    /**
     * Holds the socket until it sends something (then `onData`) or its deadline (then `expire`, and
     * it is closed); false when the budget is spent.
     */
    hold(socket: Socket, onData: () => void, expire: (socket: Socket) => void): boolean {
      if (holds.held >= holds.max()) return false;
      holds.held++;
      held.set(socket, { deadline: Date.now() + holdMs * (1 + Math.random()), expire });
      const onError = () => {};
      socket.on('error', onError);
      socket.once('readable', () => {
        // Still open: either closed at once or handed on with its data unread.
        release(socket);
        socket.off('error', onError);
        onData();
      });
      socket.once('close', () => release(socket));
      sweep ??= setInterval(() => {
        const now = Date.now();
        for (const [s, h] of held) {
          if (h.deadline > now) continue;
          h.expire(s);
          s.destroy();
        }
      }, CONNECTION_SWEEP_MS).unref();
      return true;
    },
    closeAll(): void {
      for (const s of [...held.keys()]) s.destroy();
    },
  };
}
