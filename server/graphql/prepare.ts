// Parse + validate once per distinct query text and schema variant; the result is reused (LRU), so a
// repeated operation costs a map lookup. The PreparedOperation of each (query text, operation name)
// is built once too and shared by every request that sends it (it is never mutated).
// Client text decides what this cache keeps, so it is bounded by bytes (an estimate, see
// entryBytes), not by entries, and text over maxQueryBytes is refused before the parser runs.
import {
  GraphQLError,
  Kind,
  parse,
  print,
  specifiedRules,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { limitRules, rootFieldNames, type QueryLimits } from './limits.js';

export interface PreparedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName: string | null;
  /** Root field names selected, introspection ones included. */
  rootFields: string[];
  /** Only `__schema`, `__type`, `__typename`: free on the playground. */
  introspectionOnly: boolean;
  /** Canonical text of the document (whitespace and comments normalized), for cache keys. */
  normalized: string;
}

type Prepared = { ok: true; op: PreparedOperation } | { ok: false; errors: GraphQLError[] };

/**
 * `keyedOnlyFields`: root fields this schema variant lacks because they need an API key (the
 * playground's `utilityAccounts`); asking for one says so instead of "Cannot query field".
 */
export function createPreparer(
  schema: GraphQLSchema,
  limits: QueryLimits,
  supplierFeeds: number,
  keyedOnlyFields: ReadonlySet<string> = new Set(),
) {
  const rules = [...specifiedRules, ...limitRules(limits, supplierFeeds)];
  type DocumentEntry = { document: DocumentNode; normalized: string; prepared?: Map<string, Prepared> } | { errors: GraphQLError[] };
  const documents = new LRUCache<string, DocumentEntry>({
    maxSize: Math.max(1, limits.documentCacheBytes),
    sizeCalculation: (entry, query) => entryBytes(entry, query),
  });
  const tooLarge = (bytes: number) => [
    new GraphQLError(`Query text is ${bytes} bytes; at most ${limits.maxQueryBytes} are allowed.`, {
      extensions: { code: 'QUERY_TOO_COMPLEX' },
    }),
  ];

  // What the last call cost (read right after it by the tracing of the request: prepare is synchronous).
  const timings = { parseMs: 0, validateMs: 0, cached: false };

  function documentFor(query: string): DocumentEntry {
    timings.cached = false;
    timings.parseMs = timings.validateMs = 0;
    // Length in UTF-16 units is at most the UTF-8 byte length: the exact count is only needed near the bound.
    if (query.length > limits.maxQueryBytes / 3) {
      const bytes = Buffer.byteLength(query);
      if (bytes > limits.maxQueryBytes) return { errors: tooLarge(bytes) };
    }
    let entry = documents.get(query);
    timings.cached = entry !== undefined;
    if (!entry) {
      try {
        const started = performance.now();
        const document = parse(query, { maxTokens: limits.maxTokens, noLocation: false });
        const parsed = performance.now();
        timings.parseMs = parsed - started;
        const errors = validate(schema, document, rules, { maxErrors: 20 });
        timings.validateMs = performance.now() - parsed;
        entry = errors.length
          ? { errors: errors.map((e) => withCode('GRAPHQL_VALIDATION_FAILED')(needsKey(e, keyedOnlyFields))) }
          : { document, normalized: print(document) };
      } catch (err) {
        entry = { errors: [withCode('GRAPHQL_PARSE_FAILED')(err as GraphQLError)] };
      }
      if (limits.documentCacheBytes > 0) documents.set(query, entry);
    }
    return entry;
  }

  const prepare = function prepare(query: string, operationName: string | null | undefined): Prepared {
    const entry = documentFor(query);
    if ('errors' in entry) return { ok: false, errors: entry.errors };
    // An empty name selects like no name. Only successes are kept: they are bounded by the
    // operations in the document, whereas unknown names are whatever a client sends.
    const name = operationName || '';
    const known = entry.prepared?.get(name);
    if (known) return known;
    const result = prepareOperation(entry, operationName);
    if (result.ok) (entry.prepared ??= new Map()).set(name, result);
    return result;
  };
  /** Estimated bytes held by the document cache (tests, readiness details). */
  const cachedBytes = () => documents.calculatedSize;
  return Object.assign(prepare, { cachedBytes, timings: timings as Readonly<typeof timings> });

  function prepareOperation(entry: { document: DocumentNode; normalized: string }, operationName: string | null | undefined): Prepared {
    const ops = entry.document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const operation = operationName ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
    if (!operation) {
      const message = operationName
        ? `Unknown operation named "${operationName}".`
        : 'Must provide operation name if query contains multiple operations.';
      return { ok: false, errors: [new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } })] };
    }
    if (operation.operation !== 'query') {
      // Read-only API: graphql-js 16 validation does not reject an operation type the schema lacks.
      return {
        ok: false,
        errors: [
          new GraphQLError(
            `${operation.operation === 'mutation' ? 'Mutations' : 'Subscriptions'} are not supported: this API is read-only.`,
            { nodes: [operation], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
          ),
        ],
      };
    }
    const fragments = Object.fromEntries(
      entry.document.definitions
        .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
        .map((d) => [d.name.value, d]),
    );
    const rootFields = rootFieldNames(operation.selectionSet, fragments);
    return {
      ok: true,
      op: {
        document: entry.document,
        operation,
        operationName: operation.name?.value ?? null,
        rootFields,
        introspectionOnly: rootFields.every((f) => f.startsWith('__')),
        normalized: entry.normalized,
      },
    };
  }
}

/** graphql-js's unknown-field error on a keyed-only root field, reworded to say what is missing. */
function needsKey(err: GraphQLError, keyedOnly: ReadonlySet<string>): GraphQLError {
  const node = err.nodes?.[0];
  if (node?.kind !== Kind.FIELD || !keyedOnly.has(node.name.value) || !err.message.startsWith('Cannot query field')) return err;
  const message =
    `Field "${node.name.value}" needs an API key: it is served on the production and certification endpoints only (send your ` +
    `key in the x-api-key header), not on the keyless playground.`;
  return new GraphQLError(message, { nodes: err.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED', reason: 'API_KEY_REQUIRED' } });
}

/**
 * Heap a cached entry costs, estimated: a parsed document keeps every token (locations are needed
 * for error positions) with its AST node, plus its text, printed form and the cache's own
 * bookkeeping; an error entry keeps the source text and its error objects (with their stack and
 * locations, plus the message). The constants are calibrated against the V8 heap
 * (docs/operations.md, "Failure behavior and limits").
 */
const BYTES_PER_TOKEN = 320;
const ENTRY_BYTES = 768;
const BYTES_PER_ERROR = 2048;
function entryBytes(entry: { document?: DocumentNode; errors?: GraphQLError[] }, query: string): number {
  let tokens = 0;
  for (let t = entry.document?.loc?.startToken ?? null; t; t = t.next) tokens++;
  const rest = entry.errors ? entry.errors.reduce((n, e) => n + BYTES_PER_ERROR + 2 * e.message.length, 0) : query.length * 2;
  return ENTRY_BYTES + query.length * 2 + tokens * BYTES_PER_TOKEN + rest;
}

function withCode(code: string) {
  return (err: GraphQLError): GraphQLError => {
    if (!(err instanceof GraphQLError)) return new GraphQLError('Could not read the query.', { extensions: { code } });
    // armor rules report through a plain message; keep their text and locations, add our code.
    // Locations from source and positions, not AST nodes: a cached error holding its nodes would
    // keep the whole token list of a hostile document alive beyond what entryBytes counts.
    const out = new GraphQLError(err.message, {
      source: err.source,
      positions: err.positions,
      extensions: { ...err.extensions, code: (err.extensions?.code as string) ?? code },
    });
    // Reading the stack formats it now: until then V8 keeps the frames it was captured in, and
    // they hold the parsed document: cached hostile documents held far more heap than counted
    // (docs/benchmark.md, "Memory and start-up").
    void out.stack;
    return out;
  };
}
