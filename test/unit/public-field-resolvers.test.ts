// The public types' fields are resolved by resolvers/index.ts alone (mesh/public-field-resolvers.ts):
// a field without a resolver of ours has none, and is read as a property by the compiled query, so
// no record may hold a function under a field name without a resolver naming it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphQLObjectType, GraphQLSchema } from 'graphql';
import { loadGatewayMesh, type GatewayMesh } from '../../mesh/gateway-mesh.js';
import { publicApi } from '../../resolvers/public-api.js';
import { resolvers } from '../../resolvers/index.js';
import { businessPlan, residentialPlan } from '../../resolvers/plans.js';
import { utility } from '../../resolvers/utility.js';
import type { Territory } from '../../domain/canonical.js';
import { offer as testOffer } from '../support/offer.js';
import type { ResolverSettings } from '../../resolvers/context.js';
import { ROOT, writeMeshDir } from '../support/mesh-dir.js';

const offer = testOffer();
const delivery = { fixedMonthlyMicro: 4230000, perKwhMicro: 51893 };
const territory = {
  utilityId: 'ONCOR',
  name: 'Oncor',
  state: 'TX',
  timeZone: 'America/Chicago',
  market: 'DEREGULATED',
  ownership: 'IOU',
  delivery,
  commercialDelivery: delivery,
  bundledRate: null,
  priceToCompare: null,
} as unknown as Territory;
const settings: ResolverSettings = { enrollmentBaseUrl: 'https://example.test/enroll', fillPartnerRef: false, utmSource: 'x' };

const fieldsOf = (schema: GraphQLSchema, type: string) => (schema.getType(type) as GraphQLObjectType).getFields();

describe('public fields resolved by our resolvers alone', () => {
  let mesh: GatewayMesh;
  beforeAll(async () => {
    mesh = await loadGatewayMesh({ dir: ROOT, fetchFn: fetch as never, api: publicApi });
  });
  afterAll(() => mesh?.close());

  it('a field we wrote a resolver for has ours, unwrapped; any other has none', () => {
    for (const schema of [mesh.schemas.keyed, mesh.schemas.playground]) {
      expect(fieldsOf(schema, 'Query').residentialPlans!.resolve).toBe(resolvers.Query.residentialPlans);
      expect(fieldsOf(schema, 'Plan').fees!.resolve).toBe(resolvers.Plan.fees);
      expect(fieldsOf(schema, 'Utility').ownership!.resolve).toBe(resolvers.Utility.ownership);
      for (const [type, field] of [
        ['Plan', 'title'],
        ['Plan', 'supplier'],
        ['PlanFees', 'usageCredits'],
        ['AnnualCost', 'months'],
        ['StateEnergyInfo', 'generationMix'],
      ] as const)
        expect(fieldsOf(schema, type)[field]!.resolve, `${type}.${field}`).toBeUndefined();
    }
  });

  it('every field a record holds as a function has a resolver', () => {
    const records: [string, Record<string, unknown>][] = [
      ['Plan', residentialPlan(offer, delivery, '75001', 1000, settings, null)],
      ['BusinessPlan', businessPlan(offer, delivery, 60000)],
      ['Utility', utility({ now: () => new Date('2026-11-27T12:00:00Z') } as never, territory)],
    ];
    for (const [type, record] of records) {
      const fields = fieldsOf(mesh.schemas.keyed, type);
      for (const [key, value] of Object.entries(record))
        if (typeof value === 'function') expect(fields[key]?.resolve, `${type}.${key}`).toBeTypeOf('function');
    }
  });
});

describe('resolvers Mesh wraps in more than ours', () => {
  let mesh: GatewayMesh | undefined;
  afterAll(() => mesh?.close());

  it('another additional resolvers file leaves the fields resolved as Mesh set them', async () => {
    const dir = writeMeshDir((config, folder) => {
      fs.writeFileSync(path.join(folder, 'extra.mjs'), 'export const resolvers = { Supplier: { name: (s) => s.name } };\n');
      config.additionalResolvers = [...(config.additionalResolvers as string[]), path.join(folder, 'extra.mjs')];
    });
    mesh = await loadGatewayMesh({ dir, fetchFn: fetch as never, api: publicApi });
    expect(fieldsOf(mesh.schemas.keyed, 'Plan').title!.resolve).toBeTypeOf('function');
    expect(fieldsOf(mesh.schemas.keyed, 'Query').residentialPlans!.resolve).not.toBe(resolvers.Query.residentialPlans);
  });
});
