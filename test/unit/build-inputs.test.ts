// `npm start` builds only what changed: the hash scripts/build.mjs compares with the last build's
// moves with a source, .meshrc.yaml, the lockfile or the build script, and not with tests, docs or data.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { buildInputs, buildInputsHash } from '../../scripts/build-inputs.mjs';

let root: string;
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
};

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-inputs-'));
  write('start/main.ts', 'export {};\n');
  write('transforms/mapping/units.ts', 'export const a = 1;\n');
  write('schema/public.graphql', 'type Query { a: Int }\n');
  write('.meshrc.yaml', 'sources: []\n');
  write('package-lock.json', '{}\n');
  write('scripts/build.mjs', '// build\n');
  write('test/unit/a.test.ts', 'x\n');
  write('docs/a.md', 'x\n');
  write('data/replay.jsonl', 'x\n');
  write('dist/gateway.mjs', 'x\n');
  write('node_modules/x/index.js', 'x\n');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('build inputs', () => {
  it('lists the source folders, .meshrc.yaml, the lockfile and the build script; not tests, docs, data, dist or node_modules', async () => {
    expect(await buildInputs(root)).toEqual(
      [
        '.meshrc.yaml',
        'package-lock.json',
        'schema/public.graphql',
        'scripts/build.mjs',
        'start/main.ts',
        path.join('transforms', 'mapping', 'units.ts'),
      ].sort(),
    );
  });

  it('a second build with unchanged inputs has the same hash; a changed source, config, lockfile or build script another', async () => {
    const first = await buildInputsHash(root, '0.28.2');
    write('test/unit/a.test.ts', 'changed\n');
    write('docs/a.md', 'changed\n');
    write('data/replay.jsonl', 'changed\n');
    expect(await buildInputsHash(root, '0.28.2')).toBe(first);
    const seen = new Set([first]);
    for (const [file, text] of [
      ['transforms/mapping/units.ts', 'export const a = 2;\n'],
      ['.meshrc.yaml', 'sources: [] # edited\n'],
      ['package-lock.json', '{ }\n'],
      ['scripts/build.mjs', '// build 2\n'],
      ['support/new-folder.ts', 'export {};\n'],
    ] as const) {
      write(file, text);
      const h = await buildInputsHash(root, '0.28.2');
      expect(seen.has(h), file).toBe(false);
      seen.add(h);
    }
    // Another esbuild builds another bundle.
    expect(await buildInputsHash(root, '0.29.0')).not.toBe(await buildInputsHash(root, '0.28.2'));
  });
});
