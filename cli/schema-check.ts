// `npm run schema:check`: the public schema each environment serves, printed as SDL, against the
// committed snapshot (schema/snapshots/<variant>.graphql), compared with @graphql-inspector/core.
// Exit 1 on a breaking change (a removed field, a narrowed type...) and on any other difference
// (the snapshot is what partners generate clients from, so it must be the served schema).
// `npm run schema:check -- --update` rewrites the snapshots; commit them with the schema change
// (and, for a partner-visible change, a CHANGELOG.md entry). Policy: docs/partners.md "Schema changes".
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { buildSchema, printSchema } from 'graphql';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { loadGatewayMesh, type SchemaVariant } from '../mesh/gateway-mesh.js';
import { publicApi } from '../resolvers/public-api.js';
import { createUpstreamFetch } from '../sources/upstream/fetch.js';
import { isEntryModule, isUsageError, type Io } from './usage.js';

const VARIANTS: SchemaVariant[] = ['keyed', 'playground'];
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SNAPSHOT_DIR = path.join(ROOT, 'schema', 'snapshots');
const UPDATE_HINT = 'npm run schema:check -- --update';

const USAGE = `Usage: npm run schema:check [-- --update]
  Compares the served public schema (one per variant: ${VARIANTS.join(', ')}) with schema/snapshots/.
  --update   rewrite the snapshots from the current schema (commit them with the change)`;

export interface SchemaCheckOptions {
  /** Folder of .meshrc.yaml (MESH_DIR). */
  meshDir: string;
  snapshotDir?: string;
  update?: boolean;
}

/** The printed SDL of every variant, as served. */
export async function servedSchemas(meshDir: string): Promise<Record<SchemaVariant, string>> {
  const fetchFn = createUpstreamFetch();
  try {
    const mesh = await loadGatewayMesh({ dir: meshDir, fetchFn, logLevel: 'silent', api: publicApi });
    try {
      return { keyed: `${printSchema(mesh.schemas.keyed)}\n`, playground: `${printSchema(mesh.schemas.playground)}\n` };
    } finally {
      mesh.close();
    }
  } finally {
    await fetchFn.close();
  }
}

/** Returns the exit code; reports through io. */
export async function schemaCheck(opts: SchemaCheckOptions, io: Io): Promise<number> {
  const dir = opts.snapshotDir ?? SNAPSHOT_DIR;
  const served = await servedSchemas(opts.meshDir);
  if (opts.update) {
    fs.mkdirSync(dir, { recursive: true });
    for (const variant of VARIANTS) fs.writeFileSync(path.join(dir, `${variant}.graphql`), served[variant]);
    io.out(`schema snapshots written to ${path.relative(process.cwd(), dir) || '.'}: ${VARIANTS.map((v) => `${v}.graphql`).join(', ')}`);
    return 0;
  }
  let failed = false;
  for (const variant of VARIANTS) {
    const file = path.join(dir, `${variant}.graphql`);
    if (!fs.existsSync(file)) {
      io.err(`${variant}: no snapshot at ${file}; create it with ${UPDATE_HINT}`);
      failed = true;
      continue;
    }
    const committed = fs.readFileSync(file, 'utf8');
    if (committed === served[variant]) {
      io.out(`${variant}: matches the snapshot`);
      continue;
    }
    failed = true;
    let changes;
    try {
      changes = await diff(buildSchema(committed), buildSchema(served[variant]));
    } catch (err) {
      io.err(`${variant}: the snapshot ${file} is not a valid schema (${(err as Error).message}); regenerate it with ${UPDATE_HINT}`);
      continue;
    }
    const breaking = changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking);
    const dangerous = changes.filter((c) => c.criticality.level === CriticalityLevel.Dangerous);
    const safe = changes.filter((c) => c.criticality.level === CriticalityLevel.NonBreaking);
    for (const c of breaking) io.err(`${variant}: BREAKING ${c.message}`);
    for (const c of dangerous) io.err(`${variant}: dangerous ${c.message}`);
    for (const c of safe) io.err(`${variant}: safe ${c.message}`);
    if (breaking.length) {
      io.err(
        `${variant}: ${breaking.length} breaking change(s). Deprecate first (@deprecated(reason: "... Removed after YYYY-MM-DD.")) and remove ` +
          `only after that date; ` +
          `if the removal is due, update the snapshot (${UPDATE_HINT}) and add a CHANGELOG.md entry in the same commit.`,
      );
    } else {
      io.err(
        `${variant}: the snapshot is out of date (${changes.length ? 'no breaking change' : 'printing differs only'}); run ${UPDATE_HINT} and commit it.`,
      );
    }
  }
  return failed ? 1 : 0;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { update: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  return schemaCheck(
    { meshDir: path.resolve(process.env.MESH_DIR ?? '.'), update: values.update },
    { out: (l) => console.log(l), err: (l) => console.error(l) },
  );
}

if (isEntryModule(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      if (isUsageError(err)) {
        console.error(`${err.message}\n${USAGE}`);
        process.exit(2);
      }
      console.error(`schema:check failed: ${(err as Error)?.message ?? err}`);
      process.exit(1);
    },
  );
}
