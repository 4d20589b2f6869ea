// The schema holds the policy: what the directives on schema/public.graphql give each root field,
// that no other file repeats a field rule, that partners never see the directives, and that a
// malformed directive stops the start with a message naming the field.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getIntrospectionQuery, graphqlSync, printSchema } from 'graphql';
import { policyFromSdl, schemaPolicy, SCHEMA_FILE, SchemaPolicyError } from '../../resolvers/schema-policy.js';
import { loadCacheSettings, schemaTtls } from '../../cache/cache-config.js';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { requestLogLine } from '../../server/observability/request-log.js';
import type { RequestState } from '../../server/http/plugin.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SDL = fs.readFileSync(SCHEMA_FILE, 'utf8');
const H = 3_600_000;
const ROOT_FIELDS = ['utilities', 'coverage', 'residentialPlans', 'businessPlans', 'nextStartDate', 'energyInfoByState', 'utilityAccounts'];

describe('the policy read from schema/public.graphql', () => {
  it('public root fields are those of the SDL; utilityAccounts needs a key', () => {
    expect([...schemaPolicy.rootFields]).toEqual(ROOT_FIELDS);
    expect([...schemaPolicy.keyedOnly]).toEqual(['utilityAccounts']);
    expect([...schemaPolicy.playgroundFields]).toEqual(ROOT_FIELDS.slice(0, 6));
  });

  it('gives the TTLs the gateway has always had, and never caches personal data', () => {
    const problems: string[] = [];
    const cache = loadCacheSettings({}, '/nonexistent-dir-for-tests', problems);
    expect(problems).toEqual([]);
    expect(cache.ttl).toMatchObject({
      utilities: { kind: 'fixed', ms: 24 * H },
      coverage: { kind: 'fixed', ms: 24 * H },
      energyInfoByState: { kind: 'fixed', ms: 24 * H },
      residentialPlans: { kind: 'fixed', ms: 15 * 60_000 },
      businessPlans: { kind: 'fixed', ms: 15 * 60_000 },
      utilityAccounts: { kind: 'fixed', ms: 0 },
    });
    expect(cache.ttl.nextStartDate).toEqual({
      kind: 'untilLocalTime',
      times: ['00:00', '16:00', '17:00'],
      timeZones: [
        'Pacific/Honolulu',
        'America/Anchorage',
        'America/Los_Angeles',
        'America/Phoenix',
        'America/Denver',
        'America/Chicago',
        'America/New_York',
      ],
      maxMs: H,
    });
    expect([...schemaPolicy.neverCached]).toEqual(['utilityAccounts']);
    expect(schemaPolicy.cacheableFields).toEqual(ROOT_FIELDS.slice(0, 6));
  });

  it('fan-out: plan queries call territories and every supplier feed, others one feed, introspection none', () => {
    expect(schemaPolicy.fanOutOf('residentialPlans', 2)).toBe(4);
    expect(schemaPolicy.fanOutOf('businessPlans', 5)).toBe(6);
    for (const f of ['utilities', 'coverage', 'nextStartDate', 'energyInfoByState', 'utilityAccounts'])
      expect(schemaPolicy.fanOutOf(f, 5)).toBe(1);
    expect(schemaPolicy.fanOutOf('__schema', 5)).toBe(0);
  });

  it('personal data: the address argument, account ids and service addresses', () => {
    expect([...schemaPolicy.personalData.args]).toEqual(['Query.utilityAccounts.address']);
    expect([...schemaPolicy.personalData.fields].sort()).toEqual(['UtilityAccount.accountId', 'UtilityAccount.serviceAddress']);
    expect(schemaPolicy.isPersonalArg('utilityAccounts', 'address')).toBe(true);
    expect(schemaPolicy.isPersonalArg('utilityAccounts', 'zipCode')).toBe(false);
    expect(schemaPolicy.isPersonalArg('residentialPlans', 'address')).toBe(false);
    expect(schemaPolicy.personalArgsOf('utilityAccounts')).toEqual(['address']);
    expect(schemaPolicy.personalArgsOf('utilities')).toEqual([]);
    expect(schemaPolicy.isPersonalField('UtilityAccount', 'accountId')).toBe(true);
    expect(schemaPolicy.isPersonalField('UtilityAccount', 'meterType')).toBe(false);
    expect(schemaPolicy.selectsPersonalData(['utilities', 'utilityAccounts'])).toBe(true);
    expect(schemaPolicy.selectsPersonalData(['utilities', '__typename'])).toBe(false);
  });
});

describe('each field rule lives in one place', () => {
  const gitGrep = (pattern: string) => {
    try {
      return execFileSync(
        'git',
        [
          'grep',
          '-n',
          '-E',
          pattern,
          '--',
          '*.ts',
          '*.mts',
          '*.yaml',
          '*.yml',
          '*.json',
          ':!test/**',
          ':!bench/**',
          ':!sources/**',
          ':!examples/**',
          ':!package*.json',
        ],
        { cwd: ROOT, encoding: 'utf8' },
      )
        .split('\n')
        .filter(Boolean);
    } catch {
      return []; // git grep exits 1 when nothing matches
    }
  };

  it.each(ROOT_FIELDS)('no code or config lists %s as a string (the schema is the list)', (field) => {
    // A rule about a root field names it in quotes; the resolvers (resolvers/index.ts) name it as a key.
    expect(gitGrep(`['"]${field}['"]`)).toEqual([]);
  });

  it('cache.config.yaml does not repeat a TTL the schema sets', () => {
    const doc = yaml.load(fs.readFileSync(path.join(ROOT, 'cache.config.yaml'), 'utf8')) as { ttl?: Record<string, unknown> };
    const repeated = Object.keys(doc.ttl ?? {}).filter((f) => schemaPolicy.cacheTtl.has(f));
    expect(repeated).toEqual([]);
  });
});

describe('malformed policy directives stop the start with a clear message', () => {
  const withField = (field: string) => SDL.replace(/type Query \{[\s\S]*?\n\}/, `type Query {\n  ${field}\n}`);

  it.each([
    [
      'a TTL on personal data',
      'a(x: String @personalData): Int @cacheTtl(ttl: "1h")',
      /Query\.a carries personal data and cannot have @cacheTtl/,
    ],
    ['neither ttl nor untilLocalTime', 'a: Int @cacheTtl', /Query\.a @cacheTtl needs either ttl or untilLocalTime/],
    ['both ttl and untilLocalTime', 'a: Int @cacheTtl(ttl: "1h", untilLocalTime: ["00:00"])', /needs either ttl or untilLocalTime/],
    ['a negative fan-out', 'a: Int @upstreamFanOut(calls: -1)', /Query\.a @upstreamFanOut\(calls:\) must be 0 or more/],
    ['an unknown directive', 'a: Int @cacheForever', /Unknown directive "@cacheForever"/],
    ['a directive in the wrong place', 'a: Int @personalData(x: 1)', /Unknown argument "x"/],
  ])('%s', (_name, field, message) => {
    expect(() => policyFromSdl(withField(field))).toThrow(SchemaPolicyError);
    expect(() => policyFromSdl(withField(field))).toThrow(message);
  });

  it('a missing directive definition or Query type, and SDL that does not parse', () => {
    expect(() => policyFromSdl('type Query { a: Int }')).toThrow(/the gateway directive @cacheTtl is not defined/);
    expect(() => policyFromSdl('directive @a on FIELD_DEFINITION type T { a: Int }')).toThrow(SchemaPolicyError);
    expect(() => policyFromSdl('type Query {'.repeat(3))).toThrow(/schema\/public\.graphql: Syntax Error/);
  });

  it('a bad TTL in the schema is a configuration problem naming the schema file and field', () => {
    // The cache config parses the directive's TTL with the same rules as the YAML file's.
    const problems: string[] = [];
    const bad = policyFromSdl(
      withField(
        'a: Int @cacheTtl(ttl: "soon") b: Int @cacheTtl(untilLocalTime: ["25:00"]) c: Int @cacheTtl(untilLocalTime: ["00:00"], timeZones: ["Mars/Base"])',
      ),
    );
    expect(schemaTtls(problems, bad)).toEqual({});
    expect(problems).toEqual([
      `${SCHEMA_FILE}: ttl.a must be a duration (e.g. 15m, 24h, 0) or { untilLocalTime: [HH:MM], timeZones: [...], max: 1h }, got "soon"`,
      `${SCHEMA_FILE}: ttl.b.untilLocalTime must be HH:MM times, got ["25:00"]`,
      `${SCHEMA_FILE}: ttl.c.timeZones: unknown time zone "Mars/Base"`,
    ]);
  });

  it('a field with personal data deep in its answer is never cached', () => {
    const sdl = withField('a: Outer').concat(
      '\ntype Outer { inner: [Inner!]! }\ntype Inner { secret: String @personalData, self: Inner }\n',
    );
    const policy = policyFromSdl(sdl);
    expect([...policy.neverCached]).toEqual(['a']);
    expect(policy.isPersonalField('Inner', 'secret')).toBe(true);
  });
});

describe('partners never see the gateway directives', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ PLAYGROUND_ALLOWANCE: '1000' });
  }, 60_000);
  afterAll(async () => t?.close());

  it.each(['production', 'playground'] as const)('%s: introspection and the printed schema name none of them', async (environment) => {
    const r = await t.post(environment, getIntrospectionQuery());
    expect(r.status).toBe(200);
    const directives = (r.json.data.__schema.directives as { name: string }[]).map((d) => d.name);
    for (const d of schemaPolicy.gatewayDirectives) {
      expect(directives).not.toContain(d);
      expect(r.text).not.toContain(d);
    }
    const served = t.g.mesh.schemas[environment === 'production' ? 'keyed' : 'playground'];
    const printed = printSchema(served);
    for (const d of schemaPolicy.gatewayDirectives) expect(printed).not.toContain(`@${d}`);
    expect(graphqlSync({ schema: served, source: '{ __schema { directives { name } } }' }).errors).toBeUndefined();
    const roots = Object.keys(served.getQueryType()!.getFields());
    expect(roots).toEqual(environment === 'production' ? ROOT_FIELDS : ROOT_FIELDS.slice(0, 6));
  });
});

describe('the request log redacts what the schema marks personal', () => {
  const state = (variables: Record<string, unknown> | null, rootFields?: string[]) =>
    ({
      environment: 'production',
      requestId: 'r1',
      clientIp: '127.0.0.1',
      receivedAt: 0,
      partnerCode: 'ACME',
      req: { method: 'POST', url: '/graphql' },
      variables,
      cache: 'BYPASS',
      upstreamCalls: [],
      headers: {},
      notes: {},
      operation: rootFields ? { rootFields, introspectionOnly: false, operationName: null } : undefined,
    }) as unknown as RequestState;
  const line = (s: RequestState) => requestLogLine(s, { status: 200, headers: {}, body: '' }, 1);

  it.each([
    ['a root field with a personal argument', state(null, ['utilityAccounts']), true],
    ['a variable named like one, any case', state({ streetADDRESS: 'x' }), true],
    ['one level deep', state({ input: { billingAddress: 'x' } }), true],
    ['a plan query', state({ zip: '75001' }, ['residentialPlans']), false],
    ['hostile variables: deep, huge, lists', state({ a: { b: { address: 'x' } }, l: [{ address: 'x' }], s: 'x'.repeat(100_000) }), false],
    ['no variables at all', state(null), false],
  ])('%s', (_name, s, given) => {
    const l = line(s);
    expect(l.addressGiven === true).toBe(given);
    // Values never reach the line, whatever it says about them.
    expect(JSON.stringify(l)).not.toMatch(/"x"|xxxx/);
  });
});
