// Builds the Mesh from .meshrc.yaml at start-up (no build step, so a new feed is configuration
// only) and derives the public schema variants the listeners serve.
import path from 'node:path';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { processConfig } from '@graphql-mesh/config';
import yaml from 'js-yaml';
import { InMemoryStoreStorageAdapter, MeshStore } from '@graphql-mesh/store';
import { getMesh, type MeshInstance } from '@graphql-mesh/runtime';
import { filterSchema, pruneSchema } from '@graphql-tools/utils';
import { isSpecifiedDirective, parse, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { bindingsFromConfig } from '../transforms/mapping/index.js';
import type { FeedBinding, FeedKind } from '../transforms/mapping/types.js';
import type { FeedRegistry } from '../resolvers/context.js';
import { schemaPolicy } from '../resolvers/schema-policy.js';
import type { MeshFetch } from '../sources/upstream/fetch.js';
import * as resolversModule from '../resolvers/index.js';
import * as feedMappingModule from '../transforms/feed-mapping.js';
import * as meshLoggerModule from './mesh-logger.js';
import { createFeedEvents, type WarnLogger } from '../transforms/feed-events.js';
import { createFeedMemo } from '../transforms/feed-memo.js';
import { meshrcShapeProblem } from './meshrc-shape.js';

export type SchemaVariant = 'keyed' | 'playground';

export interface GatewayMesh {
  mesh: MeshInstance;
  schemas: Record<SchemaVariant, GraphQLSchema>;
  feeds: FeedRegistry & { all: FeedBinding[] };
  /** Context entries Mesh's sources need (in-context SDK, fetch, cache...), built once. */
  meshContext: Record<string | symbol, unknown>;
  close(): void;
}

const OWN_MODULES = new Map<string, unknown>([
  ['resolvers/index.ts', resolversModule],
  ['transforms/feed-mapping.ts', feedMappingModule],
  ['server/mesh-logger.ts', meshLoggerModule],
  // Paths of the layout before the design card's folders, still accepted in existing .meshrc.yaml
  // files (test/unit/meshrc-legacy-paths.test.ts).
  ['api/index.ts', resolversModule],
  ['feeds/feed-mapping.ts', feedMappingModule],
]);

/**
 * Mesh packages the config names (handlers, merger, cache, transforms), imported through literal
 * specifiers so the bundle (scripts/build.mjs) carries them: no module resolution at start, and the
 * same copies of the Mesh and GraphQL Tools libraries the rest of the gateway uses. A package not
 * listed here is imported from node_modules as usual.
 */
const MESH_PACKAGES = new Map<string, () => Promise<unknown>>([
  ['@graphql-mesh/json-schema', () => import('@graphql-mesh/json-schema')],
  ['@graphql-mesh/openapi', () => import('@graphql-mesh/openapi')],
  ['@graphql-mesh/merger-stitching', () => import('@graphql-mesh/merger-stitching')],
  ['@graphql-mesh/merger-bare', () => import('@graphql-mesh/merger-bare')],
  ['@graphql-mesh/cache-localforage', () => import('@graphql-mesh/cache-localforage')],
  ['@graphql-mesh/transform-filter-schema', () => import('@graphql-mesh/transform-filter-schema')],
]);

export class MeshStartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MeshStartupError';
  }
}

export async function loadGatewayMesh(opts: {
  dir: string;
  fetchFn: MeshFetch;
  logLevel?: string;
  logger?: WarnLogger;
}): Promise<GatewayMesh> {
  const dir = path.resolve(opts.dir);
  const importFn = (id: string) => {
    // Our own modules named in .meshrc.yaml are linked in already: no per-start transpiling, and
    // one copy of graphql-js. Anything else (new packages) is imported; relative ids from the
    // config's folder, not Mesh's.
    const target = id.startsWith('.') ? path.resolve(dir, id) : id;
    const own = path.isAbsolute(target) ? OWN_MODULES.get(path.relative(PROJECT_ROOT, target).split(path.sep).join('/')) : undefined;
    if (own) return Promise.resolve(own);
    const bundled = MESH_PACKAGES.get(target);
    if (bundled) return bundled();
    return import(path.isAbsolute(target) ? pathToFileURL(target).href : target);
  };
  // The CLI's config finder pulls in code generation (seconds of start-up); we only need the YAML.
  let raw: { sources?: unknown[] };
  try {
    raw = yaml.load(fs.readFileSync(path.join(dir, '.meshrc.yaml'), 'utf8')) as { sources?: unknown[] };
    const problem = meshrcShapeProblem(raw);
    if (problem) throw new Error(problem);
  } catch (err) {
    throw new MeshStartupError(`cannot read ${path.join(dir, '.meshrc.yaml')}: ${(err as Error).message.replace(/\s+/g, ' ').trim()}`);
  }
  // Sources are always read from their contracts at start (no `mesh build` artifacts), so the
  // store is in memory whatever NODE_ENV says (Mesh's production default expects artifacts).
  const store = new MeshStore(path.join(dir, '.mesh'), new InMemoryStoreStorageAdapter(), { readonly: false, validate: false });
  const config = await processConfig(raw as never, { dir, importFn, generateCode: false, store }).catch((err: Error) => {
    throw new MeshStartupError(`invalid .meshrc.yaml in ${dir}: ${err.message.replace(/\s+/g, ' ').trim()}`);
  });
  const feeds = bindingsFromConfig(raw);
  const errors: string[] = [];
  const logger = quietLogger(errors, opts.logLevel);
  let mesh: MeshInstance;
  try {
    mesh = await getMesh({ ...config, logger, fetchFn: opts.fetchFn as never });
  } catch (err) {
    throw new MeshStartupError(startupMessage(errors, err));
  }
  dropUnmergeableTypes(mesh.schema);
  const bound = feeds.map((binding) => {
    const source = mesh.rawSources.find((s) => s.name === binding.source);
    return Object.freeze({ ...binding, execute: source ? sourceCall(source.schema, binding) : undefined });
  });
  // Public root fields are those of schema/public.graphql; everything else on Query is a raw
  // source operation and stays hidden.
  const keyed = publicSchema(mesh.schema, (name) => schemaPolicy.rootFields.has(name));
  const playground = publicSchema(mesh.schema, (name) => schemaPolicy.playgroundFields.has(name));
  const enveloped = mesh.getEnveloped({});
  const meshContext = (await enveloped.contextFactory({})) as Record<string | symbol, unknown>;
  return {
    mesh,
    schemas: { keyed, playground },
    feeds: {
      all: bound,
      byKind: <K extends FeedKind>(kind: K) => bound.filter((f) => f.kind === kind) as unknown as FeedBinding<K>[],
      events: createFeedEvents(opts.logger),
      memo: createFeedMemo(),
    },
    meshContext,
    close: () => mesh.destroy(),
  };
}

/**
 * Calls one feed operation on its source's own schema (the handler's resolvers: REST transport,
 * our fetch layer) with a document parsed and compiled once. The in-context SDK
 * (`context.<Source>.Query.<op>`) does the same through schema delegation, which rebuilds and
 * re-walks the request document on every call; the answer is the same. The selection is checked
 * against the schema the feed-mapping transform saw; a source transform that reshaped the schema
 * before it would make the compile below fail at start-up, naming the feed.
 */
export function sourceCall(schema: GraphQLSchema, binding: FeedBinding): FeedBinding['execute'] {
  const field = schema.getQueryType()?.getFields()[binding.operation];
  if (!field) return undefined;
  const declared = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const passed = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const document = parse(
    `query${declared ? `(${declared})` : ''} { ${binding.operation}${passed ? `(${passed})` : ''} ${binding.selectionSet} }`,
  );
  const names = field.args.map((a) => a.name);
  // Compiled once (graphql-jit): completing the payload's fields, a few hundred per call, is
  // generated code instead of graphql-js walking the selection for every value.
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled))
    throw new MeshStartupError(
      `feed ${binding.source}: cannot compile its selection: ${compiled.errors?.map((e) => e.message).join('; ')}`,
    );
  return async (args, context) => {
    const variableValues: Record<string, unknown> = {};
    for (const n of names) if (args[n] !== undefined) variableValues[n] = args[n];
    const result = await compiled.query(undefined, context, variableValues);
    const payload = (result.data as Record<string, unknown> | null | undefined)?.[binding.operation] ?? null;
    // An error inside the payload (a record with a value of the wrong type) nulls that value and
    // the mapping rejects the record; only a failed call (no payload) fails the feed.
    const error = result.errors?.[0];
    if (payload === null && error) throw error.originalError ?? error;
    return payload;
  };
}

/**
 * Mesh's stitching merger lists every type of the unified schema as a "merged type", each with no
 * key and no resolver to fetch missing fields with (no source is merged with another here). Every
 * field returning such a type still ran stitching's result walk on each object it returned (the
 * missing selections computed, candidates sorted, then nothing to do): a share of every answer's
 * CPU and garbage. A type with nothing to merge with is taken off the list, where stitching reads
 * it at run time: its results are returned as they are, as they were.
 */
export function dropUnmergeableTypes(schema: GraphQLSchema): void {
  const info = schema.extensions?.stitchingInfo as
    { mergedTypes?: Record<string, { selectionSets?: Map<unknown, unknown>; resolvers?: Map<unknown, unknown> }> } | undefined;
  const merged = info?.mergedTypes;
  if (!merged) return;
  for (const [name, type] of Object.entries(merged)) if (!type?.selectionSets?.size && !type?.resolvers?.size) delete merged[name];
}

function publicSchema(schema: GraphQLSchema, keep: (field: string) => boolean): GraphQLSchema {
  return pruneSchema(
    filterSchema({
      schema,
      rootFieldFilter: (operation, name) => operation === 'Query' && keep(name),
      // Mesh's own directives go; the spec's (@include, @skip, @deprecated, @specifiedBy) stay:
      // clients such as Apollo Client and urql send @include/@skip routinely.
      directiveFilter: (_name, directive) => isSpecifiedDirective(directive),
    }),
  );
}

/**
 * One line in our words: a feed mapping's own error (`feed X: key: detail`, thrown by the
 * feed-mapping transform and wrapped by Mesh) as it is; anything else after our lead-in.
 */
function startupMessage(errors: string[], err: unknown): string {
  const all = [...errors, err instanceof Error ? err.message : String(err)];
  const ours = all.map((e) => /(?:^|\s)(feed [_A-Za-z][_0-9A-Za-z]*: [\s\S]*)$/.exec(e)?.[1]).find(Boolean);
  const line = (t: string) => t.replace(/\s+/g, ' ').trim();
  return ours ? line(ours) : `could not build the schema from the feeds: ${line(errors.length ? errors.join('; ') : all.at(-1)!)}`;
}

/** Mesh logs a lot at info level; we keep its errors for the start-up message and pass warnings on. */
function quietLogger(errors: string[], level = 'warn') {
  const noop = () => {};
  const logger = {
    name: 'mesh',
    log: noop,
    debug: noop,
    info: noop,
    warn: level === 'silent' ? noop : (...args: unknown[]) => console.warn('[mesh]', ...args.map(String)),
    error: (...args: unknown[]) =>
      errors.push(
        args
          .map((a) => (a instanceof Error ? a.message : String(a)))
          .join(' ')
          .trim(),
      ),
    child: () => logger,
  };
  return logger as never;
}
