// Masking by type, deny by default, as a property: generated operations over `utilityAccounts`
// (named and inline fragments, nesting, aliases, variables, defaults and literals, @include and
// @skip) are executed by graphql-js against the public schema, recorded as the replay plugin
// stores them (sealed under REPLAY_PII_KEY, or in clear as an older or mistaken writer would),
// and read back through the real console (admin listener, embedded replay log, audit log) by a
// viewer: no account id or address value ever shows, in the record page, the search results or a
// refused rerun or unmasking, and the record page offers no raw response.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { execute, parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../start/config.js';
import { KeyStore, issueKey } from '../../stores/key-store.js';
import { PartnerStore } from '../../stores/partners.js';
import { createReplayStore, type ReplayRecord, type ReplayStore } from '../../stores/replay-store.js';
import { createAuditLog } from '../../support/audit/audit-log.js';
import { createSupportConsole } from '../../support/console/console.js';
import { createUnmasker } from '../../support/console/masking.js';
import { startAdminServer, type AdminServer } from '../../support/admin-server.js';
import { sealPersonalData } from '../../stores/replay-privacy.js';
import { documentOf, replayFacets } from '../../stores/replay-facets.js';
import { schemaPolicy } from '../../resolvers/schema-policy.js';
import { consoleClient, type ConsoleClient } from '../support/console-client.js';
import { testRecord } from '../support/replay-records.js';

const PII_KEY = Buffer.from('d4'.repeat(32), 'hex');
const SENT_ZIP = '77002';

interface Account {
  accountId: string;
  line1: string;
  line2: string | null;
  city: string;
  zip: string;
}

// ---- Operation shapes ------------------------------------------------------------------------

type Wrap = 'none' | 'named' | 'inline' | 'inline-bare' | 'nested' | 'include' | 'include-var' | 'skip-false';
interface Shape {
  operationName: string | null;
  rootAlias: string | null;
  address: 'literal' | 'block' | 'variable' | 'default';
  zip: 'literal' | 'variable';
  rootWrap: Wrap;
  accountWrap: Wrap;
  /** Fields of UtilityAccount, each maybe aliased; `serviceAddress` with its own sub-selection. */
  fields: { name: string; alias: boolean; wrap: Wrap }[];
  addressFields: { name: string; alias: boolean }[];
  otherRoot: boolean;
}

const ACCOUNT_FIELDS = ['accountId', 'serviceAddress', 'utilityId', 'meterType', 'idType', 'status', '__typename'];
const ADDRESS_FIELDS = ['line1', 'line2', 'city', 'state', 'zip'];
const wraps: Wrap[] = ['none', 'named', 'inline', 'inline-bare', 'nested', 'include', 'include-var', 'skip-false'];

const shapeArb: fc.Arbitrary<Shape> = fc.record({
  operationName: fc.option(fc.constantFrom('Lookup', 'Accounts'), { nil: null }),
  rootAlias: fc.option(fc.constantFrom('accts', 'who', 'x'), { nil: null }),
  address: fc.constantFrom('literal', 'block', 'variable', 'default'),
  zip: fc.constantFrom('literal', 'variable'),
  rootWrap: fc.constantFrom(...wraps),
  accountWrap: fc.constantFrom(...wraps),
  fields: fc
    .uniqueArray(fc.constantFrom(...ACCOUNT_FIELDS), { minLength: 1, maxLength: ACCOUNT_FIELDS.length })
    .chain((names) =>
      fc.tuple(...names.map((name) => fc.record({ name: fc.constant(name), alias: fc.boolean(), wrap: fc.constantFrom(...wraps) }))),
    ),
  addressFields: fc
    .uniqueArray(fc.constantFrom(...ADDRESS_FIELDS), { minLength: 1, maxLength: ADDRESS_FIELDS.length })
    .chain((names) => fc.tuple(...names.map((name) => fc.record({ name: fc.constant(name), alias: fc.boolean() })))),
  otherRoot: fc.boolean(),
});

/** The operation text, its variables, and the street address it sends. */
function operationOf(shape: Shape, address: string): { query: string; variables: Record<string, unknown> } {
  const fragments: string[] = [];
  const defs: string[] = [];
  const variables: Record<string, unknown> = {};
  let n = 0;
  const wrap = (w: Wrap, on: string, body: string): string => {
    switch (w) {
      case 'none':
        return body;
      case 'named': {
        const name = `F${++n}`;
        fragments.push(`fragment ${name} on ${on} { ${body} }`);
        return `...${name}`;
      }
      case 'inline':
        return `... on ${on} { ${body} }`;
      case 'inline-bare':
        return `... { ${body} }`;
      case 'nested': {
        const name = `G${++n}`;
        fragments.push(`fragment ${name} on ${on} { ... on ${on} { ${body} } }`);
        return `... { ...${name} }`;
      }
      case 'include':
        return `... @include(if: true) { ${body} }`;
      case 'include-var':
        if (!defs.includes('$inc: Boolean!')) defs.push('$inc: Boolean!');
        variables.inc = true;
        return `... on ${on} @include(if: $inc) { ${body} }`;
      case 'skip-false':
        return `... @skip(if: false) { ${body} }`;
    }
  };
  const addressSel = shape.addressFields.map((f) => `${f.alias ? `${f.name}Alias: ` : ''}${f.name}`).join(' ');
  const accountSel = shape.fields
    .map((f) => {
      const field = `${f.alias ? `${f.name.replace(/^_+/, '')}Alias: ` : ''}${f.name}${f.name === 'serviceAddress' ? ` { ${addressSel} }` : ''}`;
      return wrap(f.wrap, 'UtilityAccount', field);
    })
    .join(' ');
  let addressArg: string;
  if (shape.address === 'literal') addressArg = JSON.stringify(address);
  else if (shape.address === 'block') addressArg = `"""${address}"""`;
  else {
    defs.push(shape.address === 'default' ? `$a: String = ${JSON.stringify(address)}` : '$a: String!');
    if (shape.address === 'variable') variables.a = address;
    addressArg = '$a';
  }
  let zipArg = JSON.stringify(SENT_ZIP);
  if (shape.zip === 'variable') {
    defs.push('$z: String!');
    variables.z = SENT_ZIP;
    zipArg = '$z';
  }
  const root = `${shape.rootAlias ? `${shape.rootAlias}: ` : ''}utilityAccounts(address: ${addressArg}, zipCode: ${zipArg}) { ${wrap(
    shape.accountWrap,
    'UtilityAccount',
    accountSel,
  )} }`;
  const selection = `${wrap(shape.rootWrap, 'Query', root)}${shape.otherRoot ? ' utilities(zipCode: "75001") { id }' : ''}`;
  const head = shape.operationName || defs.length ? `query ${shape.operationName ?? ''}${defs.length ? `(${defs.join(', ')})` : ''} ` : '';
  return { query: `${head}{ ${selection} } ${fragments.join(' ')}`.trim(), variables };
}

// ---- Data --------------------------------------------------------------------------------------

const accountArb: fc.Arbitrary<Account> = fc.record({
  accountId: fc.stringMatching(/^1\d{16}$/),
  line1: fc
    .tuple(fc.integer({ min: 100, max: 9999 }), fc.constantFrom('Bagby', 'Marilla', 'Travis', 'Lamar'))
    .map(([n, s]) => `${n} ${s} St`),
  line2: fc.option(
    fc.integer({ min: 2, max: 99 }).map((n) => `Apt ${n}B`),
    { nil: null },
  ),
  city: fc.stringMatching(/^Qz[a-z]{4}ville$/),
  zip: fc.integer({ min: 80000, max: 89999 }).map((n) => `${n}-${4000 + (n % 1000)}`),
});

/** Every value a viewer must never see: the address sent and each account's id and address parts. */
function secretsOf(address: string, accounts: Account[]): string[] {
  return [address, ...accounts.flatMap((a) => [a.accountId, a.line1, a.city, a.zip, ...(a.line2 ? [a.line2] : [])])];
}

function answer(query: string, variables: Record<string, unknown>, accounts: Account[]): string {
  const document = parse(query);
  const errors = validate(schemaPolicy.schema, document);
  expect(errors.map((e) => e.message)).toEqual([]);
  const rootValue = {
    utilityAccounts: () =>
      accounts.map((a) => ({
        accountId: a.accountId,
        idType: 'ESIID',
        serviceAddress: { line1: a.line1, line2: a.line2, city: a.city, state: 'TX', zip: a.zip },
        utilityId: 'CENTERPOINT',
        meterType: 'AMS',
        status: 'ACTIVE',
      })),
    utilities: () => [{ id: 'ONCOR' }],
  };
  const result = execute({ schema: schemaPolicy.schema, document, rootValue, variableValues: variables }) as { errors?: unknown[] };
  expect(result.errors).toBeUndefined();
  return JSON.stringify(result);
}

// ---- The console --------------------------------------------------------------------------------

let dir: string;
let keys: KeyStore;
let partners: PartnerStore;
let replay: ReplayStore;
let admin: AdminServer;
let viewer: ConsoleClient;
let unmasker: ConsoleClient;
let reruns = 0;
let seq = 0;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-console-prop-'));
  const config = loadConfig({ DATA_DIR: dir });
  keys = await KeyStore.open(path.join(dir, 'keys.json'), { reloadMs: 50 });
  const viewerToken = (await issueKey(keys.file, { environment: 'support', partnerCode: 'vip' })).key;
  const unmaskToken = (await issueKey(keys.file, { environment: 'support', partnerCode: 'ump', roles: ['viewer', 'unmask'] })).key;
  await keys.reload();
  partners = await PartnerStore.open(path.join(dir, 'partners.json'));
  replay = createReplayStore({ redis: null, dataDir: dir, settings: config.cacheReplay.replay });
  const support = createSupportConsole({
    keys,
    replay,
    audit: createAuditLog({ redis: null, dataDir: dir, retentionMs: 86_400_000 }),
    partners,
    partnersFile: partners.file,
    trustProxy: null,
    sessionTtlMs: 3_600_000,
    rerun: async () => {
      reruns++;
      return { status: 200, body: '{"data":null}', requestId: `rerun.prop-${reruns}` };
    },
    unmasker: createUnmasker({ piiKey: PII_KEY }),
  });
  admin = await startAdminServer({ host: '127.0.0.1', port: 0, token: 'p'.repeat(32), replay, cache: null, console: support, partners });
  viewer = consoleClient(admin.url);
  expect(await viewer.signIn(viewerToken)).toBe(303);
  unmasker = consoleClient(admin.url);
  expect(await unmasker.signIn(unmaskToken)).toBe(303);
});

afterAll(async () => {
  await admin?.close();
  keys?.close();
  partners?.close();
  await replay?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Records the operation as the replay plugin would (sealed) or as a writer that missed it would (clear). */
async function store(shape: Shape, address: string, accounts: Account[], sealed: boolean): Promise<ReplayRecord> {
  const { query, variables } = operationOf(shape, address);
  const record = testRecord({
    id: `req-prop-${++seq}`,
    partnerCode: 'PROP',
    operationName: shape.operationName,
    query,
    variables: Object.keys(variables).length ? variables : null,
    responseBody: answer(query, variables, accounts),
    upstreamCalls: [{ feed: 'premises', url: `http://up/premises?address=${encodeURIComponent(address)}`, status: 200, durationMs: 4 }],
  });
  record.facets = replayFacets({
    body: record.responseBody,
    rootFields: ['utilityAccounts'],
    document: documentOf(query),
    variables: record.variables,
  });
  if (sealed) sealPersonalData(record, PII_KEY);
  replay.enqueue(record);
  await replay.flush();
  return record;
}

function expectNoSecret(text: string, secrets: string[], where: string): void {
  for (const s of secrets) if (text.includes(s)) throw new Error(`${where} shows ${JSON.stringify(s)}`);
}

/** Every view a viewer has of the record. */
async function viewsOf(r: ReplayRecord, secrets: string[]): Promise<void> {
  const page = await viewer.get(`/console/records/${r.id}`);
  expect(page.status).toBe(200);
  expectNoSecret(page.text, secrets, 'the record page');
  expect(page.text).not.toContain('id="raw-response"');
  expect(page.text).toContain('id="raw-withheld"');
  const found = await viewer.get(`/console/search?id=${r.id}`);
  expect(found.status).toBe(303);
  expectNoSecret((await viewer.get(found.location!)).text, secrets, 'the record page found by id');
  expectNoSecret((await viewer.get('/console/search?partner=PROP&field=utilityAccounts&range=1h')).text, secrets, 'the search results');
  const before = reruns;
  const rerun = await viewer.post(`/console/records/${r.id}/rerun`, { reason: 'T-1' });
  expect(rerun.status).toBe(403);
  expectNoSecret(rerun.text, secrets, 'a refused rerun');
  expect(reruns).toBe(before);
  const unmask = await viewer.post(`/console/records/${r.id}/unmask`, { reason: 'T-1' });
  expect(unmask.status).toBe(403);
  expectNoSecret(unmask.text, secrets, 'a refused unmasking');
}

const addressArb = fc
  .tuple(fc.integer({ min: 100, max: 9999 }), fc.constantFrom('W Broad', 'Bagby', 'Main'))
  .map(([n, s]) => `${n} ${s} St`);

describe('personal data in the console, masked by type', () => {
  it.each([
    [
      'a named fragment',
      'query { ...F } fragment F on Query { utilityAccounts(address: "90 W Broad St", zipCode: "43215") { accountId serviceAddress { line1 } } }',
    ],
    [
      'an inline fragment',
      '{ ... on Query { utilityAccounts(address: "90 W Broad St", zipCode: "43215") { ... on UtilityAccount { accountId } serviceAddress { line1 } } } }',
    ],
    [
      'aliases',
      '{ a: utilityAccounts(address: "90 W Broad St", zipCode: "43215") { id: accountId where: serviceAddress { street: line1 } } }',
    ],
    [
      'an account fragment with variables',
      'query Q($a: String!) { utilityAccounts(address: $a, zipCode: "43215") { ...A } } fragment A on UtilityAccount { accountId serviceAddress { line1 } }',
    ],
  ])('a viewer sees no account id or address sent in %s', async (_name, query) => {
    const accounts = [{ accountId: '10443720004563214', line1: '90 W Broad St', line2: null, city: 'Qzcolumbus', zip: '43215-1234' }];
    const variables = query.includes('$a') ? { a: '90 W Broad St' } : {};
    for (const sealed of [true, false]) {
      const record = testRecord({
        id: `req-attack-${++seq}`,
        partnerCode: 'PROP',
        operationName: query.startsWith('query Q') ? 'Q' : null,
        query,
        variables: query.includes('$a') ? variables : null,
        responseBody: answer(query, variables, accounts),
      });
      if (sealed) sealPersonalData(record, PII_KEY);
      replay.enqueue(record);
      await replay.flush();
      await viewsOf(record, ['10443720004563214', '90 W Broad St']);
    }
  });

  it('generated shapes never show a viewer an account id or address, in any view', async () => {
    await fc.assert(
      fc.asyncProperty(
        shapeArb,
        addressArb,
        fc.array(accountArb, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (shape, address, accounts, sealed) => {
          const r = await store(shape, address, accounts, sealed);
          const secrets = secretsOf(address, accounts);
          await viewsOf(r, secrets);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it('the unmask role still sees them, after a reason (the property above is not vacuous)', async () => {
    const accounts = [{ accountId: '19990000000000001', line1: '77 Lamar St', line2: null, city: 'Qzaustinville', zip: '87001-4001' }];
    const shape: Shape = {
      operationName: null,
      rootAlias: 'x',
      address: 'variable',
      zip: 'literal',
      rootWrap: 'named',
      accountWrap: 'inline',
      fields: [
        { name: 'accountId', alias: true, wrap: 'named' },
        { name: 'serviceAddress', alias: false, wrap: 'include-var' },
      ],
      addressFields: [{ name: 'line1', alias: true }],
      otherRoot: true,
    };
    const r = await store(shape, '12 Main St', accounts, true);
    const masked = await unmasker.get(`/console/records/${r.id}`);
    expectNoSecret(masked.text, secretsOf('12 Main St', accounts), 'the masked page of the unmask role');
    const unmasked = await unmasker.post(`/console/records/${r.id}/unmask`, { reason: 'TICKET-5' });
    expect(unmasked.status).toBe(303);
    const clear = await unmasker.get(unmasked.location!);
    for (const s of ['19990000000000001', '77 Lamar St', '12 Main St']) expect(clear.text).toContain(s);
    // The non-personal root field is shown as answered, and the ZIP sent (not personal) too.
    expect(masked.text).toContain('ONCOR');
    expect(masked.text).toContain(SENT_ZIP);
  });
});
