// A typed client for the energy plan API: graphql-request plus the TypedDocumentNodes GraphQL Code
// Generator makes from queries/*.graphql (generated/graphql.ts; config: codegen.ts). Results and
// variables are typed from the schema, so a renamed field fails `tsc`, not production.
//
// Run it:  ENERGY_PLAN_KEY=epk_cert_... npx tsx examples/partners/client.ts
//   ENERGY_PLAN_KEY  API key for production or certification (keep it server-side; none on the playground)
//   ENERGY_PLAN_URL  endpoint (default: with a key the local certification, http://127.0.0.1:4001/graphql,
//                    without one the local playground, :4002, where each query is a counted call; both
//                    follow PORT_BASE as npm start does)
import { ClientError, GraphQLClient } from 'graphql-request';
import {
  BusinessPlansDocument,
  EnergyInfoByStateDocument,
  NextStartDateDocument,
  ResidentialPlansDocument,
  UtilitiesDocument,
  UtilityAccountsDocument,
  type BusinessPlansQueryVariables,
  type EnergyInfoByStateQueryVariables,
  type NextStartDateQueryVariables,
  type ResidentialPlansQueryVariables,
  type UtilitiesQueryVariables,
  type UtilityAccountsQueryVariables,
} from './generated/graphql.js';
import { retryingFetch, type RetryOptions } from './retry.js';

/** A 429 or 503 is retried after its Retry-After seconds (retry.ts; `retry` tunes it). */
export function energyPlanClient(endpoint: string, apiKey?: string, retry?: RetryOptions) {
  const client = new GraphQLClient(endpoint, { headers: apiKey ? { 'x-api-key': apiKey } : {}, fetch: retryingFetch(retry) });
  return {
    utilities: (v: UtilitiesQueryVariables) => client.request(UtilitiesDocument, v),
    residentialPlans: (v: ResidentialPlansQueryVariables) => client.request(ResidentialPlansDocument, v),
    businessPlans: (v: BusinessPlansQueryVariables) => client.request(BusinessPlansDocument, v),
    nextStartDate: (v: NextStartDateQueryVariables) => client.request(NextStartDateDocument, v),
    energyInfoByState: (v: EnergyInfoByStateQueryVariables) => client.request(EnergyInfoByStateDocument, v),
    /** Production and certification only. */
    utilityAccounts: (v: UtilityAccountsQueryVariables) => client.request(UtilityAccountsDocument, v),
  };
}

/** Money arrives as a Float with stated decimals: compare and add it as integer cents. */
export const cents = (usd: number): number => Math.round(usd * 100);

async function main() {
  const key = process.env.ENERGY_PLAN_KEY;
  const base = Number(process.env.PORT_BASE || 4000);
  const api = energyPlanClient(process.env.ENERGY_PLAN_URL ?? `http://127.0.0.1:${base + (key ? 1 : 2)}/graphql`, key);
  try {
    const { utilities } = await api.utilities({ zipCode: '75001' });
    console.log('utilities:', utilities.map((u) => `${u.id} (${u.market}, ${u.ownership})`).join(', '));
    const { residentialPlans } = await api.residentialPlans({ zipCode: '75001', monthlyUsage: 1200 });
    const cheapest = residentialPlans[0];
    const tier = cheapest?.rates.find((r) => r.usageKwh === 1200);
    if (cheapest && tier)
      console.log(
        `cheapest at 1200 kWh: ${cheapest.title} by ${cheapest.supplier.name}, $${(cents(tier.avgMonthlyBillUsd) / 100).toFixed(2)} a month`,
      );
    const start = await api.nextStartDate({ zipCode: '75001' });
    console.log('earliest start:', start.nextStartDate?.date ?? 'no retail choice here');
  } catch (err) {
    // GraphQL errors (HTTP 200 with `errors`) and HTTP errors (403, 429...) both arrive as ClientError.
    if (err instanceof ClientError) {
      console.error(`HTTP ${err.response.status}:`, err.response.errors?.map((e) => e.message).join('; '));
      process.exitCode = 1;
      return;
    }
    throw err;
  }
}

if (process.argv[1]?.endsWith('client.ts')) void main();
