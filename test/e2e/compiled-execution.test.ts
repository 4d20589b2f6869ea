// Operations run on graphql-js the first time and compiled (graphql-jit) from the second run on
// (server/graphql/execute.ts): the partner must not see any difference, for answers or errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { executionsByEngine } from '../../server/graphql/execute.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ CACHE_ENABLED: 'false' });
});
afterAll(async () => t?.close());

const CASES: [string, string, Record<string, unknown> | undefined][] = [
  [
    'plans with every field',
    `query P($z: String!, $u: Int) { residentialPlans(zipCode: $z, monthlyUsage: $u) {
      title price term rateType supplier { name } rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd } headlessEnrollmentUrl } }`,
    { z: '19103', u: 1200 },
  ],
  [
    'several root fields and aliases',
    `{ a: utilities(zipCode: "75001") { id name } b: utilities(zipCode: "77002") { id }
      nextStartDate(zipCode: "75001") { date } energyInfoByState(state: "TX") { state generationMix { source percent } } }`,
    undefined,
  ],
  [
    'business plans',
    '{ businessPlans(zipCode: "60601", annualUsage: 120000) { title estimatedAnnualCostUsd rates { usageKwh avgMonthlyBillUsd } } }',
    undefined,
  ],
  ['an argument the resolver refuses', '{ residentialPlans(zipCode: "7500", monthlyUsage: 1000) { title } }', undefined],
  ['a missing variable', 'query P($z: String!) { utilities(zipCode: $z) { id } }', {}],
  ['a variable of the wrong type', 'query P($u: Int) { residentialPlans(zipCode: "75001", monthlyUsage: $u) { title } }', { u: 'lots' }],
  [
    'a ZIP nobody serves, next to one served',
    '{ x: residentialPlans(zipCode: "99999") { title } y: utilities(zipCode: "75001") { id } }',
    undefined,
  ],
  [
    '@include / @skip with variables and a default value',
    `query P($z: String = "75001", $withRates: Boolean!, $noSupplier: Boolean = true) {
      residentialPlans(zipCode: $z) { title rates @include(if: $withRates) { usageKwh } supplier @skip(if: $noSupplier) { name } } }`,
    { withRates: true },
  ],
  [
    'an inline fragment and a null variable for an optional argument',
    'query P($u: Int) { residentialPlans(zipCode: "77002", monthlyUsage: $u) { ... on Plan { title price } } }',
    { u: null },
  ],
  [
    'fragments and __typename inside',
    'fragment F on Plan { title __typename } { residentialPlans(zipCode: "75001") { ...F supplier { __typename name } } }',
    undefined,
  ],
];

describe('compiled execution answers exactly like graphql-js', () => {
  it('the first run of a document is on graphql-js, later ones compiled', async () => {
    const q = '{ utilities(zipCode: "77002") { id name state } }';
    const before = { ...executionsByEngine };
    await t.post('production', q);
    expect(executionsByEngine).toEqual({ compiled: before.compiled, graphqlJs: before.graphqlJs + 1 });
    await t.post('production', q);
    await t.post('production', q);
    expect(executionsByEngine).toEqual({ compiled: before.compiled + 2, graphqlJs: before.graphqlJs + 1 });
  });

  it.each(CASES)('%s', async (_name, query, variables) => {
    const first = await t.post('production', query, variables);
    const second = await t.post('production', query, variables);
    const compiledBefore = executionsByEngine.compiled;
    const third = await t.post('production', query, variables);
    // A document that reaches execution runs compiled from its second run on.
    if (first.json?.data !== undefined) expect(executionsByEngine.compiled, 'the third run was compiled').toBe(compiledBefore + 1);
    expect(first.status).toBe(second.status);
    expect(second.text).toBe(first.text);
    expect(third.text).toBe(first.text);
  });
});

describe("Mesh's stitching", () => {
  it('walks no answer for types it has nothing to merge with', () => {
    // Every type of the unified schema was listed as merged, with no key nor resolver, so each
    // object of every answer went through stitching's result walk for nothing (mesh/gateway-mesh.ts).
    const info = t.g.mesh.mesh.schema.extensions?.stitchingInfo as {
      mergedTypes: Record<string, { selectionSets: Map<unknown, unknown> }>;
    };
    const empty = Object.entries(info.mergedTypes).filter(([, m]) => !m.selectionSets?.size);
    expect(empty.map(([name]) => name)).toEqual([]);
    expect(t.g.mesh.schemas.keyed.getType('Plan')).toBeDefined();
  });
});
