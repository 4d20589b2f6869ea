// Query limits as a partner meets them: depth, aliases, root fields, tokens, upstream fan-out,
// read-only operations, free introspection.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildSchema } from 'graphql';
import { createPreparer } from '../../server/graphql/prepare.js';
import { DEFAULT_LIMITS } from '../../server/graphql/limits.js';

const schema = buildSchema(fs.readFileSync(new URL('../../schema/public.graphql', import.meta.url), 'utf8'));
const playground = createPreparer(schema, DEFAULT_LIMITS.playground, 2);
const keyed = createPreparer(schema, DEFAULT_LIMITS.keyed, 2);

function errorsOf(prepare: typeof playground, query: string) {
  const r = prepare(query, null);
  return r.ok ? [] : r.errors.map((e) => e.message);
}

describe('query limits', () => {
  it('accepts an ordinary plan query and marks what it selects', () => {
    const r = playground('{ residentialPlans(zipCode: "75001") { title rates { usageKwh } } }', null);
    expect(r.ok && r.op.rootFields).toEqual(['residentialPlans']);
    expect(r.ok && r.op.introspectionOnly).toBe(false);
  });

  it('treats introspection-only operations as free, fragments included', () => {
    const r = playground('query { ...F } fragment F on Query { __schema { queryType { name } } __typename }', null);
    expect(r.ok && r.op.introspectionOnly).toBe(true);
    const mixed = playground('query { ...F } fragment F on Query { __typename utilities(zipCode: "75001") { id } }', null);
    expect(mixed.ok && mixed.op.introspectionOnly).toBe(false);
  });

  it('limits aliases so one call cannot fan out', () => {
    const aliases = Array.from({ length: 8 }, (_, i) => `a${i}: utilities(zipCode: "7500${i}") { id }`).join(' ');
    expect(errorsOf(playground, `{ ${aliases} }`).join(' ')).toMatch(/alias|root fields|upstream/i);
  });

  it('limits root fields and upstream fan-out per operation', () => {
    const four =
      '{ utilities(zipCode: "75001") { id } b: utilities(zipCode: "75002") { id } c: utilities(zipCode: "75003") { id } d: utilities(zipCode: ' +
      '"75004") { id } }';
    expect(errorsOf(playground, four).join(' ')).toMatch(/root fields|alias/);
    const plans =
      '{ a: residentialPlans(zipCode: "75001") { id } b: residentialPlans(zipCode: "75002") { id } c: residentialPlans(zipCode: "75003") { id } }';
    expect(errorsOf(playground, plans).join(' ')).toMatch(/upstream calls/);
    expect(errorsOf(keyed, plans)).toEqual([]);
  });

  it('limits depth', () => {
    const deep = `{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } }`;
    expect(errorsOf(playground, `{ residentialPlans(zipCode: "75001") { fees { usageCredits { minKwh } } } }`)).toEqual([]);
    // Introspection depth is not counted (GraphiQL's own query is deep), other depth is.
    expect(errorsOf(playground, deep)).toEqual([]);
  });

  it('limits tokens before validation', () => {
    const huge = `{ utilities(zipCode: "75001") { ${'id '.repeat(2000)} } }`;
    expect(errorsOf(playground, huge).join(' ')).toMatch(/token/i);
  });

  it('rejects mutations and subscriptions on a read-only API', () => {
    expect(errorsOf(keyed, 'mutation { utilities(zipCode: "75001") { id } }').join(' ')).toMatch(/read-only/);
    expect(errorsOf(keyed, 'subscription { utilities(zipCode: "75001") { id } }').join(' ')).toMatch(/read-only/);
  });

  it('asks for an operation name when a document has several', () => {
    expect(errorsOf(keyed, 'query A { __typename } query B { __typename }').join(' ')).toMatch(/operation name/);
    const r = keyed('query A { __typename } query B { utilities(zipCode: "75001") { id } }', 'B');
    expect(r.ok && r.op.rootFields).toEqual(['utilities']);
  });

  it('reports parse errors with a code', () => {
    const r = keyed('{ utilities(zipCode: "75001" { id } }', null);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });
});

describe('memory held for client documents', () => {
  const spread = (n: number) => `{ ${'...A '.repeat(480)} } fragment A on Query { __typename } #${n}`;

  it('keeps the parsed-document cache within its byte budget, however many distinct documents arrive', () => {
    const budget = 2 * 1024 * 1024;
    const prepare = createPreparer(schema, { ...DEFAULT_LIMITS.playground, documentCacheBytes: budget }, 2);
    for (let n = 0; n < 40; n++) expect(prepare(spread(n), null).ok).toBe(true);
    expect(prepare.cachedBytes()).toBeGreaterThan(budget / 2);
    expect(prepare.cachedBytes()).toBeLessThanOrEqual(budget);
  });

  it('counts a document by its tokens, not only its text: ~1,000 tokens weigh ~300 KB', () => {
    const prepare = createPreparer(schema, DEFAULT_LIMITS.playground, 2);
    prepare(spread(0), null);
    expect(prepare.cachedBytes()).toBeGreaterThan(250_000);
  });

  it('refuses text over maxQueryBytes before parsing, counting bytes not characters, at the exact bound', () => {
    const limits = { ...DEFAULT_LIMITS.playground, maxQueryBytes: 1000 };
    const prepare = createPreparer(schema, limits, 2);
    const pad = (bytes: number, ch = 'x') => `{ __typename }\n#${ch.repeat(bytes)}`;
    expect(prepare(pad(1000 - 16), null).ok).toBe(true);
    const held = prepare.cachedBytes();
    const over = prepare(pad(1000 - 15), null);
    expect(!over.ok && over.errors[0]!.message).toBe('Query text is 1001 bytes; at most 1000 are allowed.');
    // 'é' is two bytes in UTF-8: 400 characters of it are 800 bytes.
    const multibyte = prepare(pad(500, 'é'), null);
    expect(!multibyte.ok && multibyte.errors[0]!.extensions.code).toBe('QUERY_TOO_COMPLEX');
    // Refused text is not kept.
    expect(prepare.cachedBytes()).toBe(held);
  });

  it('a cached validation error keeps its locations but not the document (attack 2: invalid 1,000-token queries)', () => {
    const prepare = createPreparer(schema, DEFAULT_LIMITS.playground, 2);
    const invalid = `{ ${'nope '.repeat(900)} }`;
    const first = prepare(invalid, null);
    const again = prepare(invalid, null);
    for (const r of [first, again]) {
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.errors.flatMap((e) => e.toJSON().locations ?? []).length).toBeGreaterThan(0);
      // No AST node, hence no token list, stays reachable from the cache.
      expect(r.errors.every((e) => e.nodes === undefined)).toBe(true);
    }
  });

  it('a cache budget of 0 keeps nothing and still answers', () => {
    const prepare = createPreparer(schema, { ...DEFAULT_LIMITS.playground, documentCacheBytes: 0 }, 2);
    expect(prepare('{ __typename }', null).ok).toBe(true);
    expect(prepare.cachedBytes()).toBe(0);
  });
});
