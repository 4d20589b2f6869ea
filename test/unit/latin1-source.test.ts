import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import vm from 'node:vm';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { toLatin1Source } from '../../scripts/latin1-source.mjs';

const latin1 = (source: string): string => (toLatin1Source(source) as { text: string }).text;
const run = (source: string): unknown => vm.runInNewContext(source);

describe('bundle source in Latin-1 (one byte a character in V8)', () => {
  it('leaves Latin-1 text as it is', () => {
    const source = 'const a = /pok[eé]mon$/i; // Jimmy Wärting\n"° · ä"';
    expect(toLatin1Source(source)).toEqual({ text: source, escaped: 0 });
  });

  it('escapes what esbuild leaves: regular expressions, with and without the u flag, comments', () => {
    const source =
      'const r = /[‘“!^<>`\\n]/; const s = /^(\\d+)°\\s*(\\d+)[\'′]\\s*(\\d+)["″]$/; const e = /😀+/u; /* “quoted” */ [r.test("‘"), ' +
      'r.test("x"), s.test("12°34′56″"), e.test("😀😀"), "‘".length]';
    const { text, escaped } = toLatin1Source(source) as { text: string; escaped: number };
    expect(/[^\x00-\xff]/.test(text)).toBe(false);
    expect(escaped).toBe(source.match(/[^\x00-\xff]/g)!.length);
    expect(run(text)).toEqual(run(source));
    expect(run(text)).toEqual([true, false, true, true, 1]);
  });

  it('keeps the cooked text of tagged templates (the console tag and graphql-tag read those)', () => {
    const source = 'const tag = (s, ...v) => s.map((p, i) => p + (v[i] ?? "")).join(""); tag`← Newer ${1} · Older →`';
    expect(run(latin1(source))).toBe('← Newer 1 · Older →');
  });

  it('means the same for any string or regular expression text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const literal = JSON.stringify(s);
        expect(run(latin1(literal))).toBe(s);
        const pattern = s.replace(/[\\/^$.*+?()[\]{}|\n\r\u2028\u2029]/g, '\\$&');
        if (pattern.length > 0) {
          const source = `[/^${pattern}$/u.test(${literal}), /^${pattern}$/.test(${literal})]`;
          expect(run(latin1(source))).toEqual([true, true]);
        }
      }),
    );
  });
});
