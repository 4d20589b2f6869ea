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
import {
  getVariableValues,
  isSpecifiedDirective,
  Kind,
  parse,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLField,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { bindingsFromConfig } from '../transforms/mapping/index.js';
import type { FeedBinding, FeedKind } from '../transforms/mapping/types.js';
import type { MeshFetch } from '../sources/upstream/fetch.js';
import * as feedMappingModule from '../transforms/feed-mapping.js';
import * as meshLoggerModule from './mesh-logger.js';
import { createFeedEvents, type FeedEvents, type WarnLogger } from '../transforms/feed-events.js';
import { createFeedMemo, type FeedMemo } from '../transforms/feed-memo.js';
import { meshrcShapeProblem } from './meshrc-shape.js';
import { completionSchema, payloadCompletion } from './payload-completion.js';
import { feedFetch, type FeedFetch } from './feed-transport.js';
import { ownTypesOnly, resolveAsWritten, type ResolverMap } from './public-field-resolvers.js';
import type { CallableFeed, FeedCall } from './feed-call.js';

export type { CallableFeed };

export type SchemaVariant = 'keyed' | 'playground';

/**
 * The public API served beside the feeds, handed in by the resolvers (resolvers/public-api.ts): the
 * module .meshrc.yaml's `additionalResolvers` names and the root fields each schema variant keeps.
 */
export interface PublicApi {
  /** The resolvers module's path from the project root, as .meshrc.yaml names it. */
  resolversPath: string;
  resolversModule: { resolvers: ResolverMap };
  rootFields: Record<SchemaVariant, ReadonlySet<string>>;
}

/** The declared feeds with their calls, and what the resolvers keep beside them. */
export interface MeshFeeds {
  all: CallableFeed[];
  byKind<K extends FeedKind>(kind: K): CallableFeed<K>[];
  events: FeedEvents;
  memo: FeedMemo;
}

export interface GatewayMesh {
  mesh: MeshInstance;
  schemas: Record<SchemaVariant, GraphQLSchema>;
  feeds: MeshFeeds;
  /** Context entries Mesh's sources need (in-context SDK, fetch, cache...), built once. */
  meshContext: Record<string | symbol, unknown>;
  close(): void;
}

/** Our modules .meshrc.yaml may name besides the resolvers, by path from the project root. */
const OWN_MODULES = new Map<string, unknown>([
  ['transforms/feed-mapping.ts', feedMappingModule],
  ['mesh/mesh-logger.ts', meshLoggerModule],
]);

/**
 * Where those modules lived in earlier layouts: a .meshrc.yaml written then keeps starting the
 * gateway (test/unit/meshrc-legacy-paths.test.ts).
 */
const FORMER_PATHS = new Map<string, string>([
  ['api/index.ts', 'resolvers/index.ts'],
  ['feeds/feed-mapping.ts', 'transforms/feed-mapping.ts'],
  ['server/mesh-logger.ts', 'mesh/mesh-logger.ts'],
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

/** Our module a .meshrc.yaml id names (relative to the config's folder), if it is one of ours. */
function ownModule(dir: string, id: string, api: PublicApi): unknown {
  const target = id.startsWith('.') ? path.resolve(dir, id) : id;
  if (!path.isAbsolute(target)) return undefined;
  const written = path.relative(PROJECT_ROOT, target).split(path.sep).join('/');
  const current = FORMER_PATHS.get(written) ?? written;
  return current === api.resolversPath ? api.resolversModule : OWN_MODULES.get(current);
}

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
  api: PublicApi;
}): Promise<GatewayMesh> {
  const dir = path.resolve(opts.dir);
  const { api } = opts;
  const importFn = (id: string) => {
    // Our own modules named in .meshrc.yaml are linked in already: no per-start transpiling, and
    // one copy of graphql-js. Anything else (new packages) is imported; relative ids from the
    // config's folder, not Mesh's.
    const target = id.startsWith('.') ? path.resolve(dir, id) : id;
    const own = ownModule(dir, id, api);
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
  const bound = feeds.map((binding): CallableFeed => {
    const source = mesh.rawSources.find((s) => s.name === binding.source);
    const handler = (raw.sources as { name?: unknown; handler?: unknown }[] | undefined)?.find((s) => s?.name === binding.source)?.handler;
    return Object.freeze({ ...binding, execute: source ? sourceCall(source.schema, binding, handler) : undefined });
  });
  // Public root fields are those of schema/public.graphql; everything else on Query is a raw
  // source operation and stays hidden.
  const keyed = publicSchema(mesh.schema, (name) => api.rootFields.keyed.has(name));
  const playground = publicSchema(mesh.schema, (name) => api.rootFields.playground.has(name));
  // Our resolvers alone answer the public types when Mesh wraps nothing around them: the schema is
  // not wrapped by a root transform and ours are the only additional resolvers.
  const resolvedByUs =
    !(raw as { transforms?: unknown[] }).transforms?.length &&
    Array.isArray((raw as { additionalResolvers?: unknown }).additionalResolvers) &&
    (raw as { additionalResolvers: unknown[] }).additionalResolvers.every(
      (id) => typeof id === 'string' && ownModule(dir, id, api) === api.resolversModule,
    );
  const merged = (mesh.schema.extensions?.stitchingInfo as { mergedTypes?: Record<string, unknown> } | undefined)?.mergedTypes;
  const sourceSchemas = mesh.rawSources.map((s) => s.schema);
  for (const schema of [keyed, playground])
    if (resolvedByUs && ownTypesOnly(schema, sourceSchemas, merged)) resolveAsWritten(schema, api.resolversModule.resolvers);
  const enveloped = mesh.getEnveloped({});
  const meshContext = (await enveloped.contextFactory({})) as Record<string | symbol, unknown>;
  return {
    mesh,
    schemas: { keyed, playground },
    feeds: {
      all: bound,
      byKind: <K extends FeedKind>(kind: K) => bound.filter((f) => f.kind === kind) as unknown as CallableFeed<K>[],
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
 *
 * The operation's resolver is called directly and its parsed JSON completed in place
 * (payload-completion.ts) when it conforms to the selection; graphql-jit completes it otherwise
 * (or for a selection the in-place walk does not cover), exactly as a compiled query would.
 */
export function sourceCall(schema: GraphQLSchema, binding: FeedBinding, handler?: unknown): FeedCall | undefined {
  const field = schema.getQueryType()?.getFields()[binding.operation];
  if (!field) return undefined;
  const document = feedDocument(field, binding);
  const names = field.args.map((a) => a.name);
  // Compiled once (graphql-jit): completing the payload's fields, a few hundred per call, is
  // generated code instead of graphql-js walking the selection for every value.
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled))
    throw new MeshStartupError(
      `feed ${binding.source}: cannot compile its selection: ${compiled.errors?.map((e) => e.message).join('; ')}`,
    );
  const answer = (result: ExecutionResult) => {
    const payload = (result.data as Record<string, unknown> | null | undefined)?.[binding.operation] ?? null;
    // An error inside the payload (a record with a value of the wrong type) nulls that value and
    // the mapping rejects the record; only a failed call (no payload) fails the feed.
    const error = result.errors?.[0];
    if (payload === null && error) throw error.originalError ?? error;
    return payload;
  };
  const variablesOf = (args: Record<string, unknown>) => {
    const variableValues: Record<string, unknown> = {};
    for (const n of names) if (args[n] !== undefined) variableValues[n] = args[n];
    return variableValues;
  };
  const direct = directCall(schema, field, document, binding.operation, handler);
  if (!direct) return async (args, context) => answer((await compiled.query(undefined, context, variablesOf(args))) as ExecutionResult);
  // Callers joining one exchange get one payload (feed-transport.ts): completed in place by the
  // first of them, taken as it is by the others (a second completion would see GraphQL's names
  // where the feed's values were). Decided synchronously: no caller sees it half done.
  const completions = new WeakMap<object, boolean>();
  const completed = (payload: unknown, context: unknown): boolean => {
    if (payload === null || typeof payload !== 'object') return direct.complete(payload, context, direct.info);
    let done = completions.get(payload);
    if (done === undefined) completions.set(payload, (done = direct.complete(payload, context, direct.info)));
    return done;
  };
  return async (args, context) => {
    const variableValues = variablesOf(args);
    let coerced = variableValues;
    if (!direct.stringsOnly || !givenAsStrings(direct.stringsOnly, variableValues)) {
      const values = getVariableValues(schema, direct.variables, variableValues);
      // Arguments the operation refuses: the compiled query reports them as it always did.
      if (values.errors) return answer((await compiled.query(undefined, context, variableValues)) as ExecutionResult);
      coerced = values.coerced;
    }
    const payload = await direct.call(coerced, context as Record<string | symbol, unknown>);
    if (completed(payload, context)) return payload;
    return answer((await direct.completeOnly.query(undefined, { ...context, [RAW_PAYLOAD]: payload }, variableValues)) as ExecutionResult);
  };
}

/** The feed call as a document: the operation with every argument as a variable, and the mapping's selection. */
export function feedDocument(field: GraphQLField<unknown, unknown>, binding: FeedBinding): DocumentNode {
  const declared = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const passed = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  return parse(`query${declared ? `(${declared})` : ''} { ${binding.operation}${passed ? `(${passed})` : ''} ${binding.selectionSet} }`);
}

const RAW_PAYLOAD = Symbol('raw feed payload');

/**
 * What calling the operation's resolver directly needs: its resolver, the resolve info it gets (the
 * same for every call), the in-place completion and, for payloads that do not conform, the same
 * selection compiled over a copy of the schema whose field answers the payload already fetched.
 * Undefined when the selection needs graphql-jit throughout.
 */
function directCall(
  schema: GraphQLSchema,
  field: GraphQLField<unknown, unknown>,
  document: DocumentNode,
  operation: string,
  handler: unknown,
) {
  const op = document.definitions[0] as OperationDefinitionNode;
  const node = op.selectionSet.selections[0] as FieldNode;
  const complete = node.selectionSet && field.resolve ? payloadCompletion(field, node.selectionSet) : null;
  if (!complete || !field.resolve) return undefined;
  let completeOnly;
  try {
    completeOnly = compileQuery(
      completionSchema(schema, operation, (context) => (context as Record<symbol, unknown>)[RAW_PAYLOAD]),
      document,
    );
  } catch {
    return undefined;
  }
  if (!isCompiledQuery(completeOnly)) return undefined;
  const queryType = schema.getQueryType()!;
  const info: GraphQLResolveInfo = {
    fieldName: operation,
    fieldNodes: [node],
    returnType: field.type,
    parentType: queryType,
    path: { prev: undefined, key: operation, typename: queryType.name },
    schema,
    fragments: {},
    rootValue: undefined,
    operation: op,
    variableValues: {},
  };
  const resolve = field.resolve;
  const call: FeedFetch =
    feedFetch(schema, field, resolve, info, handler) ?? ((args, context) => Promise.resolve(resolve(undefined, args, context, info)));
  const variables = op.variableDefinitions ?? [];
  return { call, info, complete, completeOnly, variables, stringsOnly: stringVariables(variables) };
}

/**
 * The variables by name, each with whether it is required, when all are String or ID: values given
 * as strings then coerce to themselves, and graphql-js's coercion need not run on every call.
 */
function stringVariables(variables: readonly VariableDefinitionNode[]): { name: string; required: boolean }[] | undefined {
  const out: { name: string; required: boolean }[] = [];
  for (const v of variables) {
    const required = v.type.kind === Kind.NON_NULL_TYPE;
    const named = v.type.kind === Kind.NON_NULL_TYPE ? v.type.type : v.type;
    if (named.kind !== Kind.NAMED_TYPE || (named.name.value !== 'String' && named.name.value !== 'ID') || v.defaultValue) return undefined;
    out.push({ name: v.variable.name.value, required });
  }
  return out;
}

function givenAsStrings(variables: { name: string; required: boolean }[], values: Record<string, unknown>): boolean {
  for (const v of variables) {
    const value = values[v.name];
    if (typeof value !== 'string' && (v.required || value !== undefined)) return false;
  }
  return true;
}

/**
 * Mesh's stitching merger lists every type of the unified schema as a "merged type", each with no
 * key and no resolver to fetch missing fields with (no source is merged with another here). Every
 * field returning such a type still ran stitching's result walk on each object it returned (the
 * missing selections computed, candidates sorted, then nothing to do): a share of every answer's
 * CPU and garbage. A type with nothing to merge with is taken off the list, where stitching reads
 * it at run time: its results are returned as they are, as they were.
 */
function dropUnmergeableTypes(schema: GraphQLSchema): void {
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
