import { describe, expect, it } from 'vitest';
import { parseGraphQLBody } from '../../server/http/request-body.js';

const JSON_TYPE = 'application/json';
const body = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
const status = (r: ReturnType<typeof parseGraphQLBody>) => ('status' in r ? r.status : 'ok');

describe('parseGraphQLBody', () => {
  it('returns the same frozen object for a repeated body, so no request can change another one', () => {
    const raw = body({ query: 'query Q($z: String!) { residentialPlans(zipCode: $z) { title } }', variables: { z: '75001', nested: { a: [1] } } });
    const a = parseGraphQLBody(JSON_TYPE, raw);
    const b = parseGraphQLBody(JSON_TYPE, Buffer.from(raw));
    expect(b).toBe(a);
    if ('status' in a) throw new Error('expected a body');
    expect(Object.isFrozen(a.variables)).toBe(true);
    expect(() => {
      (a.variables as Record<string, unknown>).z = '10001';
    }).toThrow(TypeError);
    expect(() => {
      ((a.variables as { nested: { a: number[] } }).nested.a).push(2);
    }).toThrow(TypeError);
  });

  it('tells different bodies apart, even when they differ only in variables or whitespace', () => {
    const one = parseGraphQLBody(JSON_TYPE, body({ query: '{ utilities(zipCode: "75001") { id } }', variables: { x: 1 } }));
    const two = parseGraphQLBody(JSON_TYPE, body({ query: '{ utilities(zipCode: "75001") { id } }', variables: { x: 2 } }));
    expect(one).not.toBe(two);
    expect((two as unknown as { variables: { x: number } }).variables.x).toBe(2);
  });

  it('checks the content type before any memo: a known body with the wrong type is still refused', () => {
    const raw = body({ query: '{ __typename }' });
    expect(status(parseGraphQLBody(JSON_TYPE, raw))).toBe('ok');
    expect(status(parseGraphQLBody('text/plain', raw))).toBe(400);
    expect(status(parseGraphQLBody(undefined, raw))).toBe(400);
  });

  it('refuses malformed, hostile and boundary bodies every time they are sent', () => {
    const bad = ['', '{', 'null', '[]', '[{"query":"{ a }"}]', '"x"', '{"query":""}', '{"query":"  "}', '{"query":1}', '{"query":"{ a }","variables":[]}',
      '{"query":"{ a }","variables":"x"}', '{"query":"{ a }","operationName":1}', '{"query":"{ a }","extensions":[]}', '\u0000', '{"query":"{ a }"'.repeat(300)];
    for (const text of bad) {
      expect(status(parseGraphQLBody(JSON_TYPE, body(text))), text).toBe(400);
      expect(status(parseGraphQLBody(JSON_TYPE, body(text))), text).toBe(400);
    }
  });

  it('parses bodies larger than the memo keeps, each time afresh', () => {
    const big = body({ query: `{ __typename }${' '.repeat(5000)}`, variables: { a: 1 } });
    const a = parseGraphQLBody(JSON_TYPE, big);
    const b = parseGraphQLBody(JSON_TYPE, big);
    expect(status(a)).toBe('ok');
    expect(a).not.toBe(b);
    expect(b).toEqual(a);
  });

  it('stays bounded: many distinct bodies still parse correctly after the memo turns over', () => {
    for (let i = 0; i < 1500; i++) {
      const r = parseGraphQLBody(JSON_TYPE, body({ query: `{ n${i}: __typename }` }));
      expect((r as { query: string }).query).toBe(`{ n${i}: __typename }`);
    }
  });
});
