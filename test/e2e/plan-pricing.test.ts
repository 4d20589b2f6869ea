// Prices a partner can reproduce, end to end: every tier of every plan the gateway answers at ZIPs
// of every choice state is recomputed from the published fields alone (test/support/recompute.ts,
// the formula of docs/partners.md) and must match to the micro-dollar; the monthly usage added as
// a tier is drawn by fast-check.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { recomputedTiers, type PublishedPlan } from '../support/recompute.js';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway({ CACHE_ENABLED: 'false' });
});
afterAll(async () => t?.close());

const PLANS = `query ($zip: String!, $usage: Int) {
  residentialPlans(zipCode: $zip, monthlyUsage: $usage) {
    id rateType
    pricing { energyBlocks { fromKwh toKwh usdPerKwh } delivery { fixedMonthlyUsd perKwhUsd } }
    fees { baseMonthlyUsd minimumUsageFeeUsd minimumUsageKwh usageCredits { minKwh maxKwh creditUsd } }
    rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd }
  }
}`;

// Texas (tiered plans, credits, minimum-usage fees), Pennsylvania, Ohio, Illinois, New York, New Jersey,
// Maryland, Massachusetts, Connecticut, New Hampshire, DC, Delaware, Maine.
const ZIPS = ['75001', '77002', '19103', '43215', '60601', '10001', '07102', '21201', '02108', '06103', '03101', '20001', '19801', '04101'];

describe('every tier of every plan, recomputed from the published fields', () => {
  it('matches at the default tiers and at a drawn monthly usage', async () => {
    let tiers = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ZIPS), fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: null }), async (zip, usage) => {
        const r = await t.post('production', PLANS, { zip, usage });
        expect(r.json.errors, JSON.stringify(r.json.errors)).toBeUndefined();
        const plans = r.json.data.residentialPlans as (PublishedPlan & { id: string })[];
        expect(plans.length, zip).toBeGreaterThan(0);
        for (const p of plans.filter((x) => x.rateType !== 'TIME_OF_USE')) {
          expect(p.rates, `${zip} ${p.id}`).toEqual(recomputedTiers(p));
          tiers += p.rates.length;
        }
      }),
      { numRuns: 40 },
    );
    expect(tiers).toBeGreaterThan(1000);
  }, 120_000);
});
