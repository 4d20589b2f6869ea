// `npm run schema:check` (cli/schema-check.ts): the committed snapshots are the served schema, and a
// removed field fails the check as a breaking change until the snapshot is updated with it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaCheck, SNAPSHOT_DIR } from '../../cli/schema-check.js';
import { ROOT, writeMeshDir } from '../support/mesh-dir.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function capture() {
  const lines: string[] = [];
  return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) } };
}

/** The repo's config with `Supplier.name` removed from the public schema. */
function withoutSupplierName(): string {
  const dir = writeMeshDir((config, d) => {
    const sdl = fs.readFileSync(path.join(ROOT, 'schema/public.graphql'), 'utf8');
    const cut = sdl.replace(
      /\n {2}"Supplier's display name\."\n {2}name: String!/,
      '\n  "Supplier\'s display name."\n  displayName: String',
    );
    expect(cut).not.toBe(sdl);
    fs.writeFileSync(path.join(d, 'public.graphql'), cut);
    config.additionalTypeDefs = path.join(d, 'public.graphql');
  });
  dirs.push(dir);
  return dir;
}

describe('schema:check', () => {
  it('passes: the committed snapshots are the schema the gateway serves', async () => {
    const { lines, io } = capture();
    const code = await schemaCheck({ meshDir: ROOT }, io);
    expect(lines).toEqual(['keyed: matches the snapshot', 'playground: matches the snapshot']);
    expect(code).toBe(0);
  });

  it('fails on a removed field, naming it as breaking, until the snapshot is updated', async () => {
    const meshDir = withoutSupplierName();
    const snapshots = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-snap-'));
    dirs.push(snapshots);
    for (const f of fs.readdirSync(SNAPSHOT_DIR)) fs.copyFileSync(path.join(SNAPSHOT_DIR, f), path.join(snapshots, f));

    const before = capture();
    expect(await schemaCheck({ meshDir, snapshotDir: snapshots }, before.io)).toBe(1);
    expect(before.lines).toContain("keyed: BREAKING Field 'name' was removed from object type 'Supplier'");
    expect(before.lines).toContain("playground: BREAKING Field 'name' was removed from object type 'Supplier'");
    expect(before.lines.some((l) => /safe Field 'displayName' was added to object type 'Supplier'/.test(l))).toBe(true);
    expect(before.lines.some((l) => /Deprecate first/.test(l) && /CHANGELOG\.md/.test(l))).toBe(true);

    const update = capture();
    expect(await schemaCheck({ meshDir, snapshotDir: snapshots, update: true }, update.io)).toBe(0);
    const after = capture();
    expect(await schemaCheck({ meshDir, snapshotDir: snapshots }, after.io)).toBe(0);
  });

  it('fails with a clear message when a snapshot is missing or not a schema', async () => {
    const snapshots = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-snap-'));
    dirs.push(snapshots);
    fs.writeFileSync(path.join(snapshots, 'keyed.graphql'), 'type Query { broken');
    const { lines, io } = capture();
    expect(await schemaCheck({ meshDir: ROOT, snapshotDir: snapshots }, io)).toBe(1);
    expect(lines.some((l) => /^keyed: the snapshot .* is not a valid schema/.test(l))).toBe(true);
    expect(lines.some((l) => /^playground: no snapshot at .*npm run schema:check -- --update/.test(l))).toBe(true);
  });
});
