// CLI entry: npm run upstream (UPSTREAM_PORT, UPSTREAM_HOST).

import { startReferenceUpstream } from './server.js';

const port = Number(process.env.UPSTREAM_PORT ?? 4010);
const host = process.env.UPSTREAM_HOST ?? '127.0.0.1';
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`UPSTREAM_PORT must be a port number, got '${process.env.UPSTREAM_PORT}'`);
  process.exit(2);
}

const upstream = await startReferenceUpstream({ port, host });
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
