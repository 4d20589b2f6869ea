// Bundles our TypeScript (not node_modules) into dist/ so the gateway starts without transpiling
// on every start: `npm start` runs this first; it takes well under a second.
import { build } from 'esbuild';

await build({
  entryPoints: { gateway: 'gateway/main.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
