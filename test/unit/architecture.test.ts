// The layers' arrows point one way: lib <- domain <- feeds <- api <- server <- cli. A folder never
// imports from a folder above it, no two modules import each other in a cycle, and the reference
// upstream (a fixture) is reached only by `npm start`'s composition (server/launch.ts) and the
// feeds:check CLI, never by the gateway's assembly.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LAYERS = ['lib', 'domain', 'feeds', 'api', 'server', 'cli'] as const;
const FIXTURE = 'sources/reference-upstream';
const FIXTURE_USERS = new Set(['server/launch.ts', 'cli/feeds-check.ts']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|mts)$/.test(entry.name)) out.push(rel);
  }
  return out;
}

/** Relative imports of a module (static, re-exports and dynamic), resolved to repository paths. */
export function importsOf(file: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g)].map((m) => m[2]!);
  return specs.map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)).replace(/\.js$/, '.ts'));
}

const layerOf = (file: string) => LAYERS.findIndex((l) => file.startsWith(`${l}/`));

const files = LAYERS.flatMap((l) => sourceFiles(l));
const graph = new Map(files.map((f) => [f, importsOf(f, fs.readFileSync(path.join(ROOT, f), 'utf8'))]));

describe('layering', () => {
  it('finds the layers and their imports', () => {
    for (const l of LAYERS) expect(files.some((f) => f.startsWith(`${l}/`)), l).toBe(true);
    expect(graph.get('server/app.ts')!.length).toBeGreaterThan(5);
  });

  it('no import points to a layer above its own', () => {
    const wrong: string[] = [];
    for (const [file, deps] of graph) {
      for (const dep of deps) {
        const to = layerOf(dep);
        if (to > layerOf(file)) wrong.push(`${file} -> ${dep} (${LAYERS[layerOf(file)]} may not import ${LAYERS[to]})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the reference upstream is imported only by the start-up composition and feeds:check', () => {
    const users = [...graph].filter(([, deps]) => deps.some((d) => d.startsWith(FIXTURE))).map(([f]) => f);
    expect(users.filter((f) => !FIXTURE_USERS.has(f))).toEqual([]);
  });

  it('no module imports itself through a cycle', () => {
    // Tarjan's strongly connected components over the module graph.
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
    expect(cycles).toEqual([]);
  });

  it('the checker sees a wrong-way import and a cycle', () => {
    expect(importsOf('domain/x.ts', "import { a } from '../server/app.js';\nconst m = await import('./y.js');")).toEqual(['server/app.ts', 'domain/y.ts']);
    expect(layerOf('server/app.ts')).toBeGreaterThan(layerOf('domain/x.ts'));
  });
});
