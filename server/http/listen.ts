// Starts a node:http server on host:port (0 = a free port) and says where it can be reached.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { explainListenError } from '../../lib/ports.js';

interface Listening {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * `variable`: the setting that moves this port, named when the port is taken. `exclusive`: in a
 * cluster worker, a port of this process alone (a private listener), not one shared with the other
 * workers through the primary.
 */
export async function listen(server: Server, port: number, host: string, variable?: string, exclusive = false): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(explainListenError(err, variable, host, port)));
    server.listen({ port, host, exclusive }, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `${server instanceof tls.Server ? 'https' : 'http'}://${shown}:${actual}`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
