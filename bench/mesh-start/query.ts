// Bench-only: the request the `mesh` scenario sends to the stock `mesh start` server, and the checks
// made before loading it.
//
// The same upstream calls as keyed residentialPlans for a ZIP (see bench/direct-proxy.ts):
// territories for the ZIP, Voltify offers (ZIP, residential) and Brightgrid plans (ZIP, segment RES),
// as the raw source root fields, selecting every leaf the gateway's feed mapping reads
// (.meshrc.yaml, `fields:` of each source). Stock Mesh resolves the three root fields in parallel;
// the gateway reads the territory first, then both offer feeds in parallel.
import { withoutTrailing } from '../../lib/trailing.js';

export const MESH_QUERY = `query MeshPlans($zip: String!) {
  territoriesByZip(zip: $zip) {
    zip
    utilities {
      utilityId name state timeZone market ownership
      delivery { effective residential { fixedMonthlyUsd perKwhUsd } commercial { fixedMonthlyUsd perKwhUsd } }
      bundledRate { fixedMonthlyUsd perKwhUsd effective } priceToCompare { usdPerKwh effective expires }
      switching { kind leadBusinessDays meterReadCycleDays meterReadAnchorDate meterReadDates sameDayCutoff }
      calendar { name holidays { name rule } } holidays
    }
  }
  listOffers(zip: $zip, class: residential) {
    __typename
    ... on VoltifyOffersResponse {
      offers {
        offerId supplierName productName customerClass utilityCode rateStructure termMonths
        energyChargeCentsPerKwh { fromKwh toKwh cents }
        baseChargeUsdPerMonth usageCredits { minKwh creditUsd } minimumUsage { belowKwh feeUsd }
        renewablePercent cancellationFeeUsd enrollmentFeeUsd
      }
    }
    ... on VoltifyError { error }
  }
  brightgridPlans(zip: $zip, segment: "RES") {
    data {
      plans {
        id provider { displayName } name segment territory contract { lengthMonths type }
        pricing { components { kind amount tierMinKwh tierMaxKwh thresholdKwh } }
        green { percent } fees { earlyTermination enrollment }
      }
    }
  }
}`.replace(/\s+/g, ' ');

/** The request body; `n`, a variable the query does not declare, makes a response cache miss (bench/run/scenarios/peers.ts). */
export const meshBody = (zip: string, n?: number) =>
  JSON.stringify({ query: MESH_QUERY, variables: n === undefined ? { zip } : { zip, n }, operationName: 'MeshPlans' });

/** The upstream URLs those three root fields must call (identical to bench/direct-proxy.ts). */
export function expectedUpstreamCalls(upstreamUrl: string, zip: string): Record<string, { feed: string; url: string }> {
  const u = withoutTrailing(upstreamUrl, '/');
  return {
    territoriesByZip: { feed: 'territories', url: `${u}/territories/v1/zip/${zip}` },
    listOffers: { feed: 'voltify', url: `${u}/voltify/api/v2/offers?zip=${zip}&class=residential` },
    brightgridPlans: { feed: 'brightgrid', url: `${u}/brightgrid/v1/plans/${zip}?segment=RES` },
  };
}

interface GraphQLAnswer {
  data?: {
    territoriesByZip?: { utilities?: unknown[] } | null;
    listOffers?: { __typename?: string; offers?: unknown[]; error?: string } | null;
    brightgridPlans?: { data?: { plans?: unknown[] } } | null;
  } | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: { request?: { url?: string } } }[];
}

async function ask(meshUrl: string, body: string): Promise<{ status: number; bytes: number; json: GraphQLAnswer }> {
  const res = await fetch(meshUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: GraphQLAnswer;
  try {
    json = JSON.parse(text) as GraphQLAnswer;
  } catch {
    throw new Error(`mesh answered ${res.status} with a body that is not JSON: ${text.slice(0, 300)}`);
  }
  return { status: res.status, bytes: Buffer.byteLength(text), json };
}

/** One request: HTTP 200, no errors, utilities and offers from both supplier feeds. */
export async function checkMeshAnswer(
  meshUrl: string,
  zip: string,
  body = meshBody(zip),
): Promise<{ bytes: number; utilities: number; voltifyOffers: number; brightgridPlans: number }> {
  const { status, bytes, json } = await ask(meshUrl, body);
  if (status !== 200 || json.errors?.length)
    throw new Error(`mesh answer: HTTP ${status}, errors ${JSON.stringify(json.errors ?? []).slice(0, 500)}`);
  const d = json.data;
  const counts = {
    bytes,
    utilities: d?.territoriesByZip?.utilities?.length ?? 0,
    voltifyOffers: d?.listOffers?.__typename === 'VoltifyOffersResponse' ? (d.listOffers.offers?.length ?? 0) : 0,
    brightgridPlans: d?.brightgridPlans?.data?.plans?.length ?? 0,
  };
  if (!counts.utilities || !counts.voltifyOffers || !counts.brightgridPlans)
    throw new Error(`mesh answer lacks data for ${zip}: ${JSON.stringify(counts)} (listOffers: ${d?.listOffers?.__typename})`);
  return counts;
}

/**
 * Proves each root field calls its feed on every request (no HTTP cache in between, although the
 * feeds answer `Cache-Control: max-age`): right after a good answer, a 503 fault injected on one feed
 * of the reference upstream (its /__faults control endpoint) must turn that field, and only that
 * one, into an error, whose extensions name the exact upstream URL Mesh called. Faults are cleared
 * afterwards whatever happens. Returns the URLs seen. `body`: each request's (a server with a
 * response cache is sent a new `n` each time).
 */
export async function checkMeshHitsUpstream(
  meshUrl: string,
  upstreamUrl: string,
  zip: string,
  body: () => string = () => meshBody(zip),
): Promise<Record<string, string>> {
  const expected = expectedUpstreamCalls(upstreamUrl, zip);
  const control = `${withoutTrailing(upstreamUrl, '/')}/__faults`;
  const seen: Record<string, string> = {};
  try {
    for (const [field, { feed, url }] of Object.entries(expected)) {
      await checkMeshAnswer(meshUrl, zip, body());
      await injectFault(control, feed);
      const { json } = await ask(meshUrl, body());
      const failed = (json.errors ?? []).filter((e) => e.path?.[0] !== undefined);
      if (failed.length !== 1 || failed[0]!.path![0] !== field) {
        throw new Error(
          `with ${feed} failing, expected one error on ${field}, got ${JSON.stringify((json.errors ?? []).map((e) => e.path))}`,
        );
      }
      const called = failed[0]!.extensions?.request?.url;
      if (called !== undefined && called !== url) throw new Error(`${field} called ${called}, expected ${url}`);
      seen[field] = called ?? '(url not reported)';
      await (await fetch(control, { method: 'DELETE' })).arrayBuffer();
    }
  } finally {
    await clearFaults(control);
  }
  await checkMeshAnswer(meshUrl, zip, body());
  return seen;
}

const clearFaults = (control: string) =>
  fetch(control, { method: 'DELETE' })
    .then((r) => r.arrayBuffer())
    .catch(() => {});

/** Makes `feed` of the reference upstream answer 503 until its faults are cleared. */
async function injectFault(control: string, feed: string): Promise<void> {
  const set = await fetch(`${control}/${feed}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'status', status: 503 }),
  });
  await set.arrayBuffer();
  if (set.status !== 200) throw new Error(`could not inject a fault on ${feed}: HTTP ${set.status}`);
}

/**
 * Proves a repeated request is answered from the server's response cache: with every feed of the
 * three failing, it still gets a complete answer. Faults are cleared afterwards whatever happens.
 */
export async function checkMeshCacheHit(meshUrl: string, upstreamUrl: string, zip: string): Promise<void> {
  const control = `${withoutTrailing(upstreamUrl, '/')}/__faults`;
  await checkMeshAnswer(meshUrl, zip);
  try {
    for (const { feed } of Object.values(expectedUpstreamCalls(upstreamUrl, zip))) await injectFault(control, feed);
    await checkMeshAnswer(meshUrl, zip);
  } finally {
    await clearFaults(control);
  }
}
