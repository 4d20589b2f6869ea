// scripts/ascii-source.mjs: the bundle written as pure ASCII, so Node 24 loads its text at one byte a
// character. Each escaped text must mean what it meant.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import vm from 'node:vm';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { toAsciiSource } from '../../scripts/ascii-source.mjs';

const ascii = (source: string): string => (toAsciiSource(source) as { text: string }).text;
const run = (source: string): unknown => vm.runInNewContext(source);

describe('bundle source in ASCII (one byte a character in V8)', () => {
  it('leaves ASCII text as it is', () => {
    const source = 'const a = /pok[e]mon$/i; // Jimmy Warting\n"deg . a"';
    expect(toAsciiSource(source)).toEqual({ text: source, escaped: 0 });
  });

  it('escapes Latin-1 letters too: Node 24 decodes any non-ASCII file to two bytes a character', () => {
    const source = 'const a = /pok[eé]mon$/i; // Jimmy Wärting\n[a.test("pokémon"), "° · ä"]';
    const { text, escaped } = toAsciiSource(source) as { text: string; escaped: number };
    expect(/[^\x00-\x7f]/.test(text)).toBe(false);
    expect(escaped).toBe(6);
    expect(run(text)).toEqual(run(source));
  });

  it('escapes what esbuild leaves: regular expressions, with and without the u flag, comments', () => {
    const source =
      'const r = /[‘“!^<>`\\n]/; const s = /^(\\d+)°\\s*(\\d+)[\'′]\\s*(\\d+)["″]$/; const e = /😀+/u; /* “quoted” */ [r.test("‘"), ' +
      'r.test("x"), s.test("12°34′56″"), e.test("😀😀"), "‘".length]';
    const { text, escaped } = toAsciiSource(source) as { text: string; escaped: number };
    expect(/[^\x00-\x7f]/.test(text)).toBe(false);
    expect(escaped).toBe(source.match(/[^\x00-\x7f]/g)!.length);
    expect(run(text)).toEqual(run(source));
    expect(run(text)).toEqual([true, false, true, true, 1]);
  });

  it('an identity escape (\\é) keeps its meaning; an escaped backslash before a letter stays a backslash', () => {
    const source = String.raw`[/^\é$/.test("é"), "\é", /^\\é$/.test("\\é"), "\\é"]`;
    const text = ascii(source);
    expect(/[^\x00-\x7f]/.test(text)).toBe(false);
    expect(run(text)).toEqual(run(source));
    expect(run(text)).toEqual([true, 'é', true, '\\é']);
  });

  it('reads a long run of backslashes once (a bundle is megabytes)', () => {
    const source = `"${'\\\\'.repeat(100_000)}é${'\\\\'.repeat(100_000)}"`;
    expect(run(ascii(source))).toBe(run(source));
  });

  it('keeps the cooked text of tagged templates (the console tag and graphql-tag read those)', () => {
    const source = 'const tag = (s, ...v) => s.map((p, i) => p + (v[i] ?? "")).join(""); tag`← Newer ${1} · Older →`';
    expect(run(ascii(source))).toBe('← Newer 1 · Older →');
  });

  it('means the same for any string or regular expression text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const literal = JSON.stringify(s);
        expect(run(ascii(literal))).toBe(s);
        const pattern = s.replace(/[\\/^$.*+?()[\]{}|\n\r\u2028\u2029]/g, '\\$&');
        if (pattern.length > 0) {
          const source = `[/^${pattern}$/u.test(${literal}), /^${pattern}$/.test(${literal})]`;
          expect(run(ascii(source))).toEqual([true, true]);
        }
      }),
    );
  });
});
