// What the reference upstream's contract tests share: the feeds' contracts as validators (objects
// that declare properties reject undeclared ones), and the upstream each test file starts.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { Ajv, type ValidateFunction } from 'ajv';
import yaml from 'js-yaml';
import { startReferenceUpstream, type ReferenceUpstream } from '../../sources/reference-upstream/server.js';
import { FEEDS } from '../../sources/reference-upstream/faults.js';

export type Json = any;

const root = new URL('../../', import.meta.url);
const readJson = (path: string): Json => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

/** Deep copy of a schema where objects with declared properties reject undeclared ones, so
 *  the tests catch a server field that the contract does not describe. */
function closed(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'enum' ? v : closed(v);
  if (out.properties && typeof out.properties === 'object' && !('additionalProperties' in out) && out.type === 'object') {
    out.additionalProperties = false;
  }
  return out;
}

const ajv = new Ajv({ allErrors: true });
const jsonSchemaValidators: Record<string, ValidateFunction> = Object.fromEntries(
  ['territories', 'brightgrid', 'eia', 'eia-monthly-sales', 'premises', 'gridwise'].map((feed) => [
    feed,
    ajv.compile(closed(readJson(`sources/${feed}/schema.json`))),
  ]),
);
export const openapi: Json = yaml.load(readFileSync(new URL('sources/voltify/openapi.yaml', root), 'utf8'));
// OpenAPI documents carry non-JSON-Schema keys (openapi, info, paths): compile non-strictly.
const oasAjv = new Ajv({ allErrors: true, strict: false });
oasAjv.addSchema(closed({ components: openapi.components }), 'voltify');
const validators: Record<string, ValidateFunction> = {
  ...jsonSchemaValidators,
  voltify: oasAjv.getSchema('voltify#/components/schemas/VoltifyOffersResponse')!,
};

export function expectValid(feed: string, body: unknown): void {
  const validate = validators[feed]!;
  const ok = validate(body);
  expect(ok, `${feed}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
}

export const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
export const decimals = (n: number) => (String(n).split('.')[1] ?? '').length;

export let upstream: ReferenceUpstream;

export async function get(path: string): Promise<{ status: number; headers: Headers; body: Json }> {
  const res = await fetch(upstream.url + path);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** The reference upstream of the calling test file, started on a free port, its faults cleared after each test. */
export function startsReferenceUpstream(): void {
  beforeAll(async () => {
    upstream = await startReferenceUpstream({ port: 0 });
  });
  afterAll(async () => {
    await upstream?.close();
  });
  afterEach(() => {
    for (const feed of FEEDS) upstream.setFault(feed, null);
  });
}
