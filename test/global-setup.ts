// Before any test file: the bundles test/support/bundles.ts names, built once per change of their inputs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build, version as esbuildVersion } from 'esbuild';
// @ts-expect-error: build scripts in plain JavaScript, without type declarations
import { buildInputsHash } from '../scripts/build-inputs.mjs';
// @ts-expect-error: build scripts in plain JavaScript, without type declarations
import { banner, common, external } from '../scripts/bundle-options.mjs';
import { ROOT, TEST_CLIS, TEST_CLI_DIR } from './support/bundles.js';

export default async function setup(): Promise<void> {
  // What `npm start` runs first: it reuses dist/ when nothing it is built from changed.
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const stamp = path.join(TEST_CLI_DIR, '.inputs-hash');
  const hash: string = await buildInputsHash(ROOT, esbuildVersion);
  const present = TEST_CLIS.every((name) => fs.existsSync(path.join(TEST_CLI_DIR, `${name}.mjs`)));
  if (present && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === hash) return;
  fs.rmSync(TEST_CLI_DIR, { recursive: true, force: true });
  await build({
    ...common,
    external,
    banner,
    entryPoints: Object.fromEntries(TEST_CLIS.map((name) => [name, path.join(ROOT, 'cli', `${name}.ts`)])),
    outdir: TEST_CLI_DIR,
    outExtension: { '.js': '.mjs' },
  });
  fs.writeFileSync(stamp, hash);
}
