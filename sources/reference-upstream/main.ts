// CLI entry: npm run upstream (UPSTREAM_PORT, else PORT_BASE + 10; UPSTREAM_HOST).

import { startReferenceUpstream } from './server.js';
import { defaultPort, explainListenError } from '../../lib/ports.js';

const port = Number(process.env.UPSTREAM_PORT?.trim() || defaultPort('UPSTREAM_PORT', process.env));
const host = process.env.UPSTREAM_HOST ?? '127.0.0.1';
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`UPSTREAM_PORT must be a port number, got '${process.env.UPSTREAM_PORT}'`);
  process.exit(2);
}

const upstream = await startReferenceUpstream({ port, host }).catch((err: unknown) => {
  console.error(`reference upstream: ${(explainListenError(err, 'UPSTREAM_PORT', host, port) as Error).message}`);
  process.exit(1);
});
console.log(`reference upstream listening on ${upstream.url}`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    upstream.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('reference upstream failed to close', err);
        process.exit(1);
      },
    );
  });
}
