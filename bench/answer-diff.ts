// Compares the answers of two checkouts' bundled gateways byte for byte: both started as `npm start`
// runs them (their own package.json flags), with the response cache off, on one reference upstream,
// asked the same queries. What a change must leave alone, checked without reading the code:
//
//   npx tsx bench/answer-diff.ts --a /path/to/main-checkout [--b DIR] [--concurrency 8]
//
// Each checkout needs `npm ci` and `npm run build`. --b is this checkout by default. The queries:
// every public root field with every field selectable without arguments (nested types
// included) over the reference upstream's ZIP codes (one a 3-digit area and utility set, every
// overriding ZIP) plus unknown and malformed ones, and six states (malformed included); per ZIP, eight
// more: usageProfile and annualUsageKwh with annualCost, aliases, fragments and __typename,
// deliveryCharges for both customer classes and on a date, @include/@skip, refused arguments (both
// usages, a short profile, an unknown utilityId, an unknown meter-read cycle, a date too far
// ahead) and businessPlans with fees and credits. The queries of one ZIP are sent together, so
// feed calls of one gateway coincide and share exchanges, as under load. Exits 1 on a difference,
// printing the first ones.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildSchema,
  getNamedType,
  isInterfaceType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { freePort } from '../scripts/harness/redis-server.js';
import { issueKey } from '../stores/key-store.js';
import { premisesInZip } from '../sources/reference-upstream/data/premises.js';
import { utilityIdsForZip } from '../sources/reference-upstream/data/zips.js';
import { startRuntime } from './start-runtime.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const a = flag('a');
if (!a) {
  console.error('answer-diff: --a DIR (a checkout with npm ci and npm run build done) is required');
  process.exit(2);
}
const roots = { a: path.resolve(a), b: path.resolve(flag('b') ?? ROOT) };
const concurrency = Number(flag('concurrency') ?? 8);
for (const dir of Object.values(roots))
  if (!fs.existsSync(path.join(dir, 'dist', 'gateway.mjs'))) {
    console.error(`answer-diff: ${dir} has no dist/gateway.mjs (run npm run build there)`);
    process.exit(2);
  }

// ------------------------------------------------------------------------------------------ queries

/** Every field of `type` selectable without arguments, nested (interfaces and unions by member). */
function selection(schema: GraphQLSchema, type: GraphQLNamedType, depth = 0): string {
  if (isUnionType(type) || isInterfaceType(type)) {
    const members = isUnionType(type) ? type.getTypes() : schema.getPossibleTypes(type);
    return `{ __typename ${members.map((m) => `... on ${m.name} ${selection(schema, m, depth + 1)}`).join(' ')} }`;
  }
  if (!isObjectType(type)) return '';
  const fields = Object.values(type.getFields())
    .filter((f) => !f.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined))
    .map((f) => {
      const named = getNamedType(f.type);
      return isObjectType(named) || isUnionType(named) || isInterfaceType(named)
        ? `${f.name} ${selection(schema, named, depth + 1)}`
        : f.name;
    });
  return `{ ${fields.join(' ')} }`;
}

interface Query {
  query: string;
  variables?: Record<string, unknown>;
}

const PROFILE = [800, 800, 750, 800, 1100, 1600, 2000, 2100, 1700, 1100, 800, 800];

/** One 5-digit ZIP per area and set of utilities, in order: each 3-digit area's first and every overriding ZIP. */
async function referenceZips(): Promise<string[]> {
  const seen = new Set<string>();
  const out: string[] = [];
  for (let n = 0; n < 100_000; n++) {
    const zip = String(n).padStart(5, '0');
    const ids = await utilityIdsForZip(zip);
    if (!ids.length) continue;
    const area = `${zip.slice(0, 3)}:${ids.join(',')}`;
    if (seen.has(area)) continue;
    seen.add(area);
    out.push(zip);
  }
  return out;
}

async function queriesOf(schema: GraphQLSchema): Promise<{ zip: string; queries: Query[] }[]> {
  const q = schema.getQueryType()!.getFields();
  const all = (field: string) => selection(schema, getNamedType(q[field]!.type));
  const plan = all('residentialPlans');
  const fees = selection(schema, getNamedType((schema.getType('BusinessPlan') as GraphQLObjectType).getFields().fees!.type));
  const zips = [...(await referenceZips()), '00000', '99999', '7500', 'abcde', '75001-1234', ''];
  const states = ['TX', 'pa', 'NY', 'DC', 'ZZ', 'T1'];
  const premises = await Promise.all(zips.map((zip) => premisesInZip(zip)));
  const groups = zips.map((zip, i) => {
    const address = premises[i]![0]?.serviceAddress.line1 ?? '1 MAIN ST';
    const queries: Query[] = [
      { query: `query($z: String!) { utilities(zipCode: $z) ${all('utilities')} }`, variables: { z: zip } },
      { query: `query($z: String!) { residentialPlans(zipCode: $z) ${plan} }`, variables: { z: zip } },
      { query: `query($z: String!) { businessPlans(zipCode: $z, annualUsage: 30000) ${all('businessPlans')} }`, variables: { z: zip } },
      { query: `query($z: String!) { nextStartDate(zipCode: $z) ${all('nextStartDate')} }`, variables: { z: zip } },
      {
        query: `query($z: String!, $a: String!) { utilityAccounts(zipCode: $z, address: $a) ${all('utilityAccounts')} }`,
        variables: { z: zip, a: address },
      },
      // Usage profiles and the year's cost.
      {
        query: `query($z: String!, $p: [Int!]) { residentialPlans(zipCode: $z, usageProfile: $p) ${plan} }`,
        variables: { z: zip, p: PROFILE },
      },
      {
        query:
          'query($z: String!) { residentialPlans(zipCode: $z, annualUsageKwh: 14000, monthlyUsage: 900) { id ' +
          'annualCost { totalUsd averageRateUsdPerKwh months { month usageKwh billUsd } } rates { usageKwh avgMonthlyBillUsd } } }',
        variables: { z: zip },
      },
      // Aliases, fragments, __typename.
      {
        query:
          'query($z: String!) { cheap: residentialPlans(zipCode: $z, monthlyUsage: 500) { ...P __typename } ' +
          'dear: residentialPlans(zipCode: $z, monthlyUsage: 2000) { ...P } u: utilities(zipCode: $z) { __typename id name } __typename } ' +
          'fragment P on Plan { id title price supplier { __typename name } rates { usageKwh allInRateUsdPerKwh } }',
        variables: { z: zip },
      },
      // Delivery charges of both classes, on a date.
      {
        query:
          'query($z: String!) { utilities(zipCode: $z) { id r: deliveryCharges { fixedMonthlyUsd perKwhUsd } ' +
          'c: deliveryCharges(customerClass: COMMERCIAL) { fixedMonthlyUsd perKwhUsd } ' +
          'd: deliveryCharges(onDate: "2026-01-15") { fixedMonthlyUsd perKwhUsd } } }',
        variables: { z: zip },
      },
      // @include / @skip.
      {
        query:
          'query($z: String!, $yes: Boolean!, $no: Boolean!) { residentialPlans(zipCode: $z) { id title @include(if: $yes) ' +
          'price @skip(if: $yes) fees @include(if: $no) { enrollmentUsd } supplier @skip(if: $no) { name } } }',
        variables: { z: zip, yes: true, no: false },
      },
      // Refused arguments.
      {
        query: `query($z: String!, $p: [Int!]) { residentialPlans(zipCode: $z, usageProfile: $p, annualUsageKwh: 12000) { id } }`,
        variables: { z: zip, p: PROFILE },
      },
      { query: `query($z: String!) { residentialPlans(zipCode: $z, usageProfile: [800, 800, 800]) { id } }`, variables: { z: zip } },
      { query: `query($z: String!) { residentialPlans(zipCode: $z, utilityId: "NO_SUCH_UTILITY") { id } }`, variables: { z: zip } },
      { query: `query($z: String!) { nextStartDate(zipCode: $z, meterReadCycle: "99") { date } }`, variables: { z: zip } },
      { query: `query($z: String!) { nextStartDate(zipCode: $z, requestedDate: "2099-01-01") { date } }`, variables: { z: zip } },
      // Business plans with fees and credits.
      {
        query: `query($z: String!) { businessPlans(zipCode: $z, annualUsage: 250000) { id estimatedAnnualCostUsd fees ${fees} } }`,
        variables: { z: zip },
      },
    ];
    return { zip, queries };
  });
  groups.push({
    zip: 'states',
    queries: states.map((s) => ({
      query: `query($s: String!) { energyInfoByState(state: $s) ${all('energyInfoByState')} }`,
      variables: { s },
    })),
  });
  return groups;
}

// ------------------------------------------------------------------------------------------ gateways

interface Running {
  proc: ChildProcess;
  url: string;
  log: string[];
}

async function startGateway(root: string, env: NodeJS.ProcessEnv, tmp: string, name: string): Promise<Running> {
  const [production, certification, playground, ops] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const runtime = startRuntime(root);
  const proc = spawn(process.execPath, [...runtime.args, 'dist/gateway.mjs'], {
    cwd: root,
    env: {
      ...runtime.env,
      ...env,
      DATA_DIR: path.join(tmp, `data-${name}`),
      PRODUCTION_PORT: String(production),
      CERTIFICATION_PORT: String(certification),
      PLAYGROUND_PORT: String(playground),
      OPS_PORT: String(ops),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log: string[] = [];
  proc.stderr!.on('data', (d: Buffer) => log.push(d.toString()));
  const healthz = `http://127.0.0.1:${production}/healthz`;
  for (const until = Date.now() + 60_000; ;) {
    if (proc.exitCode !== null) throw new Error(`gateway ${name} exited: ${log.join('')}`);
    const ok = await fetch(healthz).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > until) throw new Error(`gateway ${name}: no /healthz 200 within 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { proc, url: `http://127.0.0.1:${production}/graphql`, log };
}

async function startUpstream(): Promise<{ proc: ChildProcess; url: string }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'sources/reference-upstream/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, UPSTREAM_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', () => reject(new Error(`reference upstream exited: ${out}`)));
  });
  return { proc, url };
}

// ------------------------------------------------------------------------------------------ compare

async function post(url: string, key: string, q: Query): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(q),
  });
  return `${res.status} ${res.headers.get('content-type')}\n${await res.text()}`;
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'answer-diff-'));
  const children: ChildProcess[] = [];
  try {
    const up = await startUpstream();
    children.push(up.proc);
    const keysFile = path.join(tmp, 'keys.json');
    const key = (await issueKey(keysFile, { environment: 'production', partnerCode: 'DIFF' })).key;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      UPSTREAM_URL: up.url,
      START_REFERENCE_UPSTREAM: 'false',
      CACHE_ENABLED: 'false',
      KEYS_FILE: keysFile,
      LOG_LEVEL: 'warn',
      PLAYGROUND_PROCESS: 'off',
      // Answers are compared, not quotas: the comparing partner is never refused for its pace.
      PARTNER_QUOTA_DEFAULT: 'unlimited',
      PARTNER_QUEUE: '100000',
      PARTNER_QUEUE_WAIT_MS: '600000',
    };
    const ga = await startGateway(roots.a, env, tmp, 'a');
    children.push(ga.proc);
    const gb = await startGateway(roots.b, env, tmp, 'b');
    children.push(gb.proc);
    const schema = buildSchema(fs.readFileSync(path.join(roots.b, 'schema', 'snapshots', 'keyed.graphql'), 'utf8'));
    const groups = await queriesOf(schema);
    let compared = 0;
    const differences: string[] = [];
    const statuses = new Map<string, number>();
    let withErrors = 0;
    let next = 0;
    const worker = async () => {
      for (let g = next++; g < groups.length; g = next++) {
        const { zip, queries } = groups[g]!;
        const answers = await Promise.all(queries.map((q) => Promise.all([post(ga.url, key, q), post(gb.url, key, q)])));
        answers.forEach(([x, y], i) => {
          compared++;
          const status = x.slice(0, 3);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (y.includes('"errors"')) withErrors++;
          if (x !== y)
            differences.push(
              `ZIP ${JSON.stringify(zip)}, query ${i}: ${queries[i]!.query}\n  a: ${x.slice(0, 600)}\n  b: ${y.slice(0, 600)}`,
            );
        });
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    console.log(
      `answer-diff: ${compared} queries over ${groups.length - 1} ZIP codes and the states, a: ${roots.a}, b: ${roots.b}; ` +
        `statuses ${JSON.stringify(Object.fromEntries(statuses))}, ${withErrors} with errors; ${differences.length} different`,
    );
    for (const d of differences.slice(0, 10)) console.log(d);
    process.exitCode = differences.length ? 1 : 0;
  } finally {
    for (const c of children.reverse()) c.kill('SIGTERM');
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
