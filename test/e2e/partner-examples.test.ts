// The partner examples run against a started gateway. The query collection
// (examples/partners/queries, with variables) through the typed graphql-request client, whose
// generated types are up to date with the committed schema and compile; the curl script; and the
// playground page opening with one GraphiQL tab per query, in headless Chromium.
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '@graphql-codegen/cli';
import { GraphQLClient } from 'graphql-request';
import { chromium, type Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { ROOT } from '../support/mesh-dir.js';
import { energyPlanClient } from '../../examples/partners/client.js';
import * as documents from '../../examples/partners/generated/graphql.js';
import codegenConfig from '../../examples/partners/codegen.js';
import { issueKey } from '../../stores/key-store.js';
import { savePartner, setQuota } from '../../stores/partners.js';
import { eventually } from '../../scripts/harness/eventually.js';

const EXAMPLES = path.join(ROOT, 'examples/partners');
const QUERIES = path.join(EXAMPLES, 'queries');
const PLAYGROUND_FILES = fs
  .readdirSync(QUERIES)
  .filter((f) => f.endsWith('.graphql'))
  .sort();
const KEYED_FILES = fs
  .readdirSync(path.join(QUERIES, 'keyed-only'))
  .filter((f) => f.endsWith('.graphql'))
  .map((f) => `keyed-only/${f}`);
const operationName = (file: string) => /query\s+(\w+)/.exec(fs.readFileSync(path.join(QUERIES, file), 'utf8'))![1]!;
const variablesOf = (file: string) =>
  JSON.parse(fs.readFileSync(path.join(QUERIES, file.replace(/\.graphql$/, '.variables.json')), 'utf8'));

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ PLAYGROUND_ALLOWANCE: '1000' });
});
afterAll(async () => t?.close());

describe('query collection', () => {
  it('has every public query, each with its variables', () => {
    const fields = [...PLAYGROUND_FILES, ...KEYED_FILES].map(
      (f) => /\{\s*(\w+)\s*\(/.exec(fs.readFileSync(path.join(QUERIES, f), 'utf8'))![1],
    );
    const root = Object.keys(t.g.mesh.schemas.keyed.getQueryType()!.getFields());
    expect(fields.sort()).toEqual(root.sort());
    for (const f of [...PLAYGROUND_FILES, ...KEYED_FILES]) expect(variablesOf(f)).toBeTypeOf('object');
  });

  it.each([...PLAYGROUND_FILES, ...KEYED_FILES])(
    '%s answers without errors on production and certification (graphql-request, typed document)',
    async (file) => {
      const doc = (documents as Record<string, unknown>)[`${operationName(file)}Document`];
      expect(doc).toBeDefined();
      for (const env of ['production', 'certification'] as const) {
        const client = new GraphQLClient(t.g.urls[env]!, { headers: { 'x-api-key': t.keys[env] } });
        const data = await client.request(doc as never, variablesOf(file));
        const value = Object.values(data as Record<string, unknown>)[0];
        expect(Array.isArray(value) ? value.length : value).toBeTruthy();
      }
    },
  );

  it.each(PLAYGROUND_FILES)('%s answers without errors on the playground', async (file) => {
    const data = await new GraphQLClient(t.g.urls.playground!).request(
      (documents as Record<string, unknown>)[`${operationName(file)}Document`] as never,
      variablesOf(file),
    );
    expect(Object.values(data as Record<string, unknown>)[0]).toBeTruthy();
  });
});

describe('typed client', () => {
  it('the generated types are what GraphQL Code Generator makes from the committed schema now', async () => {
    const outputs = await generate({ ...codegenConfig, cwd: ROOT, silent: true }, false);
    expect(outputs).toHaveLength(1);
    const [out] = outputs as { filename: string; content: string }[];
    expect(path.resolve(ROOT, out!.filename)).toBe(path.join(EXAMPLES, 'generated/graphql.ts'));
    // Regenerate with: npx graphql-codegen --config examples/partners/codegen.ts
    expect(fs.readFileSync(path.join(EXAMPLES, 'generated/graphql.ts'), 'utf8')).toBe(out!.content);
  });

  it('the client and its generated types compile with tsc', async () => {
    // A child process: a compile blocks its event loop for seconds.
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const r = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', path.join(EXAMPLES, 'tsconfig.json')]).catch(
      (err) => err,
    );
    expect(`${r.stdout}${r.stderr}`).toBe('');
  }, 120_000);

  it('runs every query through its typed method', async () => {
    const api = energyPlanClient(t.g.urls.certification!, t.keys.certification);
    expect((await api.utilities({ zipCode: '75001' })).utilities[0]!.ownership).toBe('IOU');
    const plans = (await api.residentialPlans({ zipCode: '75001', monthlyUsage: 1200, withFees: false })).residentialPlans;
    expect(plans.length).toBeGreaterThan(0);
    expect(plans[0]).not.toHaveProperty('fees');
    expect((await api.businessPlans({ zipCode: '77002', annualUsage: 150000 })).businessPlans.length).toBeGreaterThan(0);
    expect((await api.nextStartDate({ zipCode: '75201' })).nextStartDate?.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await api.energyInfoByState({ state: 'TX' })).energyInfoByState.generationMix.length).toBeGreaterThan(0);
    expect((await api.utilityAccounts({ address: '1500 Marilla St', zipCode: '75201' })).utilityAccounts[0]!.meterType).toBe('AMS');
  });
});

describe('retrying a 429', () => {
  it('the client waits out Retry-After and gets its answer', async () => {
    // A partner of its own with a quota of one request a second, no burst.
    const key = (await issueKey(path.join(t.dataDir, 'keys.json'), { environment: 'certification', partnerCode: 'RETRY' })).key;
    const partners = path.join(t.dataDir, 'partners.json');
    await savePartner(partners, { code: 'RETRY', name: 'Retry', contact: 'qa@retry.example' }, { actor: 'test' });
    await setQuota(partners, 'RETRY', 'certification', { requestsPerSecond: 1, burst: 1 }, { actor: 'test' });
    const raw = new GraphQLClient(t.g.urls.certification!, { headers: { 'x-api-key': key } });
    await eventually(
      async () => (await raw.rawRequest('{ __typename }').catch(() => null))?.headers.get('ratelimit-policy') === '"default";q=1;w=1',
    );
    const waits: number[] = [];
    const api = energyPlanClient(t.g.urls.certification!, key, { onRetry: (status, seconds) => waits.push(status, seconds) });
    await new Promise((r) => setTimeout(r, 1100));
    const answers = await Promise.all([api.utilities({ zipCode: '75001' }), api.utilities({ zipCode: '75001' })]);
    for (const a of answers) expect(a.utilities.length).toBeGreaterThan(0);
    expect(waits).toEqual([429, 1]);
  });
});

describe('curl examples', () => {
  const run = promisify(execFile);

  it.each([
    ['playground', undefined, PLAYGROUND_FILES.length],
    ['production', 'production', PLAYGROUND_FILES.length + KEYED_FILES.length],
  ] as const)('curl.sh on %s: every answer has data and no errors', async (env, keyEnv, count) => {
    const { stdout } = await run(path.join(EXAMPLES, 'curl.sh'), [t.g.urls[env]!], {
      env: { PATH: process.env.PATH, ...(keyEnv ? { ENERGY_PLAN_KEY: t.keys[keyEnv] } : {}) },
    });
    const answers = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(answers).toHaveLength(count);
    for (const a of answers) {
      expect(a.errors).toBeUndefined();
      expect(a.data).toBeTruthy();
    }
  });
});

describe('playground page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => browser?.close());

  it('opens with one tab per playground query of the collection', async () => {
    const page = await browser.newPage();
    // ~9 MB of inlined GraphiQL: wait for the tabs, not for every resource.
    await page.goto(t.g.urls.playground!, { waitUntil: 'domcontentloaded', timeout: 90_000 });
    const tabs = page.locator('.graphiql-tab');
    await tabs.first().waitFor({ timeout: 90_000 });
    expect(await tabs.count()).toBe(PLAYGROUND_FILES.length);
    const names = (await tabs.allTextContents()).map((s) => s.trim());
    for (const f of PLAYGROUND_FILES) expect(names.some((n) => n.includes(operationName(f)))).toBe(true);
    await page.close();
  }, 200_000);
});
