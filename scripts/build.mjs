// Bundles our TypeScript (not node_modules) into dist/ so the gateway starts without transpiling
// on every start: `npm start` runs this first; it takes about a second. It also renders the
// playground's GraphiQL page into dist/playground.html, so the running gateway never loads the
// renderer (see gateway/http/playground-page.ts).
import { build } from 'esbuild';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const common = { bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', logLevel: 'warning' };

await build({
  ...common,
  entryPoints: { gateway: 'gateway/main.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  // Maps for debugging (`NODE_OPTIONS=--enable-source-maps`); the bundle itself is not minified.
  sourcemap: true,
});

const renderer = path.resolve('dist/.render-playground.mjs');
await build({ ...common, entryPoints: ['gateway/http/playground-page.ts'], outfile: renderer });
try {
  const { renderPlaygroundPage, PLAYGROUND_FILE_NAME } = await import(pathToFileURL(renderer).href);
  const target = path.resolve('dist', PLAYGROUND_FILE_NAME);
  await fs.writeFile(`${target}.tmp`, await renderPlaygroundPage());
  await fs.rename(`${target}.tmp`, target);
} finally {
  await fs.rm(renderer, { force: true });
}
