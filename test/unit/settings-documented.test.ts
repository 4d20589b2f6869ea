// Every environment setting the gateway reads is in docs/operations.md, where an operator looks
// for it: a setting added without its line there fails here. Settings of the keyed and playground
// listeners may be documented once as `*_NAME`.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FOLDERS = ['lib', 'domain', 'sources/upstream', 'transforms', 'resolvers', 'cache', 'server'];
/** Set by the gateway itself for its playground process, not by an operator. */
const INTERNAL = new Set(['PLAYGROUND_CHILD_NICE']);

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sources(rel);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Names read through the config readers (`int('NAME', …)` and the like) or straight from an env object. */
export function settingsReadIn(text: string): string[] {
  const readers = [...text.matchAll(/\b(?:int|bool|bytes|port|duration|url|str|list|num|oneOf|parsed)\(\s*'([A-Z][A-Z0-9_]{2,})'/g)].map(
    (m) => m[1]!,
  );
  const direct = [...text.matchAll(/\benv(?:\.|\[')([A-Z][A-Z0-9_]{2,})/g)].map((m) => m[1]!);
  return [...readers, ...direct];
}

describe('settings are documented', () => {
  const names = [...new Set(FOLDERS.flatMap(sources).flatMap((f) => settingsReadIn(fs.readFileSync(path.join(ROOT, f), 'utf8'))))]
    .filter((n) => !INTERNAL.has(n))
    .sort();
  const doc = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
  const documented = (name: string) =>
    doc.includes(name) || doc.includes(`*_${name.replace(/^(KEYED|PLAYGROUND|PRODUCTION|CERTIFICATION)_/, '')}`);

  it('finds the settings (the scan itself works)', () => {
    expect(names.length).toBeGreaterThan(60);
    expect(names).toEqual(expect.arrayContaining(['REDIS_URL', 'CACHE_COALESCE', 'REPLAY_FLUSH_MS', 'KEYED_MAX_DEPTH']));
  });

  it('names each one in docs/operations.md', () => {
    expect(names.filter((n) => !documented(n))).toEqual([]);
  });
});
