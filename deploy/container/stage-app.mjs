// Copies what the bundle needs at run time into one folder, the image's /app: dist/ (from
// `npm run build`), the feeds' configuration and contracts, the public schema, and the packages the
// bundle leaves external with their dependencies. Nothing else of the checkout (sources, tests,
// dev dependencies) goes into the image.
// Usage: node deploy/container/stage-app.mjs <target folder>
import fs from 'node:fs';
import path from 'node:path';

const target = process.argv[2];
if (!target) {
  console.error('usage: node deploy/container/stage-app.mjs <target folder>');
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const copy = (rel) => fs.cpSync(path.join(root, rel), path.join(target, rel), { recursive: true });

if (!fs.existsSync(path.join(root, 'dist', 'gateway.mjs'))) {
  console.error('dist/gateway.mjs is missing: run `npm run build` first');
  process.exit(1);
}
fs.rmSync(target, { recursive: true, force: true });
fs.mkdirSync(target, { recursive: true });
// The bundle finds its project root (schema/public.graphql) by the nearest package.json.
fs.writeFileSync(
  path.join(target, 'package.json'),
  `${JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: 'module' }, null, 2)}\n`,
);
copy('dist');
for (const f of ['.meshrc.yaml', 'cache.config.yaml', 'schema/public.graphql']) copy(f);
// Feed contracts (.meshrc.yaml names them relative to its folder) and their samples (feeds:check).
for (const dir of fs.readdirSync(path.join(root, 'sources'), { withFileTypes: true })) {
  if (!dir.isDirectory() || dir.name === 'reference-upstream') continue;
  for (const f of fs.readdirSync(path.join(root, 'sources', dir.name))) {
    if (/\.(json|ya?ml)$/.test(f)) copy(path.join('sources', dir.name, f));
  }
}

// Packages the bundle imports by name, found in its text, and what they depend on.
const BUILD_ONLY = new Set(['@graphql-yoga/render-graphiql']);
const runtime = new Set(Object.keys(pkg.dependencies ?? {}));
const wanted = new Set();
for (const f of fs.readdirSync(path.join(root, 'dist')).filter((n) => n.endsWith('.mjs'))) {
  const text = fs.readFileSync(path.join(root, 'dist', f), 'latin1');
  // esbuild writes its own imports with double quotes; code generators' text inside the bundle
  // uses single quotes or backticks.
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*(?:\(\s*)?"([^"./][^"]*)"/g)) {
    const spec = m[1];
    if (spec.startsWith('node:')) continue;
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    // Dev-only externals (typescript: an optional loader the gateway never calls) stay out, and so
    // does the playground page's renderer: the page is prebuilt in dist/playground.
    if (runtime.has(name) && !BUILD_ONLY.has(name)) wanted.add(name);
  }
}
const staged = new Set();
const stage = (name) => {
  if (staged.has(name)) return;
  const dir = path.join('node_modules', name);
  if (!fs.existsSync(path.join(root, dir, 'package.json'))) return; // an optional dependency not installed
  staged.add(name);
  copy(dir);
  const meta = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
  for (const dep of Object.keys({ ...meta.dependencies, ...meta.optionalDependencies })) stage(dep);
};
for (const name of wanted) stage(name);
console.log(`staged ${target}: dist, configuration, ${staged.size} package(s): ${[...staged].sort().join(' ')}`);
