// Every environment setting is declared once (lib/settings-table.ts) and everything derives from the
// declaration: a setting read anywhere in the gateway's code but not declared fails here, as does a
// settings table in docs/operations.md that is not the one the declarations render.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS, SETTING_FAMILIES } from '../../lib/settings-table.js';
import { settingsDocSection, SETTINGS_DOC } from '../../lib/settings-docs.js';
import { readSettings, kinds, setting, settingsMarkdown } from '../../lib/settings.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FOLDERS = ['lib', 'domain', 'sources/upstream', 'transforms', 'mesh', 'resolvers', 'cache', 'stores', 'server', 'support', 'cli'];

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sources(rel);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Names read straight from an environment object, or through a table reader of the earlier style (`int('NAME', …)`). */
export function settingsReadIn(text: string): string[] {
  const readers = [...text.matchAll(/\b(?:int|bool|bytes|port|duration|url|str|list|num|oneOf|parsed)\(\s*'([A-Z][A-Z0-9_]{2,})'/g)].map(
    (m) => m[1]!,
  );
  const direct = [...text.matchAll(/\benv(?:\.|\[')([A-Z][A-Z0-9_]{2,})/g)].map((m) => m[1]!);
  const values = [...text.matchAll(/\bs\.([A-Z][A-Z0-9_]{2,})\b/g)].map((m) => m[1]!);
  return [...readers, ...direct, ...values];
}

const declared = (name: string) => name in SETTINGS || SETTING_FAMILIES.some((f) => f.pattern.test(name));

describe('settings: declared once, documented from the declaration', () => {
  const names = [...new Set(FOLDERS.flatMap(sources).flatMap((f) => settingsReadIn(fs.readFileSync(path.join(ROOT, f), 'utf8'))))].sort();

  it('finds the settings the code reads (the scan itself works)', () => {
    expect(names.length).toBeGreaterThan(60);
    expect(names).toEqual(expect.arrayContaining(['REDIS_URL', 'CACHE_COALESCE', 'REPLAY_FLUSH_MS', 'LOG_LEVEL']));
    expect(settingsReadIn("const a = env.FOO_BAR; int('BAZ_QUX', 1, 0, 2); s.QUUX_X")).toEqual(['BAZ_QUX', 'FOO_BAR', 'QUUX_X']);
  });

  it('every setting the code reads is declared in lib/settings-table.ts', () => {
    expect(names.filter((n) => !declared(n))).toEqual([]);
  });

  it(`${SETTINGS_DOC} holds the table the declarations render (npm run docs:settings)`, () => {
    const page = fs.readFileSync(path.join(ROOT, SETTINGS_DOC), 'utf8');
    expect(settingsDocSection(page) === page, 'run npm run docs:settings').toBe(true);
    for (const name of Object.keys(SETTINGS)) expect(page).toContain(`\`${name}\``);
  });

  it('a bad value names its variable and what it accepts; a secret is never echoed; defaults may follow earlier settings', () => {
    const table = {
      A_PORT: setting(kinds.port(), 4000, 'a port'),
      A_SIZE: setting(kinds.bytes(1024), 1024 * 1024, 'a size'),
      A_HALF: setting(kinds.bytes(1024), { text: 'A_SIZE / 2', from: (v: Record<string, unknown>) => (v.A_SIZE as number) / 2 }, 'half'),
      A_KEY: setting(kinds.secret(24), null, 'a key'),
      A_TIME: setting(kinds.duration(1000, 86_400_000), 60_000, 'a time'),
      A_LEVEL: setting(kinds.oneOf(['low', 'high'] as const), 'low', 'a level'),
    };
    const problems: string[] = [];
    const v = readSettings(table, { A_PORT: '70000', A_SIZE: '2MiB', A_KEY: 'hunter2', A_TIME: '2d', A_LEVEL: ' high ' }, problems);
    expect(problems).toEqual([
      'A_PORT must be a port number 0-65535, got "70000"',
      'A_KEY must be at least 24 characters',
      'A_TIME must be a duration like 30m, 12h or 7d from 1s to 1d, got "2d"',
    ]);
    expect(v).toEqual({ A_PORT: 4000, A_SIZE: 2 * 1024 * 1024, A_HALF: 1024 * 1024, A_KEY: null, A_TIME: 60_000, A_LEVEL: 'high' });
    expect(settingsMarkdown(table)).toContain('| `A_HALF` | size ≥ 1 KiB | A_SIZE / 2 | gateway | half |');
  });
});
