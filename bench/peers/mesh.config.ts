// Bench-only: the config `mesh-compose` reads (bench/peers/compose.ts runs it; by hand:
// `PEERS_UPSTREAM_URL=http://127.0.0.1:4010 npx mesh-compose -c bench/peers/mesh.config.ts`).
// The sources and what is left out of them: bench/peers/compose-config.ts.
import path from 'node:path';
import { peerComposeConfig } from './compose-config.js';

export const composeConfig = peerComposeConfig(
  path.resolve(import.meta.dirname, '../..'),
  process.env.PEERS_UPSTREAM_URL ?? 'http://127.0.0.1:4010',
);
