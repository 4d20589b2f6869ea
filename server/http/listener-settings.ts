// What each partner listener accepts, declared as the config it fills: the proxies whose forwarding
// header it believes, the browser origins it answers, the body size, and its connection budgets and
// timeouts (server/http/connections.ts), one value for the keyed listeners (production,
// certification) and one for the playground's.
import type { z } from 'zod';
import { kinds as k, setting, settingsSchema, type Computed, type Kind } from '../../lib/settings.js';
import { FORWARDED_HEADERS, trustProxyKind } from './client-ip.js';
import { corsOriginsKind } from './security-headers.js';

const MiB = 1024 * 1024;

/** One setting for each kind of listener, declared side by side: KEYED_<suffix> and PLAYGROUND_<suffix>. */
export function perListener<T, D extends T>(suffix: string, kind: Kind<T>, keyed: D | Computed<D>, playground: D, description: string) {
  return {
    keyed: setting(`KEYED_${suffix}`, kind, keyed, `${description} (production and certification listeners)`),
    playground: setting(`PLAYGROUND_${suffix}`, kind, playground, `${description} (playground listener)`, [
      'gateway',
      'playground process',
    ]),
  };
}

type Pair = { keyed: unknown; playground: unknown };

/** Pairs of perListener as two shapes: `{ field: { keyed, playground } }` as `{ keyed: { field }, playground: { field } }`. */
export function byListener<const P extends Record<string, Pair>>(
  pairs: P,
): { keyed: { [F in keyof P]: P[F]['keyed'] }; playground: { [F in keyof P]: P[F]['playground'] } } {
  const side = (which: keyof Pair) => Object.fromEntries(Object.entries(pairs).map(([field, pair]) => [field, pair[which]]));
  return { keyed: side('keyed'), playground: side('playground') } as never;
}

export const listenerSettings = settingsSchema({
  trustProxy: setting(
    'TRUST_PROXY',
    trustProxyKind,
    null,
    'hop count, or proxy addresses and CIDR ranges (comma-separated), whose forwarding header (TRUST_PROXY_HEADER) is believed; unset = none',
  ),
  trustProxyHeader: setting(
    'TRUST_PROXY_HEADER',
    k.oneOf(FORWARDED_HEADERS),
    'x-forwarded-for',
    'the header the trusted proxies write the client address in: X-Forwarded-For, or RFC 7239 Forwarded (for=)',
  ),
  corsOrigins: setting(
    'CORS_ORIGINS',
    corsOriginsKind,
    null,
    'browser origins allowed on the keyed environments (* or a comma-separated list); unset = none',
  ),
  bodyLimitBytes: setting('BODY_LIMIT_BYTES', k.int(1024, 10 * MiB), 64 * 1024, 'request body limit (413 above)'),
  connections: byListener({
    /** Open sockets this listener accepts at once; over it, a new socket is closed at once. 0 = no cap. */
    maxConnections: perListener('MAX_CONNECTIONS', k.int(0, 1_000_000), 4096, 256, 'open sockets per listener (0 = no cap)'),
    // One address may hold an eighth of the keyed listener: a partner's client pool behind one NAT
    // address needs a few dozen keep-alive sockets, so 512 leaves room for several partners sharing a
    // NAT, while one flooding address cannot take the listener. Behind trusted proxies every socket
    // comes from a proxy address, so the cap would cap the load balancer: off unless set.
    /** Open sockets per peer address (the socket's, not X-Forwarded-For); 0 = no cap. */
    maxConnectionsPerIp: {
      keyed: setting(
        'KEYED_MAX_CONNECTIONS_PER_IP',
        k.int(0, 1_000_000),
        { text: '512 (0 when TRUST_PROXY trusts a proxy)', from: (v) => (v.TRUST_PROXY ? 0 : 512) },
        "open sockets per peer address on the production and certification listeners, the socket's, not X-Forwarded-For (0 = no cap)",
      ),
      playground: setting(
        'PLAYGROUND_MAX_CONNECTIONS_PER_IP',
        k.int(0, 1_000_000),
        32,
        "open sockets per peer address, the socket's, not X-Forwarded-For (0 = no cap; behind a load balancer cap there) (playground listener)",
        ['gateway', 'playground process'],
      ),
    },
    /** A socket must have sent complete request headers this long after it opened or its last request. */
    headersTimeoutMs: perListener(
      'HEADERS_TIMEOUT_MS',
      k.int(500, 600_000),
      10_000,
      5_000,
      'time to send complete headers (also a new, silent socket)',
    ),
    /** A whole request (headers and body) must arrive within this. */
    requestTimeoutMs: perListener(
      'REQUEST_TIMEOUT_MS',
      k.int(500, 3_600_000),
      30_000,
      15_000,
      'time to send a whole request (at least the headers timeout)',
    ),
    /** An idle keep-alive socket is closed after this. */
    keepAliveTimeoutMs: perListener(
      'KEEP_ALIVE_TIMEOUT_MS',
      k.int(100, 600_000),
      5_000,
      5_000,
      'idle keep-alive sockets are closed after this',
    ),
  }),
}).transform(({ trustProxy, trustProxyHeader, corsOrigins, connections, ...rest }) => ({
  trustProxy: trustProxy && { ...trustProxy, header: trustProxyHeader },
  corsOrigins: corsOrigins ?? new Set<string>(),
  ...rest,
  // node requires headersTimeout <= requestTimeout.
  connections: {
    keyed: { ...connections.keyed, requestTimeoutMs: Math.max(connections.keyed.headersTimeoutMs, connections.keyed.requestTimeoutMs) },
    playground: {
      ...connections.playground,
      requestTimeoutMs: Math.max(connections.playground.headersTimeoutMs, connections.playground.requestTimeoutMs),
    },
  },
}));

export type ListenerSettings = z.output<typeof listenerSettings>;
/** Connection budgets and timeouts of one listener. */
export type ConnectionLimits = ListenerSettings['connections']['keyed'];
