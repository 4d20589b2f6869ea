// Executes a prepared operation against a schema variant and turns the result into the body a
// partner receives: every error has a code, unexpected errors are masked, partial-feed errors and
// stale-data notices are added.
import { execute, getVariableValues, GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import type { PreparedOperation } from './prepare.js';
import type { ResolverContext } from '../../resolvers/context.js';

interface ExecutionOutcome {
  body: string;
  hasErrors: boolean;
  stale: boolean;
}

/** Executions by engine, process-wide: how tests (and a debugger) see which path ran. */
export const executionsByEngine = { compiled: 0, graphqlJs: 0 };

export async function executeOperation(
  schema: GraphQLSchema,
  op: PreparedOperation,
  variables: Record<string, unknown> | null | undefined,
  context: ResolverContext,
  onInternalError: (err: unknown) => void,
): Promise<ExecutionOutcome> {
  const compiled = compiledFor(schema, op);
  if (compiled) executionsByEngine.compiled++;
  else executionsByEngine.graphqlJs++;
  // Variables are checked by graphql-js either way, so a bad variable reads the same on both paths.
  const coerced =
    compiled && op.operation.variableDefinitions?.length
      ? getVariableValues(schema, op.operation.variableDefinitions, variables ?? {}, { maxErrors: 50 })
      : null;
  const result = (
    coerced && 'errors' in coerced && coerced.errors
      ? { errors: coerced.errors }
      : compiled
        ? await compiled.query(undefined, context, variables ?? {})
        : await execute({
            schema,
            document: op.document,
            variableValues: variables ?? undefined,
            contextValue: context,
            operationName: op.operationName ?? undefined,
          })
  ) as ExecutionResult;
  const errors = [...(result.errors ?? []), ...context.extraErrors].map((e) => publicError(e, context.requestId, onInternalError));
  const out: Record<string, unknown> = {};
  if (errors.length) out.errors = errors;
  if ('data' in result) out.data = result.data;
  if (context.staleFeeds.length) out.extensions = { stale: context.staleFeeds };
  return { body: JSON.stringify(out), hasErrors: errors.length > 0, stale: context.staleFeeds.length > 0 };
}

/**
 * A prepared operation (shared by every request sending the same text, see prepare.ts) that runs a
 * second time is compiled with graphql-jit for its schema variant and runs compiled from then on:
 * one-off queries are not worth compiling (and are no lever to make us compile). Introspection,
 * and anything jit declines, runs on graphql-js. Run counts live as long as the operation (a
 * WeakMap); compiled code is kept in an LRU bounded by estimated bytes, since client text decides
 * what is compiled (an evicted operation is compiled again on its next run).
 */
const COMPILE_AFTER_RUNS = 1;
const COMPILED_CACHE_BYTES = 32 * 1024 * 1024;
/** Generated code and closures per byte of printed operation, estimated generously. */
const COMPILED_BYTES_PER_CHAR = 48;
const runsOf = new WeakMap<PreparedOperation, number>();
const compiledOps = new LRUCache<PreparedOperation, { schema: GraphQLSchema; compiled: CompiledQuery | false }>({
  maxSize: COMPILED_CACHE_BYTES,
  sizeCalculation: (_v, op) => 4096 + op.normalized.length * COMPILED_BYTES_PER_CHAR,
});

function compiledFor(schema: GraphQLSchema, op: PreparedOperation): CompiledQuery | null {
  if (op.rootFields.some((f) => f.startsWith('__'))) return null;
  const known = compiledOps.get(op);
  if (known && known.schema === schema) return known.compiled || null;
  const runs = (runsOf.get(op) ?? 0) + 1;
  runsOf.set(op, runs);
  if (runs <= COMPILE_AFTER_RUNS) return null;
  const c = compileQuery(schema, op.document, op.operationName ?? undefined);
  const compiled = isCompiledQuery(c) ? c : false;
  compiledOps.set(op, { schema, compiled });
  return compiled || null;
}

const KNOWN_CODES = new Set(['BAD_USER_INPUT', 'UPSTREAM_UNAVAILABLE', 'NOT_FOUND', 'FORBIDDEN', 'QUERY_TOO_COMPLEX']);

/** A GraphQL error as JSON: message, locations, path, extensions.code; never a stack or upstream detail. */
function publicError(err: GraphQLError, requestId: string, onInternalError: (err: unknown) => void) {
  const original = err.originalError;
  const code = err.extensions?.code as string | undefined;
  const fromResolver = original && !(original instanceof GraphQLError);
  let message = err.message;
  let extensions: Record<string, unknown>;
  if (fromResolver) {
    onInternalError(original);
    message = `Internal error. Quote request id ${requestId} to support.`;
    extensions = { code: 'INTERNAL_SERVER_ERROR', requestId };
  } else if (code && (KNOWN_CODES.has(code) || code.startsWith('GRAPHQL_'))) {
    extensions = { ...err.extensions };
  } else if ((!original || original instanceof GraphQLError) && err.path === undefined && err.locations) {
    // Variable coercion and similar request-level errors raised by graphql-js itself (a bad
    // variable value carries the scalar's own GraphQLError as originalError).
    extensions = { ...err.extensions, code: code ?? 'BAD_USER_INPUT' };
  } else {
    extensions = { ...err.extensions, code: code ?? 'INTERNAL_SERVER_ERROR' };
  }
  const json: Record<string, unknown> = { message };
  if (err.locations) json.locations = err.locations;
  if (err.path) json.path = err.path;
  json.extensions = extensions;
  return json;
}
