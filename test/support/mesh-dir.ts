// A copy of the repo's .meshrc.yaml in a temporary folder (for MESH_DIR), every `./` path made
// absolute into the repo, optionally edited first: a gateway built from a changed configuration.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

type MeshConfig = { additionalTypeDefs: string; sources: any[]; [key: string]: unknown };

function absolute(v: unknown): unknown {
  const fix = (s: string) => (s.startsWith('./') ? path.join(ROOT, s) : s);
  if (typeof v === 'string') return fix(v);
  if (Array.isArray(v)) return v.map(absolute);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [fix(k), absolute(x)]));
  return v;
}

/** Writes the folder and returns it; `edit` gets the parsed config (absolute paths) and the folder. */
export function writeMeshDir(edit?: (config: MeshConfig, dir: string) => void): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-mesh-'));
  const config = absolute(yaml.load(fs.readFileSync(path.join(ROOT, '.meshrc.yaml'), 'utf8'))) as MeshConfig;
  edit?.(config, dir);
  fs.writeFileSync(path.join(dir, '.meshrc.yaml'), yaml.dump(config, { lineWidth: -1 }));
  return dir;
}
