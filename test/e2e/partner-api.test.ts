// The partner API as a partner developer meets it: spec directives, 200 for GraphQL-level
// failures whatever Accept says, enums (with OTHER for values a feed adds later), a fully described
// schema, LocalDate, and errors that say what to do. (Point 7, the examples: partner-examples.test.ts.)
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  getIntrospectionQuery,
  type IntrospectionEnumType,
  type IntrospectionField,
  type IntrospectionInputValue,
  type IntrospectionObjectType,
  type IntrospectionQuery,
  type IntrospectionType,
} from 'graphql';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { ROOT, writeMeshDir } from '../support/mesh-dir.js';
import { unknownEnumStats } from '../../resolvers/enum-values.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ PLAYGROUND_ALLOWANCE: '1000' });
});
afterAll(async () => t?.close());

type Env = 'production' | 'certification' | 'playground';
const ENVS: Env[] = ['production', 'certification', 'playground'];

async function introspect(env: Env): Promise<IntrospectionQuery> {
  const r = await t.post(env, getIntrospectionQuery({ specifiedByUrl: true }));
  expect(r.json.errors).toBeUndefined();
  return r.json.data;
}

describe('1. @include and @skip', () => {
  const Q = 'query($x: Boolean!) { utilities(zipCode: "75001") { id name @include(if: $x) state @skip(if: $x) } }';

  it.each(ENVS)('%s honours both directives', async (env) => {
    const on = await t.post(env, Q, { x: true });
    expect(on.status).toBe(200);
    expect(on.json.errors).toBeUndefined();
    expect(on.json.data.utilities[0]).toEqual({ id: 'ONCOR', name: expect.any(String) });
    const off = await t.post(env, Q, { x: false });
    expect(off.json.data.utilities[0]).toEqual({ id: 'ONCOR', state: 'TX' });
  });

  it('lists the specified directives in introspection, and no gateway-internal one', async () => {
    const names = (await introspect('playground')).__schema.directives.map((d) => d.name).sort();
    expect(names).toEqual(expect.arrayContaining(['deprecated', 'include', 'skip', 'specifiedBy']));
  });

  it('rejects a directive with a wrong argument as a validation error', async () => {
    const r = await t.post('production', '{ utilities(zipCode: "75001") { id @include(if: "yes") } }');
    expect(r.status).toBe(200);
    expect(r.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('2. GraphQL-level failures answer 200 whatever Accept says', () => {
  const ACCEPTS = [
    'application/graphql-response+json',
    'application/graphql-response+json, application/json;q=0.9',
    'application/json',
    '*/*',
  ];
  const FAILURES: [string, string, Record<string, unknown> | undefined][] = [
    ['unknown field', '{ utilities(zipCode: "75001") { nope } }', undefined],
    ['missing argument', '{ utilities { id } }', undefined],
    ['parse error', '{ utilities(zipCode: ', undefined],
    ['bad variable', 'query($z: String!) { utilities(zipCode: $z) { id } }', { z: 5 }],
    ['resolver failure', '{ utilities(zipCode: "7500") { id } }', undefined],
  ];
  for (const accept of ACCEPTS) {
    it.each(FAILURES)(`${accept}: %s -> 200 with errors`, async (_what, query, variables) => {
      const r = await t.post('production', query, variables, { headers: { accept } });
      expect(r.status).toBe(200);
      expect(r.json.errors.length).toBeGreaterThan(0);
      const wanted = accept.startsWith('application/graphql-response+json') ? /^application\/graphql-response\+json/ : /^application\/json/;
      expect(r.headers.get('content-type')).toMatch(wanted);
    });
  }

  it('keeps the HTTP-level statuses the contract names', async () => {
    const noKey = await t.post('production', '{ utilities(zipCode: "75001") { id } }', undefined, {
      key: null,
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(noKey.status).toBe(403);
    const res = await fetch(t.g.urls.production!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'x-api-key': t.keys.production },
      body: '{not json',
    });
    expect(res.status).toBe(400);
  });
});

describe('3. fixed value lists are enums', () => {
  const FIELDS: [string, string, string, string[]][] = [
    ['Utility', 'ownership', 'Ownership', ['IOU', 'MUNICIPAL', 'COOP', 'OTHER']],
    ['UtilityAccount', 'idType', 'AccountIdType', ['ESIID', 'ACCOUNT_NUMBER', 'OTHER']],
    ['UtilityAccount', 'meterType', 'MeterType', ['AMS', 'AMI', 'AMR', 'UNKNOWN', 'OTHER']],
    ['UtilityAccount', 'status', 'AccountStatus', ['ACTIVE', 'INACTIVE', 'OTHER']],
    ['UtilityAccount', 'premiseType', 'PremiseType', ['RESIDENTIAL', 'COMMERCIAL', 'OTHER']],
  ];

  it.each(FIELDS)('%s.%s is the enum %s with every value the feeds send and OTHER', async (typeName, field, enumName, values) => {
    const schema = (await introspect('production')).__schema;
    const type = schema.types.find((x) => x.name === typeName) as IntrospectionObjectType;
    const f = type.fields.find((x) => x.name === field)!;
    const named = f.type.kind === 'NON_NULL' ? f.type.ofType : f.type;
    expect(named).toMatchObject({ kind: 'ENUM', name: enumName });
    const e = schema.types.find((x) => x.name === enumName) as IntrospectionEnumType;
    expect(e.enumValues.map((v) => v.name)).toEqual(values);
  });

  it('answers AMI and AMR meters (the reference upstream sends them) as enum values', async () => {
    const seen = new Set<string>();
    for (const [address, zip] of [
      ['1500 Marilla St', '75201'],
      ['1400 JFK Blvd', '19103'],
      ['121 N LaSalle St', '60602'],
      ['90 W Broad St', '43215'],
      ['1 Centre St', '10007'],
      ['920 Broad St', '07102'],
      ['100 Holliday St', '21202'],
    ]) {
      const r = await t.post(
        'production',
        'query($a: String!, $z: String!) { utilityAccounts(address: $a, zipCode: $z) { idType meterType status premiseType } }',
        { a: address, z: zip },
      );
      expect(r.json.errors).toBeUndefined();
      for (const a of r.json.data.utilityAccounts) seen.add(a.meterType);
    }
    expect(seen.has('AMS')).toBe(true);
    expect(seen.has('AMI')).toBe(true);
  });
});

/** The territories and premises contracts (schema.json) grown by `extra`: a feed that started sending new values. */
function configWithGrownContracts(extra: Record<string, string[]>): string {
  const grow = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(grow);
    if (!node || typeof node !== 'object') return node;
    const o = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, grow(v)])) as Record<string, unknown>;
    if (typeof o.title === 'string' && Array.isArray(o.enum) && extra[o.title]) o.enum = [...o.enum, ...extra[o.title]!];
    return o;
  };
  return writeMeshDir((config, dir) => {
    for (const source of config.sources) {
      for (const op of source.handler.jsonSchema?.operations ?? []) {
        const file = path.join(dir, `${source.name}.${op.field}.schema.json`); // a source may have several operations
        fs.writeFileSync(file, JSON.stringify(grow(JSON.parse(fs.readFileSync(op.responseSchema, 'utf8')))));
        op.responseSchema = file;
      }
    }
  });
}

describe('3b. a value a feed adds later answers OTHER, logged and counted', () => {
  let feed: http.Server;
  let g: TestGateway;
  let meshDir: string;
  beforeAll(async () => {
    meshDir = configWithGrownContracts({
      TerritoryOwnership: ['STATE_AUTHORITY'],
      PremiseIdType: ['METER_NUMBER'],
      PremiseMeterType: ['PLC'],
      PremiseStatus: ['SEASONAL'],
      PremisePremiseType: ['INDUSTRIAL'],
    });
    // A real territories and premises upstream whose contracts gained values the schema lacks.
    // A real territories and premises upstream: the feeds' own samples, with the new values.
    const sample = (feed: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'sources', feed, 'sample.json'), 'utf8'));
    const territories = sample('territories');
    territories.utilities = [{ ...territories.utilities[0], ownership: 'STATE_AUTHORITY' }];
    const premises = sample('premises');
    premises.matches = [
      { ...premises.matches[0], idType: 'METER_NUMBER', meterType: 'PLC', status: 'SEASONAL', premiseType: 'INDUSTRIAL' },
    ];
    feed = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/territories/v1/zip/')) res.end(JSON.stringify(territories));
      else if (req.url?.startsWith('/premises/v1/search')) res.end(JSON.stringify(premises));
      else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((r) => feed.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(feed.address() as { port: number }).port}`;
    g = await startTestGateway({ TERRITORIES_URL: url, PREMISES_URL: url, MESH_DIR: meshDir });
  });
  afterAll(async () => {
    await g?.close();
    feed?.close();
    fs.rmSync(meshDir, { recursive: true, force: true });
  });

  it('answers OTHER for every enum field a feed fills with a new value', async () => {
    const counted = (type: string) => unknownEnumStats.get(type) ?? 0;
    const before = ['Ownership', 'AccountIdType', 'MeterType', 'AccountStatus', 'PremiseType'].map(counted);
    const u = await g.post('production', '{ utilities(zipCode: "75001") { id ownership } }');
    expect(u.json).toEqual({ data: { utilities: [{ id: 'ONCOR', ownership: 'OTHER' }] } });
    const a = await g.post(
      'production',
      '{ utilityAccounts(address: "1500 Marilla St", zipCode: "75201") { idType meterType status premiseType } }',
    );
    expect(a.json).toEqual({ data: { utilityAccounts: [{ idType: 'OTHER', meterType: 'OTHER', status: 'OTHER', premiseType: 'OTHER' }] } });
    // The process-wide counts gateway_unknown_enum_values_total{type} reads (unit: unknown-enum-values.test.ts).
    expect(['Ownership', 'AccountIdType', 'MeterType', 'AccountStatus', 'PremiseType'].map(counted)).toEqual(before.map((n) => n + 1));
  });
});

/** Every type, field, argument and enum value of our own (not introspection's) with its description. */
function undescribed(types: readonly IntrospectionType[]): string[] {
  const missing: string[] = [];
  const blank = (d: string | null | undefined) => !d || !d.trim();
  for (const type of types) {
    if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
    if (blank(type.description)) missing.push(type.name);
    if ('fields' in type && type.fields) {
      for (const f of type.fields as readonly IntrospectionField[]) {
        if (blank(f.description)) missing.push(`${type.name}.${f.name}`);
        for (const a of f.args) if (blank(a.description)) missing.push(`${type.name}.${f.name}(${a.name})`);
      }
    }
    if ('inputFields' in type && type.inputFields) {
      for (const f of type.inputFields as readonly IntrospectionInputValue[])
        if (blank(f.description)) missing.push(`${type.name}.${f.name}`);
    }
    if ('enumValues' in type && type.enumValues) {
      for (const v of type.enumValues) if (blank(v.description)) missing.push(`${type.name}.${v.name}`);
    }
  }
  return missing;
}

describe('4. the schema is fully described, with units', () => {
  it.each(ENVS)('%s: every type, field, argument and enum value has a description', async (env) => {
    expect(undescribed((await introspect(env)).__schema.types)).toEqual([]);
  });

  it('the walk notices a missing description', () => {
    const fake = [
      {
        kind: 'OBJECT',
        name: 'X',
        description: 'x',
        fields: [{ name: 'y', description: '', args: [], type: { kind: 'SCALAR', name: 'String' } }],
        interfaces: [],
      },
    ] as unknown as IntrospectionType[];
    expect(undescribed(fake)).toEqual(['X.y']);
  });

  it('states the unit of every money and energy field', async () => {
    const schema = (await introspect('production')).__schema;
    const missing: string[] = [];
    for (const type of schema.types) {
      if (type.kind !== 'OBJECT' || type.name.startsWith('__')) continue;
      for (const f of type.fields) {
        const d = f.description ?? '';
        if (/Usd/.test(f.name) && !/USD/.test(d)) missing.push(`${type.name}.${f.name} (USD)`);
        if (/Kwh/.test(f.name) && !/kWh/.test(d)) missing.push(`${type.name}.${f.name} (kWh)`);
        if (/^(price|fees|usageCredits)$/.test(f.name) && !/USD/.test(d)) missing.push(`${type.name}.${f.name} (USD)`);
        if (/Percent$|^percent$/.test(f.name) && !/percent/i.test(d)) missing.push(`${type.name}.${f.name} (percent)`);
        if (/^(term|termMonths)$/.test(f.name) && !/month/.test(d)) missing.push(`${type.name}.${f.name} (months)`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('5. dates and money', () => {
  it('types StartDate.date as the LocalDate scalar (graphql-scalars), specified by RFC 3339', async () => {
    const schema = (await introspect('playground')).__schema;
    const start = schema.types.find((x) => x.name === 'StartDate') as IntrospectionObjectType;
    expect(start.fields.find((f) => f.name === 'date')!.type).toEqual({
      kind: 'NON_NULL',
      name: null,
      ofType: { kind: 'SCALAR', name: 'LocalDate', ofType: null },
    });
    const scalar = schema.types.find((x) => x.name === 'LocalDate') as { specifiedByURL?: string; description?: string };
    expect(scalar.specifiedByURL).toMatch(/rfc3339/);
    expect(scalar.description).toMatch(/YYYY-MM-DD/);
  });

  it('answers the date as YYYY-MM-DD', async () => {
    const r = await t.post('production', '{ nextStartDate(zipCode: "75001") { date } }');
    expect(r.json.data.nextStartDate.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('says in the schema how to compare and round money', async () => {
    const r = await t.post('playground', '{ __schema { queryType { description } } }');
    expect(r.json.data.__schema.queryType.description).toMatch(/2 decimals/);
    expect(r.json.data.__schema.queryType.description).toMatch(/micro-dollars/);
  });
});

describe('6. errors that help', () => {
  it('utilityAccounts on the playground: a free validation error that says it needs a key', async () => {
    const before = await t.post('playground', '{ __typename }');
    const r = await t.post('playground', '{ utilityAccounts(address: "1500 Marilla St", zipCode: "75201") { accountId } }');
    expect(r.status).toBe(200);
    expect(r.json.data).toBeUndefined();
    expect(r.json.errors).toHaveLength(1);
    expect(r.json.errors[0].message).toMatch(/needs an API key/);
    expect(r.json.errors[0].message).toMatch(/production and certification/);
    expect(r.json.errors[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', reason: 'API_KEY_REQUIRED' });
    expect(r.json.errors[0].locations).toEqual([{ line: 1, column: 3 }]);
    expect(r.headers.get('x-ratelimit-remaining')).toBe(before.headers.get('x-ratelimit-remaining'));
  });

  it('other unknown fields on the playground keep the usual message', async () => {
    const r = await t.post('playground', '{ utilityAccount { accountId } }');
    expect(r.json.errors[0].message).toMatch(/Cannot query field "utilityAccount"/);
  });

  it('zipCode 00000 says exactly why it is refused', async () => {
    const r = await t.post('production', '{ utilities(zipCode: "00000") { id } }');
    expect(r.status).toBe(200);
    expect(r.json.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'zipCode' });
    expect(r.json.errors[0].message).toMatch(/00000 is not a ZIP code the US Postal Service assigns/);
    expect(r.json.errors[0].message).not.toMatch(/must be a 5-digit/);
  });
});
