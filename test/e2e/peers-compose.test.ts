// The `peers` bench scenario's Hive Gateway supergraph (bench/peers/): `mesh-compose` composes it from
// the project's feeds without the network, and the query the scenario sends is valid against it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import yaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { MESH_QUERY } from '../../bench/mesh-start/query.js';
import { peerComposeConfig } from '../../bench/peers/compose-config.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'peers-compose-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// Port 9 (discard): nothing listens there, so a compose that fetched anything would fail.
const UPSTREAM = 'http://127.0.0.1:9';

function compose(): { code: number | null; stderr: string; sdl: string } {
  const out = path.join(tmp, 'supergraph.graphql');
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'node_modules/.bin/mesh-compose', '-c', 'bench/peers/mesh.config.ts', '-o', out],
    {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PEERS_UPSTREAM_URL: UPSTREAM },
    },
  );
  return { code: r.status, stderr: r.stderr, sdl: fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '' };
}

describe('peers scenario: the Hive Gateway supergraph', () => {
  const sources = (yaml.load(fs.readFileSync(path.join(ROOT, '.meshrc.yaml'), 'utf8')) as { sources: { name: string }[] }).sources.map(
    (s) => s.name,
  );

  it('composes every feed of .meshrc.yaml over the given upstream, and the scenario query is valid against it', () => {
    const { code, stderr, sdl } = compose();
    expect(code, stderr).toBe(0);
    const graphs = [...sdl.matchAll(/@join__graph\(name: "([^"]+)"/g)].map((m) => m[1]);
    expect(graphs.sort()).toEqual([...sources].sort());
    const locations = [...sdl.matchAll(/location: "([^"]+)"/g)].map((m) => m[1]!);
    expect(locations.length).toBeGreaterThanOrEqual(sources.length);
    for (const l of locations) expect(l.startsWith(UPSTREAM)).toBe(true);
    // No template the gateway fills per request is left for Hive to interpolate (EIA's key).
    expect(sdl).not.toContain('context.');
    const schema = buildSchema(sdl, { assumeValidSDL: true });
    expect(validate(schema, parse(MESH_QUERY))).toEqual([]);
  });

  it('refuses a source it has no loader for, naming it', () => {
    const root = fs.mkdtempSync(path.join(tmp, 'project-'));
    const meshrc = { sources: [{ name: 'Legacy', handler: { graphql: { endpoint: 'http://legacy.invalid/graphql' } } }] };
    fs.writeFileSync(path.join(root, '.meshrc.yaml'), yaml.dump(meshrc));
    expect(() => peerComposeConfig(root, UPSTREAM)).toThrow('source Legacy: no omnigraph loader for the graphql handler');
  });
});
