// Bundles the gateway with its libraries into one file, dist/gateway.mjs: `npm start` runs this
// first (a few seconds). One file instead of thousands of modules halves start-up (no module
// resolution, no per-file reads) (docs/benchmark.md, "Memory and start-up").
// Its options shared with other bundles: scripts/bundle-options.mjs. It also renders the playground's GraphiQL page into dist/playground/ (a small page and hashed, precompressed assets),
// so the running gateway never loads the renderer (see server/http/playground-page.ts).
import { build, version as esbuildVersion } from 'esbuild';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHash } from 'node:crypto';
import { toAsciiSource } from './ascii-source.mjs';
import { buildInputsHash } from './build-inputs.mjs';
import { banner, common, external } from './bundle-options.mjs';

// Nothing the bundle is built from changed since the last build (scripts/build-inputs.mjs): reuse it.
// BUILD_FORCE=1 builds anyway.
const STAMP = path.resolve('dist/.inputs-hash');
const OUTPUTS = ['dist/gateway.mjs', 'dist/admin.mjs', 'dist/scan-worker.mjs'];
const inputsHash = await buildInputsHash('.', esbuildVersion);
const built = await fs.readFile(STAMP, 'utf8').catch(() => '');
const present = (
  await Promise.all(
    OUTPUTS.map((f) =>
      fs.stat(f).then(
        () => true,
        () => false,
      ),
    ),
  )
).every(Boolean);
if (built === inputsHash && present && process.env.BUILD_FORCE !== '1') {
  console.error('build: dist/ is up to date (no source, .meshrc.yaml or lockfile changed); reusing it');
  process.exit(0);
}
await fs.rm(STAMP, { force: true });

// The feed-mapping block's JSON Schema compiled ahead of time (ajv's standalone code): the bundle
// gets it in place of transforms/mapping/block-validator.ts, and a start skips compiling it
// (docs/benchmark.md, "Memory and start-up").
const schemaModule = path.resolve('dist/.block-schema.mjs');
await build({ ...common, packages: 'external', entryPoints: ['transforms/mapping/block-schema.ts'], outfile: schemaModule });
const validatorCode = path.resolve('dist/.block-validator.mjs');
try {
  const { blockValidatorSource } = await import(pathToFileURL(schemaModule).href);
  await fs.writeFile(validatorCode, `${blockValidatorSource()}\nexport const precompiledBlockValidator = validate;\n`);
} finally {
  await fs.rm(schemaModule, { force: true });
}
const precompiledValidator = {
  name: 'precompiled-block-validator',
  setup(b) {
    b.onResolve({ filter: /\/block-validator\.js$/ }, () => ({ path: validatorCode }));
  },
};

// A CLI module runs itself when it is the process's entry (cli/usage.ts isEntryModule, by its file
// URL); in a bundle every module has the bundle's URL, so only the bundled command's own module may.
const entryCli = path.resolve('cli/keys.ts');
const onlyEntryCliRuns = {
  name: 'only-entry-cli-runs',
  setup(b) {
    b.onLoad({ filter: /[\\/]cli[\\/][^\\/]+\.ts$/ }, async (args) => {
      const text = await fs.readFile(args.path, 'utf8');
      return { contents: args.path === entryCli ? text : text.replaceAll('isEntryModule(import.meta.url)', 'false'), loader: 'ts' };
    });
  },
};

let bundled;
try {
  bundled = await build({
    ...common,
    plugins: [precompiledValidator, onlyEntryCliRuns],
    // The scan thread's code (stores/scan-thread.ts) is a file of its own beside the gateway's.
    // The keys command and the reference upstream too, for the container image (deploy/container),
    // which carries no sources.
    entryPoints: {
      gateway: 'start/main.ts',
      admin: 'start/admin-main.ts',
      'scan-worker': 'stores/scan-worker.ts',
      keys: 'cli/keys.ts',
      upstream: 'sources/reference-upstream/main.ts',
    },
    external,
    banner,
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    // Maps for debugging (`NODE_OPTIONS=--enable-source-maps`). Whitespace and comments go: V8 keeps
    // the whole text in each process's heap (docs/benchmark.md, "Memory and start-up"); names stay.
    sourcemap: true,
    sourcesContent: false,
    minifyWhitespace: true,
    // Kept in memory: the bundle is rewritten below before it is written once.
    write: false,
  });
} finally {
  await fs.rm(validatorCode, { force: true });
}
// One byte a character in V8's heap, not two (see scripts/ascii-source.mjs). An escape is longer
// than its character, so the map's columns after it on the same line are off by a few.
await fs.mkdir('dist', { recursive: true });
for (const out of bundled.outputFiles) {
  await fs.writeFile(out.path, out.path.endsWith('.mjs') ? toAsciiSource(out.text).text : out.contents);
}

const renderer = path.resolve('dist/.render-playground.mjs');
await build({ ...common, packages: 'external', entryPoints: ['server/http/playground-page.ts'], outfile: renderer });
try {
  const { renderPlaygroundPage, writePlaygroundDir, PLAYGROUND_DIR_NAME } = await import(pathToFileURL(renderer).href);
  const target = path.resolve('dist', PLAYGROUND_DIR_NAME);
  const html = await renderPlaygroundPage();
  // Skipped when the page did not change: brotli at its best level takes a while on the whole page.
  const stamp = path.join(target, '.source-hash');
  const hash = createHash('sha256')
    .update(html)
    .update(await fs.readFile('server/http/playground-page.ts'))
    .digest('hex');
  const current = await fs.readFile(stamp, 'utf8').catch(() => '');
  if (current !== hash) {
    await fs.rm(`${target}.tmp`, { recursive: true, force: true });
    await writePlaygroundDir(`${target}.tmp`, html, 11);
    await fs.writeFile(path.join(`${target}.tmp`, '.source-hash'), hash);
    await fs.rm(target, { recursive: true, force: true });
    await fs.rename(`${target}.tmp`, target);
  }
  await fs.rm(path.resolve('dist/playground.html'), { force: true });
} finally {
  await fs.rm(renderer, { force: true });
}
// Written last: an interrupted build leaves no stamp, so the next start builds again.
await fs.writeFile(STAMP, inputsHash);
