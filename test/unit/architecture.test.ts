// The design card's folders and their one-way arrows:
// lib <- domain <- sources (feed transport) <- transforms <- mesh <- resolvers <- cache <- stores
// <- server <- support <- start <- cli.
// A folder never imports from a folder above it, no modules import each other in a cycle, bench/
// and scripts/ may import any layer but never test/, and the reference upstream (a stand-in) is
// reached only by `npm start`'s composition (start/launch.ts), the feeds:check CLI and the
// harness that starts it for tests and the benchmark. support/ uses server/'s settings, helpers and
// process supervision; server/ never knows support/: the composition roots in start/ (main.ts,
// app.ts) start both, the admin listener in process or in a process of its own.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS } from '../support/layers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TOOLS = ['bench', 'scripts'] as const;
const FIXTURE = 'sources/reference-upstream';
const FIXTURE_USERS = new Set(['start/launch.ts', 'cli/feeds-check.ts']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Relative imports of a module (static, re-exports and dynamic), resolved to repository paths. */
export function importsOf(file: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g)].map((m) => m[2]!);
  return specs.map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)).replace(/\.js$/, '.ts'));
}

/** Packages a module imports at run time (type-only imports and node: built-ins left out), by package name. */
export function packagesOf(text: string): string[] {
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'".][^'"]*)\1/g)]
    .filter(
      (m) =>
        !/\bimport\s+type\b/.test(
          text
            .slice(Math.max(0, m.index - 200), m.index)
            .split('\n')
            .pop() ?? '',
        ),
    )
    .map((m) => m[2]!);
  const names = specs
    .filter((s) => !s.startsWith('node:') && /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/.*)?$/.test(s))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!));
  return [...new Set(names)];
}

/** The layer index of a file; the reference upstream is a stand-in, outside the layers. */
const layerOf = (file: string) => (file.startsWith(`${FIXTURE}/`) ? -1 : LAYERS.findIndex((l) => file.startsWith(`${l}/`)));

/** Strongly connected components of more than one module (Tarjan), each sorted. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) cycles.push(scc.sort());
    }
  };
  for (const f of graph.keys()) if (!idx.has(f)) visit(f);
  return cycles;
}

/** Imports that point the wrong way: to a higher layer, or from bench/ or scripts/ into test/. */
export function wrongImports(graph: Map<string, string[]>): string[] {
  const wrong: string[] = [];
  for (const [file, deps] of graph) {
    for (const dep of deps) {
      const tool = TOOLS.some((t) => file.startsWith(`${t}/`));
      if (tool && dep.startsWith('test/')) wrong.push(`${file} -> ${dep} (${file.split('/')[0]} may not import test)`);
      if (tool || layerOf(file) < 0) continue;
      const to = layerOf(dep);
      if (to > layerOf(file)) wrong.push(`${file} -> ${dep} (${LAYERS[layerOf(file)]} may not import ${LAYERS[to]})`);
    }
  }
  return wrong;
}

const files = [...LAYERS, ...TOOLS].flatMap((l) => sourceFiles(l));
const graph = new Map(files.map((f) => [f, importsOf(f, fs.readFileSync(path.join(ROOT, f), 'utf8'))]));

describe('layering', () => {
  it('finds every folder and its imports', () => {
    for (const l of [...LAYERS, ...TOOLS])
      expect(
        files.some((f) => f.startsWith(`${l}/`)),
        l,
      ).toBe(true);
    expect(graph.get('start/app.ts')!.length).toBeGreaterThan(5);
  });

  it('no import points to a layer above its own, and bench/ and scripts/ never import test/', () => {
    expect(wrongImports(graph)).toEqual([]);
  });

  it('the reference upstream is imported only by the start-up composition, feeds:check and the harness', () => {
    const users = [...graph].filter(([, deps]) => deps.some((d) => d.startsWith(FIXTURE))).map(([f]) => f);
    const allowed = (f: string) => FIXTURE_USERS.has(f) || f.startsWith(`${FIXTURE}/`) || TOOLS.some((t) => f.startsWith(`${t}/`));
    expect(users.filter((f) => !allowed(f))).toEqual([]);
  });

  it('runtime folders import only packages listed in dependencies (tests, bench and scripts may use devDependencies)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const wrong: string[] = [];
    for (const file of files.filter((f) => layerOf(f) >= 0)) {
      for (const spec of packagesOf(fs.readFileSync(path.join(ROOT, file), 'utf8'))) {
        if (!(spec in pkg.dependencies)) wrong.push(`${file} imports ${spec}, not in dependencies`);
      }
    }
    expect(wrong).toEqual([]);
    expect(
      packagesOf("import a from '@scope/pkg/sub';\nimport('node:fs');\nimport b from 'plain/x.js';\nimport type { T } from 'types-only';"),
    ).toEqual(['@scope/pkg', 'plain']);
  });

  it('no module imports itself through a cycle', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('the checker sees a wrong-way import, an import of test/ from a tool, and a cycle', () => {
    expect(importsOf('domain/x.ts', "import { a } from '../server/app.js';\nconst m = await import('./y.js');")).toEqual([
      'server/app.ts',
      'domain/y.ts',
    ]);
    const bad = new Map([
      ['domain/x.ts', ['server/app.ts']],
      ['bench/b.ts', ['test/support/t.ts']],
      ['transforms/t.ts', ['sources/upstream/fetch.ts']],
      ['start/app.ts', ['support/admin-endpoint.ts', 'server/http/server.ts']],
      ['server/app.ts', ['support/admin-endpoint.ts']],
      ['support/s.ts', ['start/app.ts']],
      ['mesh/m.ts', ['resolvers/index.ts']],
    ]);
    expect(wrongImports(bad)).toEqual([
      'domain/x.ts -> server/app.ts (domain may not import server)',
      'bench/b.ts -> test/support/t.ts (bench may not import test)',
      'server/app.ts -> support/admin-endpoint.ts (server may not import support)',
      'support/s.ts -> start/app.ts (support may not import start)',
      'mesh/m.ts -> resolvers/index.ts (mesh may not import resolvers)',
    ]);
    const cyclic = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cyclesOf(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(
      cyclesOf(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });
});
