// `npm run feeds:check`: checks the feeds of a Mesh configuration the way the gateway will use them,
// for a deploy pipeline or after editing .meshrc.yaml.
//
//   1. configuration: builds the Mesh from <dir>/.meshrc.yaml exactly as the gateway does at start-up
//      (mesh/gateway-mesh.ts), which compiles every feed-mapping block and validates it against the schema
//      the handler generated from the feed's contract (JSON Schema / OpenAPI): unknown paths,
//      missing required canonical fields, unknown units... stop here with the feed and key named.
//   2. contract samples: a `sample.json` next to a contract (JSON Schema, or the OpenAPI
//      operation's 200 response schema) must match it; its values outside their plausible range
//      (domain/plausibility.ts) are warnings naming the field and the likely unit mistake.
//   3. one call per feed with its sample input (`sampleZip` / `sampleState` of its mapping block;
//      a utility-scoped feed once per choice territory of the sample ZIP), pages followed as the
//      gateway does, through the same source call and upstream fetch layer as the resolvers, then
//      the mapping: status, latency, records mapped, records rejected (with reasons as warnings),
//      values outside their plausible range and pages left out (maxPages, timeout) as warnings.
//      Offers that break a market rule of their territory's state (domain/market-rules.ts) are
//      listed as warnings (`noncompliant` in --json): the gateway drops them.
//
// Upstream: each feed's URL comes from <SOURCE>_URL, else UPSTREAM_URL, as in the gateway. When
// neither is set for some feed, the reference upstream is started on a free port for the check
// (--no-reference-upstream: use http://127.0.0.1:$UPSTREAM_PORT (4010) instead).
//
// Exit status: 0 all feeds ok (warnings allowed; --strict makes warnings fail), 1 a problem
// (configuration error, a feed failing or answering a payload that does not map), 2 usage error.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { CallableFeed, GatewayMesh } from '../mesh/gateway-mesh.js';
import type { UpstreamFetch } from '../sources/upstream/fetch.js';
import type { FeedScope } from '../sources/upstream/feed-scope.js';
import type { Doubt, FeedBinding, FeedInput, MappedPayload, Rejection } from '../transforms/mapping/types.js';
import type { ReferenceUpstream } from '../sources/reference-upstream/server.js';
import { UsageError } from './usage.js';
import { violations } from '../domain/market-rules.js';
import type { CanonicalOffer } from '../domain/canonical.js';
import { defaultPort } from '../lib/ports.js';
import { dropSystematic } from '../transforms/mapping/plausibility.js';
import { render, type CheckReport, type FeedCheck } from './feeds-check-render.js';
import { describeMistake, feedUnitMistakes, sampleInputs, type FeedUnitMistake } from '../mesh/unit-check.js';

/** The gateway's modules, loaded only once the arguments are good (--help and usage errors stay fast). */
async function gatewayModules() {
  const [config, mesh, api, fetch, scope, types, reference, paged, { contractSamples }] = await Promise.all([
    import('../server/config.js'),
    import('../mesh/gateway-mesh.js'),
    import('../resolvers/public-api.js'),
    import('../sources/upstream/fetch.js'),
    import('../sources/upstream/feed-scope.js'),
    import('../transforms/mapping/types.js'),
    import('../sources/reference-upstream/server.js'),
    import('../transforms/paged-call.js'),
    import('../transforms/contract-samples.js'),
  ]);
  return {
    feedUrlsFor: config.feedUrlsFor,
    feedKeysFor: config.feedKeysFor,
    loadGatewayMesh: mesh.loadGatewayMesh,
    publicApi: api.publicApi,
    MeshStartupError: mesh.MeshStartupError,
    createUpstreamFetch: fetch.createUpstreamFetch,
    withFeedScope: scope.withFeedScope,
    FeedConfigError: types.FeedConfigError,
    FeedPayloadError: types.FeedPayloadError,
    startReferenceUpstream: reference.startReferenceUpstream,
    callPaged: paged.callPaged,
    contractSamples,
  };
}
type Modules = Awaited<ReturnType<typeof gatewayModules>>;

const USAGE = `Usage: npm run feeds:check -- [options]

Builds the Mesh from <dir>/.meshrc.yaml (validating every feed mapping against its contract), then
calls each feed once with the sample input of its mapping block (sampleZip / sampleState) and maps
the answer. Prints: feed, kind, status, latency, records mapped, records rejected, warnings.

Options:
  --dir <path>              config directory holding .meshrc.yaml (default: MESH_DIR, else .)
  --json                    print one JSON object instead of the table
  --no-reference-upstream   never start the reference upstream; feeds without <SOURCE>_URL or
                            UPSTREAM_URL go to http://127.0.0.1:$UPSTREAM_PORT (default 4010, moved by PORT_BASE)
  --sample-address <text>   street address for premises feeds (default "1500 Marilla St")
  --strict                  warnings (rejected records, no records for a sample) fail too
  -h, --help                show this help

Upstream URLs: <SOURCE>_URL per feed (e.g. GRIDWISE_URL), else UPSTREAM_URL; without either the
reference upstream is started for the check.
Exit status: 0 ok, 1 a problem (config error, feed failure, unusable payload), 2 usage error.`;

const DEFAULT_SAMPLE_ADDRESS = '1500 Marilla St';
/** Rejection reasons listed per feed; the rest are counted. */
const MAX_LISTED_REJECTIONS = 3;

interface Options {
  dir: string;
  json: boolean;
  referenceUpstream: boolean;
  sampleAddress: string;
  strict: boolean;
  /** `<SOURCE>_API_KEY` per feed, as the gateway passes them (set once the feeds are known). */
  feedKeys?: Record<string, string>;
  /** Each offers feed's sample offers, for the unit check across feeds. */
  sampled?: Map<string, CanonicalOffer[]>;
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        dir: { type: 'string' },
        json: { type: 'boolean' },
        'no-reference-upstream': { type: 'boolean' },
        'sample-address': { type: 'string' },
        strict: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  const address = v['sample-address'] ?? DEFAULT_SAMPLE_ADDRESS;
  if (address.trim() === '') throw new UsageError('--sample-address must not be empty');
  return {
    dir: path.resolve(v.dir ?? env.MESH_DIR ?? '.'),
    json: v.json === true,
    referenceUpstream: v['no-reference-upstream'] !== true,
    sampleAddress: address,
    strict: v.strict === true,
  };
}

/** The reference upstream `npm start` runs (UPSTREAM_PORT, else its default moved by PORT_BASE). */
function runningUpstreamUrl(env: NodeJS.ProcessEnv): string {
  return `http://127.0.0.1:${env.UPSTREAM_PORT?.trim() || defaultPort('UPSTREAM_PORT', env)}`;
}

/** `<SOURCE>_URL` as server/config.ts names it. */
function urlVariable(source: string): string {
  return `${source.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_URL`;
}

function sampleInput(b: FeedBinding, opts: Options): { input: FeedInput } | { missing: string } {
  switch (b.kind) {
    case 'offers':
      return b.sampleZip ? { input: { zipCode: b.sampleZip, customerClass: 'RESIDENTIAL' } } : { missing: 'sampleZip' };
    case 'territories':
      return b.sampleZip ? { input: { zipCode: b.sampleZip } } : { missing: 'sampleZip' };
    case 'premises':
      return b.sampleZip ? { input: { zipCode: b.sampleZip, address: opts.sampleAddress } } : { missing: 'sampleZip' };
    case 'stateStats':
    case 'usageShape':
      return b.sampleState ? { input: { state: b.sampleState } } : { missing: 'sampleState' };
    default:
      return { missing: 'sampleZip' };
  }
}

/** The inputs of the sample calls: one, or for a utility-scoped feed one per choice territory of the sample ZIP. */
async function sampleCalls(b: FeedBinding, input: FeedInput, mesh: GatewayMesh, ctx: object): Promise<FeedInput[]> {
  const classes = customerClassesAsked(b, input);
  if (b.scope !== 'utility') return classes.map((customerClass) => ({ ...input, customerClass }));
  if (!mesh.feeds.byKind('territories')[0]?.execute) throw new Error('no territories feed to find the utilities of the sample ZIP');
  const utilities = await sampleInputs(b, input.zipCode!, mesh.feeds, ctx);
  return utilities.flatMap(({ utilityId }) => classes.map((customerClass) => ({ utilityId, customerClass })));
}

/**
 * The customer classes to ask an offers feed for, as the plan queries would: both when the class
 * reaches its arguments (residentialPlans and businessPlans then make different calls, e.g.
 * segment=res and segment=biz), one call otherwise (both classes come in one answer).
 */
function customerClassesAsked(b: FeedBinding, input: FeedInput): FeedInput['customerClass'][] {
  if (b.kind !== 'offers') return [input.customerClass];
  const asked = (customerClass: 'RESIDENTIAL' | 'COMMERCIAL') => JSON.stringify(b.args({ ...input, utilityId: 'SAMPLE', customerClass }));
  return asked('RESIDENTIAL') === asked('COMMERCIAL') ? [input.customerClass] : ['RESIDENTIAL', 'COMMERCIAL'];
}

/** Sample offers that break a market rule of their territory's state (the sample ZIP's territories say which state). */
async function noncompliantOffers(offers: CanonicalOffer[], input: FeedInput, mesh: GatewayMesh, ctx: object) {
  if (offers.length === 0) return [];
  const [territories] = mesh.feeds.byKind('territories');
  if (!territories?.execute) return null;
  const payload = await territories.execute(territories.args({ zipCode: input.zipCode }), ctx);
  const territoryOf = new Map(territories.map(payload).records.map((t) => [t.utilityId, t]));
  return offers.flatMap((o) => {
    const territory = territoryOf.get(o.utilityId);
    return territory === undefined
      ? []
      : violations(o, territory).map((v) => ({ offerId: o.offerId, rule: v.rule.id, source: v.rule.source, reason: v.reason }));
  });
}

function oneLine(s: string, max = 300): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** What went wrong with the HTTP exchange(s) of one call, from the fetch layer's record. */
function httpDetail(scope: FeedScope): string {
  const last = scope.calls[scope.calls.length - 1];
  if (!last) return '';
  const what = last.error ? last.error : last.status !== null ? `HTTP ${last.status}` : 'no answer';
  return ` (GET ${last.url}: ${what})`;
}

/** "utility X, CLASS: " before a record's message when the check made several calls, else "". */
function callLabel(b: FeedBinding, input: FeedInput, inputs: FeedInput[]): string {
  const perClass = inputs.some((x) => x.customerClass !== inputs[0]!.customerClass);
  return [b.scope === 'utility' ? `utility ${input.utilityId}` : '', perClass ? `${input.customerClass}` : '']
    .filter(Boolean)
    .map((w, i, all) => (i === all.length - 1 ? `${w}: ` : `${w}, `))
    .join('');
}

async function checkFeed(
  m: Modules,
  b: CallableFeed,
  mesh: GatewayMesh,
  feedUrls: Record<string, string>,
  opts: Options,
): Promise<FeedCheck> {
  const result: FeedCheck = {
    feed: b.source,
    kind: b.kind,
    operation: b.operation,
    status: 'FAIL',
    input: null,
    latencyMs: null,
    calls: null,
    pages: null,
    records: null,
    rejected: null,
    noncompliant: null,
    warnings: [],
    error: null,
  };
  const sample = sampleInput(b, opts);
  if ('missing' in sample) {
    result.error = `no ${sample.missing} in its feed-mapping block: set one so the feed can be called`;
    return result;
  }
  result.input = sample.input;
  const ctx: Record<string | symbol, unknown> = { ...mesh.meshContext, feedUrls, feedKeys: opts.feedKeys };
  const execute = b.execute;
  if (!execute) {
    result.error = `the source has no Query.${b.operation}`;
    return result;
  }
  const scope: FeedScope = { feed: b.source, timeoutMs: b.timeoutMs, calls: [], stale: [] };
  const started = performance.now();
  const outcome: { records: number; rejected: Rejection[]; doubts: Doubt[]; pages: number; truncated: string[] } = {
    records: 0,
    rejected: [],
    doubts: [],
    pages: 0,
    truncated: [],
  };
  let inputs: FeedInput[] = [];
  const offers: CanonicalOffer[] = [];
  try {
    inputs = await sampleCalls(b, sample.input, mesh, ctx);
    for (const input of inputs) {
      const r = await m.callPaged(b, input, (args, timeoutMs) =>
        guarded(execute(args, m.withFeedScope(ctx, { ...scope, timeoutMs })), timeoutMs + 2000),
      );
      const where = callLabel(b, input, inputs);
      outcome.records += r.records.length;
      if (b.kind === 'offers') offers.push(...(r.records as CanonicalOffer[]));
      outcome.pages += r.pages;
      outcome.rejected.push(...r.rejected.map((x) => ({ ...x, reason: where + x.reason })));
      outcome.doubts.push(...r.doubts.map((x) => ({ ...x, message: where + x.message })));
      if (r.truncated) outcome.truncated.push(where + r.truncated);
    }
  } catch (err) {
    result.latencyMs = Math.round(performance.now() - started);
    if (err instanceof m.FeedPayloadError) result.error = `unusable payload: ${oneLine(err.message)}`;
    else result.error = `the call failed: ${oneLine(err instanceof Error ? err.message : String(err))}${httpDetail(scope)}`;
    return result;
  }
  result.latencyMs = Math.round(performance.now() - started);
  result.calls = inputs.length;
  result.pages = outcome.pages;
  result.records = outcome.records;
  result.rejected = outcome.rejected.length;
  for (const r of outcome.rejected.slice(0, MAX_LISTED_REJECTIONS))
    result.warnings.push(`record ${r.index} rejected: ${oneLine(r.reason)}`);
  if (outcome.rejected.length > MAX_LISTED_REJECTIONS)
    result.warnings.push(`${outcome.rejected.length - MAX_LISTED_REJECTIONS} more records rejected`);
  for (const d of distinctDoubts(outcome.doubts)) result.warnings.push(`live value: record ${d.index}: ${oneLine(d.message)}`);
  for (const t of outcome.truncated) result.warnings.push(`pages left out: ${t}`);
  if (outcome.records === 0) {
    const what = sample.input.state ? `state ${sample.input.state}` : `ZIP ${sample.input.zipCode}`;
    result.warnings.push(
      inputs.length === 0
        ? `no choice territory serves the sample ${what}; pick another sampleZip`
        : `no records for the sample ${what}; pick a sample the feed has data for`,
    );
  }
  if (scope.stale?.length) result.warnings.push('answered from a stale copy (the feed failed)');
  if (b.kind === 'offers') {
    opts.sampled?.set(b.source, offers);
    result.noncompliant = await noncompliantOffers(offers, sample.input, mesh, ctx).catch(() => null);
    for (const n of result.noncompliant ?? [])
      result.warnings.push(`offer ${n.offerId} dropped by market rule ${n.rule}: ${n.reason} (${n.source})`);
  }
  const implausible = outcome.rejected.find((r) => r.implausible);
  if (implausible && outcome.records === 0) {
    result.error = `every record was dropped, e.g. ${oneLine(implausible.reason)}`;
    return result;
  }
  // A unit mistake across the answer fails as one that drops every record does (the gateway drops them alike).
  const systematic = outcome.rejected.find((r) => r.systematic);
  if (systematic) {
    result.error = `a unit mistake: ${oneLine(systematic.reason)}`;
    return result;
  }
  result.status = 'ok';
  return result;
}

/** A local server answering `/<feed>/…` with that feed's sample.json, so a sample goes through the feed's own source call. */
async function serveSamples(samples: Map<string, { files: string[] }>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const feed = decodeURIComponent((req.url ?? '/').split('/')[1] ?? '');
    const file = samples.get(feed)?.files[0];
    res.writeHead(file ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(file ? fs.readFileSync(file) : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A feed's sample, answered by its own source call and mapped: values outside their possible range
 * are problems, outside their plausible range warnings, each naming the field and the likely unit.
 */
async function checkSampleValues(
  m: Modules,
  b: CallableFeed,
  mesh: GatewayMesh,
  feedUrls: Record<string, string>,
  file: string,
  problems: string[],
  warnings: string[],
): Promise<void> {
  if (!b.execute) return;
  const input: FeedInput = { zipCode: b.sampleZip, state: b.sampleState, customerClass: 'RESIDENTIAL', utilityId: 'SAMPLE' };
  const shown = path.relative(process.cwd(), file) || file;
  const scope: FeedScope = { feed: b.source, timeoutMs: b.timeoutMs, calls: [], stale: [] };
  let mapped: MappedPayload<unknown>;
  try {
    const page = b.map(await b.execute(b.args(input), m.withFeedScope({ ...mesh.meshContext, feedUrls, feedKeys: {} }, scope)), input);
    // A mapped page is read-only (mapping/shared-mapping.ts): the check works on its own lists.
    mapped = { records: page.records, rejected: page.rejected, doubts: page.doubts, carriers: page.carriers };
    dropSystematic(mapped);
  } catch (err) {
    warnings.push(`${shown}: not mapped as the feed's answer: ${oneLine(err instanceof Error ? err.message : String(err))}`);
    return;
  }
  const seen = new Set<string>();
  for (const r of mapped.rejected) {
    if (!r.implausible || seen.has(r.implausible)) continue;
    seen.add(r.implausible);
    problems.push(`${shown}: record ${r.index}: ${r.reason}`);
  }
  for (const d of mapped.doubts) {
    if (seen.has(d.field)) continue;
    seen.add(d.field);
    warnings.push(`${shown}: record ${d.index}: ${oneLine(d.message)}`);
  }
}

/** The fetch layer enforces the feed's timeout; this only guards against a hang elsewhere. */
async function guarded<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** One warning per field and message shape: a feed off by a unit is off in every record. */
function distinctDoubts(doubts: Doubt[]): Doubt[] {
  const seen = new Set<string>();
  return doubts
    .filter((d) => {
      const k = `${d.field}\u0000${d.message.replace(/(?<![0-9.])[0-9.]+ (USD|months|percent)/, '')}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .slice(0, MAX_LISTED_REJECTIONS);
}

export async function runFeedsCheck(opts: Options, env: NodeJS.ProcessEnv): Promise<CheckReport> {
  const report: CheckReport = {
    ok: false,
    dir: opts.dir,
    configError: null,
    upstream: { referenceStarted: false, fallbackUrl: null },
    feeds: [],
    summary: { feeds: 0, ok: 0, failed: 0, warnings: 0 },
  };
  const m = await gatewayModules();
  let fetchFn: UpstreamFetch | undefined;
  let mesh: GatewayMesh | undefined;
  let upstream: ReferenceUpstream | undefined;
  try {
    try {
      fetchFn = m.createUpstreamFetch({ env });
      if (!fs.existsSync(path.join(opts.dir, '.meshrc.yaml'))) throw new m.MeshStartupError(`no .meshrc.yaml in ${opts.dir}`);
      mesh = await m.loadGatewayMesh({ dir: opts.dir, fetchFn, logLevel: 'silent', api: m.publicApi });
    } catch (err) {
      if (err instanceof m.MeshStartupError || err instanceof m.FeedConfigError || (err as Error)?.name === 'ConfigError') {
        report.configError = oneLine((err as Error).message, 2000);
        return report;
      }
      throw err;
    }
    const bindings = mesh.feeds.all;
    const sources = bindings.map((b) => b.source);
    const needsFallback = sources.some((s) => !env[urlVariable(s)]);
    let fallback = env.UPSTREAM_URL?.trim() || '';
    if (!fallback && needsFallback) {
      if (opts.referenceUpstream) {
        upstream = await m.startReferenceUpstream({ port: 0, host: '127.0.0.1', loadZipDatabase: true });
        fallback = upstream.url;
        report.upstream.referenceStarted = true;
      } else {
        fallback = runningUpstreamUrl(env);
      }
    }
    report.upstream.fallbackUrl = fallback || null;
    const feedUrls = m.feedUrlsFor('production', sources, env, fallback);
    const samples = await m.contractSamples(opts.dir, bindings);
    const served = await serveSamples(samples);
    const sampled = new Map<string, CanonicalOffer[]>();
    try {
      for (const b of bindings) {
        const check = await checkFeed(m, b, mesh, feedUrls, { ...opts, feedKeys: m.feedKeysFor(sources, env), sampled });
        const contract = samples.get(b.source);
        const problems = [...(contract?.problems ?? [])];
        if (contract?.files.length)
          await checkSampleValues(
            m,
            b,
            mesh,
            { ...feedUrls, [b.source]: `${served.url}/${b.source}` },
            contract.files[0]!,
            problems,
            check.warnings,
          );
        if (problems.length) {
          check.status = 'FAIL';
          check.error = [check.error, ...problems.map((p) => oneLine(p))].filter(Boolean).join('; ');
        }
        report.feeds.push(check);
      }
    } finally {
      await served.close();
    }
    // A unit mistake shows against the other feeds: it fails like one inside a feed (a production start refuses it).
    failUnitMistakes(report.feeds, feedUnitMistakes(mesh.feeds, sampled, path.join(opts.dir, '.meshrc.yaml')));
    report.summary = summarize(report.feeds);
    const { warnings, failed } = report.summary;
    report.ok = failed === 0 && !(opts.strict && warnings > 0);
    return report;
  } finally {
    try {
      mesh?.close();
    } catch {
      // closing is best effort
    }
    await fetchFn?.close().catch(() => {});
    await upstream?.close().catch(() => {});
  }
}

/** A unit mistake across feeds fails the feed's row, or warns when its block says `unitCheck: serve-anyway`. */
function failUnitMistakes(feeds: FeedCheck[], mistakes: FeedUnitMistake[]): void {
  for (const mistake of mistakes) {
    const check = feeds.find((f) => f.feed === mistake.feed && f.kind === 'offers');
    if (!check) continue;
    if (mistake.serveAnyway) check.warnings.push(`${describeMistake(mistake)} (unitCheck: serve-anyway: served)`);
    else {
      check.status = 'FAIL';
      check.error = [check.error, describeMistake(mistake)].filter(Boolean).join('; ');
    }
  }
}

/** Counts per feed (source): one with several mapping blocks has a row per block and is ok when every row is. */
function summarize(feeds: FeedCheck[]): CheckReport['summary'] {
  const warnings = feeds.reduce((n, f) => n + f.warnings.length, 0);
  const sourceOk = new Map<string, boolean>();
  for (const f of feeds) sourceOk.set(f.feed, (sourceOk.get(f.feed) ?? true) && f.status === 'ok');
  const failed = [...sourceOk.values()].filter((ok) => !ok).length;
  return { feeds: sourceOk.size, ok: sourceOk.size - failed, failed, warnings };
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let opts: Options | 'help';
  try {
    opts = parseOptions(argv, env);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`feeds:check: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
  if (opts === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const report = await runFeedsCheck(opts, env);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const { out, err } = render(report, opts.strict);
    if (out) process.stdout.write(out);
    if (err) process.stderr.write(err);
  }
  return report.ok ? 0 : 1;
}

main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`feeds:check failed: ${oneLine(err instanceof Error ? err.message : String(err), 2000)}\n`);
    process.exit(1);
  },
);
