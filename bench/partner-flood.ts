// The partner isolation rows' runaway partner (bench/partner-isolation.ts), a process of its own:
// CONNECTIONS connections of uncached plan queries with one partner's key, each request a new
// monthlyUsage (a loop gone wrong), as fast as the answers come.
//
// Environment: URL, KEY, CONNECTIONS, DURATION (s). Prints `RESULT {json}` at the end: requests,
// latency, status code counts.
import autocannon from 'autocannon';

const QUERY =
  'query Runaway($u: Int!) { residentialPlans(zipCode: "75001", monthlyUsage: $u) { id title rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd } } }';
const url = process.env.URL ?? 'http://127.0.0.1:4000/graphql';
const headers = { 'content-type': 'application/json', 'x-api-key': process.env.KEY ?? '' };
// monthlyUsage 1-100000: a different question (a cache miss) for the first 100,000 requests.
let n = Math.floor(Math.random() * 50_000);
const result = await autocannon({
  url,
  connections: Number(process.env.CONNECTIONS ?? 64),
  duration: Number(process.env.DURATION ?? 10),
  timeout: 10,
  requests: [
    {
      method: 'POST',
      path: new URL(url).pathname,
      headers,
      setupRequest: (req) => ({ ...req, headers, body: JSON.stringify({ query: QUERY, variables: { u: (n++ % 100_000) + 1 } }) }),
    },
  ],
});
const { requests, latency, errors, timeouts, statusCodeStats, duration } = result;
process.stdout.write(`RESULT ${JSON.stringify({ requests, latency, errors, timeouts, statusCodeStats, duration })}\n`);
