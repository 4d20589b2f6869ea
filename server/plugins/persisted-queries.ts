// Automatic persisted queries (the Apollo APQ protocol, as Apollo Client's and urql's persisted-query
// links speak it): a request may carry `extensions.persistedQuery: { version: 1, sha256Hash }`.
// - hash only, known      -> runs the stored document (then like any request: validation, limits,
//                            allowance, cache);
// - hash only, unknown    -> 200 with the error `PersistedQueryNotFound` (code
//                            PERSISTED_QUERY_NOT_FOUND); the client then sends the document too;
// - hash and document     -> the hash must be the SHA-256 of the document (else 400); the document
//                            is stored once it has passed validation, and runs; a document writing
//                            personal data in its text (a literal to a @personalData argument) is
//                            refused with 400 PERSISTED_QUERY_PERSONAL_DATA, and not stored.
// Nothing runs for a miss, so a miss costs no playground allowance; a stored document counts as
// what it is (a real query counts, introspection is free).
import { createHash } from 'node:crypto';
import type { EnvironmentName, GraphQLRequestBody, HttpPlugin, Reply, RequestState } from '../http/plugin.js';
import { errorReply } from '../http/plugin.js';
import type { PersistedQueryStore } from '../../cache/persisted-query-store.js';
import { personalLiterals } from '../../resolvers/personal-literals.js';

const HASH = /^[0-9a-f]{64}$/i;
const PENDING = Symbol('persisted query to store');

/** Not cacheable anywhere: the client is about to fix the miss by sending the document. */
const NOT_FOUND: Reply = {
  status: 200,
  headers: { 'cache-control': 'private, no-cache, must-revalidate' },
  body: JSON.stringify({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] }),
};

export function persistedQueryPlugin(opts: {
  store: PersistedQueryStore;
  environment: EnvironmentName;
  onError(err: unknown, what: string): void;
}): HttpPlugin {
  const { store, environment } = opts;
  /** A request naming a persisted query: its hash checked, its document registered or read. */
  async function persisted(
    state: RequestState,
    body: GraphQLRequestBody,
    pq: Record<string, unknown>,
  ): Promise<GraphQLRequestBody | Reply | void> {
    if (pq.version !== 1)
      return errorReply(
        400,
        'Unsupported persisted query version: send extensions.persistedQuery.version 1.',
        'PERSISTED_QUERY_VERSION_NOT_SUPPORTED',
      );
    if (typeof pq.sha256Hash !== 'string' || !HASH.test(pq.sha256Hash)) {
      return errorReply(
        400,
        '"extensions.persistedQuery.sha256Hash" must be the hex SHA-256 (64 characters) of the query document.',
        'BAD_REQUEST',
      );
    }
    const hash = pq.sha256Hash.toLowerCase();
    if (body.query !== '') {
      if (createHash('sha256').update(body.query).digest('hex') !== hash) {
        return errorReply(
          400,
          'provided sha does not match query: sha256Hash must be the SHA-256 of the exact query text sent.',
          'BAD_REQUEST',
        );
      }
      (state.notes as Record<symbol, unknown>)[PENDING] = hash;
      state.notes.persistedQuery = 'registered';
      return;
    }
    let document: string | null = null;
    try {
      document = await store.get(environment, hash);
    } catch (err) {
      opts.onError(err, 'persisted query read');
    }
    state.notes.persistedQuery = document === null ? 'miss' : 'hit';
    if (document === null) return NOT_FOUND;
    return { ...body, query: document };
  }

  return {
    name: 'persisted-queries',
    // Most requests name no persisted query: answered without a promise (a microtask hop each).
    onParams(state, body) {
      const pq = body.persistedQuery;
      return pq ? persisted(state, body, pq) : undefined;
    },
    onOperation(state, op) {
      // Stored only once it parsed and validated: a store of runnable documents, not of any text.
      const hash = (state.notes as Record<symbol, unknown>)[PENDING] as string | undefined;
      if (!hash || !state.query) return;
      // Never personal data in clear in the store: such a document is refused, and does not run.
      const personal = personalLiterals(op.document);
      if (personal.length) {
        state.notes.persistedQuery = 'refused';
        return errorReply(400, personalDataMessage(personal), 'PERSISTED_QUERY_PERSONAL_DATA', { arguments: personal });
      }
      store.put(environment, hash, state.query).catch((err) => opts.onError(err, 'persisted query write'));
    },
  };
}

/** What a partner reads when a document to persist holds personal data: which arguments, and what to do instead. */
function personalDataMessage(coordinates: string[]): string {
  const args = coordinates.map((c) => c.split('.') as [string, string, string]);
  const [, field, arg] = args[0]!;
  return (
    `A persisted query must not hold personal data in its text: pass ${args.map(([, f, a]) => `${f}(${a}:)`).join(', ')} as a variable ` +
    `(e.g. ${field}(${arg}: $${arg}), its value in "variables", with no default value), then register the document again.`
  );
}
