// What dist/ is built from, as one content hash: scripts/build.mjs skips the build when the hash of
// the last one matches (a restart then runs the bundle it has). Every source folder of the
// repository counts (so moving code between folders needs no change here), with .meshrc.yaml, the
// lockfile, package.json and the build scripts; tests, docs, the benchmark, examples and data do not.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Top-level folders that never reach the bundle. */
const SKIPPED = new Set(['node_modules', 'dist', 'data', 'coverage', 'test', 'docs', 'bench', 'examples', 'scripts', 'deploy']);
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|json|graphql|ya?ml|html|css)$/;
/** Files outside the source folders that do. */
const EXTRA = [
  '.meshrc.yaml',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'scripts/build.mjs',
  'scripts/build-inputs.mjs',
  'scripts/bundle-options.mjs',
  'scripts/ascii-source.mjs',
];

/** The files the build reads, relative to `root`, sorted. */
export async function buildInputs(root = '.') {
  const files = [];
  for (const top of await fs.readdir(root, { withFileTypes: true })) {
    if (!top.isDirectory() || top.name.startsWith('.') || SKIPPED.has(top.name)) continue;
    for (const rel of await fs.readdir(path.join(root, top.name), { recursive: true })) {
      const file = path.join(top.name, rel);
      if (SOURCE.test(file) && !file.split(path.sep).some((s) => s.startsWith('.') || s === 'node_modules')) files.push(file);
    }
  }
  for (const file of EXTRA) if (await fs.stat(path.join(root, file)).catch(() => null)) files.push(file);
  return files.sort();
}

/** sha256 over each input's path and content, and the Node and esbuild versions that build it. */
export async function buildInputsHash(root = '.', esbuildVersion = '') {
  const hash = createHash('sha256').update(`${process.version}\0${esbuildVersion}\0`);
  for (const file of await buildInputs(root)) {
    hash.update(`${file}\0`);
    hash.update(await fs.readFile(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}
