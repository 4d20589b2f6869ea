import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { parseGraphQLBody, readBody } from '../../server/http/request-body.js';

/** A request whose body arrives in these chunks. */
function requestOf(chunks: Buffer[], headers: Record<string, string> = {}): IncomingMessage {
  return Object.assign(Readable.from(chunks, { objectMode: false }), { headers }) as unknown as IncomingMessage;
}

const JSON_TYPE = 'application/json';
const body = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
const status = (r: ReturnType<typeof parseGraphQLBody>) => ('status' in r ? r.status : 'ok');

describe('parseGraphQLBody', () => {
  it('returns the same frozen object for a repeated body, so no request can change another one', () => {
    const raw = body({
      query: 'query Q($z: String!) { residentialPlans(zipCode: $z) { title } }',
      variables: { z: '75001', nested: { a: [1] } },
    });
    const a = parseGraphQLBody(JSON_TYPE, raw);
    const b = parseGraphQLBody(JSON_TYPE, Buffer.from(raw));
    expect(b).toBe(a);
    if ('status' in a) throw new Error('expected a body');
    expect(Object.isFrozen(a.variables)).toBe(true);
    expect(() => {
      (a.variables as Record<string, unknown>).z = '10001';
    }).toThrow(TypeError);
    expect(() => {
      (a.variables as { nested: { a: number[] } }).nested.a.push(2);
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

  it('skips a UTF-8 byte order mark before the JSON, and only there', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(parseGraphQLBody(JSON_TYPE, Buffer.concat([bom, body({ query: '{ __typename }' })]))).toMatchObject({ query: '{ __typename }' });
    expect(status(parseGraphQLBody(JSON_TYPE, Buffer.concat([bom, bom, body({ query: '{ __typename }' })])))).toBe(400);
    expect(status(parseGraphQLBody(JSON_TYPE, bom))).toBe(400);
  });

  it('says why a JSON body in another charset is refused', () => {
    for (const type of [
      'application/json; charset=latin1',
      'application/json;charset=utf-16',
      'application/graphql-response+json; charset=iso-8859-1',
    ]) {
      const r = parseGraphQLBody(type, body({ query: '{ __typename }' }));
      expect(r, type).toMatchObject({ status: 400 });
      expect((r as { body: string }).body, type).toContain('Send the body in UTF-8');
    }
    expect((parseGraphQLBody('text/plain', body({ query: '{ __typename }' })) as { body: string }).body).toContain(
      'Content-Type: application/json.',
    );
  });

  it('refuses malformed, hostile and boundary bodies every time they are sent', () => {
    const bad = [
      '',
      '{',
      'null',
      '[]',
      '[{"query":"{ a }"}]',
      '"x"',
      '{"query":""}',
      '{"query":"  "}',
      '{"query":1}',
      '{"query":"{ a }","variables":[]}',
      '{"query":"{ a }","variables":"x"}',
      '{"query":"{ a }","operationName":1}',
      '{"query":"{ a }","extensions":[]}',
      '\u0000',
      '{"query":"{ a }"'.repeat(300),
    ];
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

describe('readBody', () => {
  it('returns the bytes sent, in one chunk or many, up to the limit, and 413 past it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 64 }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 300 }),
        async (parts, limit) => {
          const chunks = parts.map((p) => Buffer.from(p));
          const whole = Buffer.concat(chunks);
          const got = await readBody(requestOf(chunks), limit);
          if (whole.length > limit) expect('status' in got && got.status).toBe(413);
          else expect(Buffer.isBuffer(got) && got.equals(whole)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a declared length over the limit before reading', async () => {
    const got = await readBody(requestOf([Buffer.from('{}')], { 'content-length': '5000' }), 100);
    expect('status' in got && got.status).toBe(413);
  });
});
