// Every environment setting is declared once, by its concern (gathered in cli/settings-registry.ts),
// and everything derives from the declaration: a setting read anywhere in the gateway's code but not
// declared fails here, as does a settings table in docs/operations.md that is not the one the
// declarations render.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_SETTINGS, isSetting, settingsDocSection, SETTINGS_DOC } from '../../cli/settings-registry.js';
import { kinds, readSettings, setting, settingsMarkdown, settingsOf, settingsSchema } from '../../lib/settings.js';
import { LAYERS } from '../support/layers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
// The gateway's own code: of sources/, the feed transport (the feed folders hold mappings, and the
// reference upstream is a stand-in with settings of its own).
const FOLDERS = LAYERS.map((l) => (l === 'sources' ? 'sources/upstream' : l));

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

describe('settings: declared once, documented from the declaration', () => {
  const names = [...new Set(FOLDERS.flatMap(sources).flatMap((f) => settingsReadIn(fs.readFileSync(path.join(ROOT, f), 'utf8'))))].sort();

  it('finds the settings the code reads (the scan itself works)', () => {
    // Settings are read through their concern's schema; these few are also read straight from an environment.
    expect(names).toEqual(expect.arrayContaining(['LOG_LEVEL', 'MESH_DIR', 'UPSTREAM_URL', 'PORT_BASE']));
    expect(settingsReadIn("const a = env.FOO_BAR; int('BAZ_QUX', 1, 0, 2); s.QUUX_X")).toEqual(['BAZ_QUX', 'FOO_BAR', 'QUUX_X']);
  });

  it('every setting the code reads is declared by a concern, and none twice', () => {
    expect(names.filter((n) => !isSetting(n))).toEqual([]);
    const all = ALL_SETTINGS.map((s) => s.name);
    expect(all.filter((n, i) => all.indexOf(n) !== i)).toEqual([]);
  });

  it(`${SETTINGS_DOC} holds the table the declarations render (npm run docs:settings)`, () => {
    const page = fs.readFileSync(path.join(ROOT, SETTINGS_DOC), 'utf8');
    expect(settingsDocSection(page) === page, 'run npm run docs:settings').toBe(true);
    for (const { name } of ALL_SETTINGS) expect(page).toContain(`\`${name}\``);
  });

  it('a bad value names its variable and what it accepts; a secret is never echoed; defaults may follow earlier settings', () => {
    const schema = settingsSchema({
      port: setting('A_PORT', kinds.port(), 4000, 'a port'),
      sizes: {
        whole: setting('A_SIZE', kinds.bytes(1024), 1024 * 1024, 'a size'),
        half: setting('A_HALF', kinds.bytes(1024), { text: 'A_SIZE / 2', from: (v) => (v.A_SIZE as number) / 2 }, 'half'),
      },
      key: setting('A_KEY', kinds.secret(24), null, 'a key'),
      time: setting('A_TIME', kinds.duration(1000, 86_400_000), 60_000, 'a time'),
      level: setting('A_LEVEL', kinds.oneOf(['low', 'high'] as const), 'low', 'a level'),
    });
    const problems: string[] = [];
    const read = readSettings(schema, { A_PORT: '70000', A_SIZE: '2MiB', A_KEY: 'hunter2', A_TIME: '2d', A_LEVEL: ' high ' }, problems);
    expect(problems).toEqual([
      'A_PORT must be a port number 0-65535, got "70000"',
      'A_KEY must be at least 24 characters',
      'A_TIME must be a duration like 30m, 12h or 7d from 1s to 1d, got "2d"',
    ]);
    // A wrong value reads as its default; the output is the shape declared, typed from it.
    expect(read).toEqual({ port: 4000, sizes: { whole: 2 * 1024 * 1024, half: 1024 * 1024 }, key: null, time: 60_000, level: 'high' });
    const none: string[] = [];
    const v = readSettings(schema, { A_SIZE: '4MiB', OTHER: 'x' }, none);
    const typed: { port: number; sizes: { whole: number; half: number }; key: string | null; level: 'low' | 'high' } | null = v;
    expect(typed).toEqual({ port: 4000, sizes: { whole: 4 * 1024 * 1024, half: 2 * 1024 * 1024 }, key: null, time: 60_000, level: 'low' });
    expect(none).toEqual([]);
    expect(settingsOf(schema).map((s) => s.name)).toEqual(['A_PORT', 'A_SIZE', 'A_HALF', 'A_KEY', 'A_TIME', 'A_LEVEL']);
    expect(settingsMarkdown(settingsOf(schema))).toContain('| `A_HALF` | size ≥ 1 KiB | A_SIZE / 2 | gateway | half |');
  });

  it('checks across settings still run when another value is wrong, that value read as its default', () => {
    const schema = settingsSchema({
      low: setting('A_LOW', kinds.int(0, 100), 10, 'low'),
      high: setting('A_HIGH', kinds.int(0, 100), 50, 'high'),
      port: setting('A_PORT', kinds.port(), 4000, 'a port'),
    }).check((ctx) => {
      if (ctx.value.low > ctx.value.high) ctx.issues.push({ code: 'custom', message: 'A_LOW must not exceed A_HIGH', input: ctx.value });
    });
    const problems: string[] = [];
    expect(readSettings(schema, { A_LOW: '60', A_PORT: 'x' }, problems)).toBeNull();
    expect(problems).toEqual(['A_PORT must be a port number 0-65535, got "x"', 'A_LOW must not exceed A_HIGH']);
    expect(settingsOf(schema).map((s) => s.name)).toEqual(['A_LOW', 'A_HIGH', 'A_PORT']);
  });

  it('a setting declared twice in one schema is refused when declared', () => {
    expect(() => settingsSchema({ a: setting('A_X', kinds.bool(), true, 'a'), b: setting('A_X', kinds.bool(), true, 'b') })).toThrow(/A_X/);
  });
});
