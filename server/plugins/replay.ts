// Replay plugin: after the answer is sent, queue a record of the request and of exactly what was
// sent, for support (`npm run replay`, admin endpoint). Never the API key: the record holds the
// partner code only, and no request headers. Every request is recorded, whatever its variables;
// what a record keeps of its text and of personal data is decided in stores/replay-privacy.ts.
import { pathOf, type HttpPlugin, type Reply, type RequestState } from '../http/plugin.js';
import type { ReplayRecord, ReplayStore } from '../../stores/replay-store.js';
import { digestQuery, sealPersonalData } from '../../stores/replay-privacy.js';
import { schemaPolicy } from '../../resolvers/schema-policy.js';
import { isoTime } from '../../lib/iso-time.js';
import { Kind, type DocumentNode } from 'graphql';
import { documentOf, replayFacets, rootFieldsOf } from '../../stores/replay-facets.js';

const KEPT_HEADERS = /^(x-request-id|x-cache|age|retry-after|x-ratelimit-.*|ratelimit|ratelimit-policy)$/i;
const SECRET_NOTE = /^(x-?api-?key|api_?key|key|token|secret|password|authorization)$/i;

/** Builds the record of one request (exported for tests). */
export function replayRecord(state: RequestState, reply: Reply, now = Date.now(), piiKey: Buffer | null = null): ReplayRecord {
  // Built field by field (no spread copies): it runs for every answer, cache hits included.
  const op = state.operation;
  // Facets and the operation name read the parsed document, never the text (replay-facets.ts).
  const document = op ? op.document : documentOf(state.query);
  const responseHeaders: Record<string, string> = { 'x-request-id': state.requestId };
  keepHeaders(responseHeaders, state.headers);
  keepHeaders(responseHeaders, reply.headers);
  // The listener derives x-cache from state.cache when it sends (see http/server.ts).
  const cacheHeader = state.operation && !state.operation.introspectionOnly ? state.cache : null;
  if (cacheHeader) responseHeaders['x-cache'] = cacheHeader;
  let notes: Record<string, unknown> | undefined;
  for (const k in state.notes) {
    if (SECRET_NOTE.test(k)) continue;
    (notes ??= {})[k] = state.notes[k];
  }
  // A refused key of another environment (or revoked) still names its partner: support finds it.
  const auth = state.notes.auth as { partnerCode?: unknown } | undefined;
  const record: ReplayRecord = {
    id: state.requestId,
    time: isoTime(state.receivedAt),
    environment: state.environment,
    partnerCode: state.partnerCode ?? (typeof auth?.partnerCode === 'string' ? auth.partnerCode : null),
    clientIp: state.clientIp,
    operationName: recordedOperationName(state, document),
    query: state.query ?? null,
    variables: state.variables ?? null,
    status: reply.status,
    responseBody: reply.body,
    responseHeaders,
    fromCache: state.cache === 'HIT',
    cache: cacheHeader,
    upstreamCalls: state.upstreamCalls.map((c) => ({
      feed: c.feed,
      url: c.url,
      status: c.status,
      durationMs: c.durationMs,
      ...(c.error ? { error: c.error } : {}),
    })),
    durationMs: Math.max(0, now - state.receivedAt),
  };
  if (notes) record.notes = notes;
  if (state.trace) record.traceId = state.trace.traceId;
  // Before the text is digested or sealed: the search reads these, never the answer.
  record.facets = replayFacets(
    { body: reply.body, rootFields: op ? op.rootFields : rootFieldsOf(document), document, variables: state.variables },
    state.cache === 'HIT',
  );
  // Only an executed operation keeps its text (support re-runs it); the rest keep a digest.
  const executed = !!op && !op.introspectionOnly && reply.status < 400;
  if (!executed && record.query !== null) {
    record.queryDigest = digestQuery(record.query);
    record.query = null;
    record.variables = null;
  }
  // Personal data follows the schema's @personalData marking (resolvers/schema-policy.ts).
  const personal = op ? schemaPolicy.selectsPersonalData(op.rootFields) : !!state.query && mayMentionPersonalData(state.query);
  if (personal) sealPersonalData(record, piiKey);
  return record;
}

/** Stored in place of an operation name that names no operation of the document. */
const UNKNOWN_OPERATION = '<unknown>';
/** The GraphQL Name grammar, bounded. */
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,127}$/;

/**
 * The operation name a record keeps: the executed operation's own name; for a document that did
 * not prepare, the sent name only when its document declares an operation of that name. Anything else
 * the client sent as operationName (an address, a token) is stored as '<unknown>', never verbatim.
 */
function recordedOperationName(state: RequestState, document: DocumentNode | null): string | null {
  const declared = state.operation?.operationName;
  if (state.operation) return declared ? (GRAPHQL_NAME.test(declared) ? declared : UNKNOWN_OPERATION) : null;
  const sent = state.operationName;
  // Never executed (invalid) and sent without operationName: the one name its document declares.
  if (!sent) return document ? declaredName(document) : null;
  // Looked up in the parsed document (bounded), never by searching the text.
  const names = document?.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === sent);
  return names && GRAPHQL_NAME.test(sent) ? sent : UNKNOWN_OPERATION;
}

/** The name of the document's only operation, when it declares exactly one named one. */
function declaredName(document: DocumentNode): string | null {
  const names = document.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION && d.name ? [d.name.value] : []));
  return names.length === 1 && GRAPHQL_NAME.test(names[0]!) ? names[0]! : null;
}

/** For text that never parsed: true when it may name a personal-data root field (errs on the safe side). */
function mayMentionPersonalData(text: string): boolean {
  for (const f of schemaPolicy.neverCached) if (text.includes(f)) return true;
  return false;
}

/** Copies the headers worth keeping; a later source replaces an earlier one, '' removes it. */
function keepHeaders(into: Record<string, string>, from: Record<string, string | number | undefined>): void {
  for (const k in from) {
    if (!KEPT_HEADERS.test(k)) continue;
    const v = from[k];
    if (v === '' || v === undefined) delete into[k];
    else into[k] = String(v);
  }
}

function worthRecording(state: RequestState, reply: Reply): boolean {
  const pathname = pathOf(state.req.url);
  if (pathname === '/healthz' || pathname === '/readyz') return false;
  if (state.req.method === 'OPTIONS') return false;
  // The GraphiQL page and its assets (files, or a 304 of them) are not API answers.
  if (reply.file || reply.status === 304 || pathname !== '/graphql') return false;
  const type = reply.headers['content-type'];
  if (type !== undefined && /text\/html/i.test(type)) return false;
  return true;
}

export function replayPlugin(store: ReplayStore, piiKey: Buffer | null = null): HttpPlugin {
  return {
    name: 'replay',
    onResponse(state: RequestState, reply: Reply): void {
      try {
        if (!worthRecording(state, reply)) return;
        const trace = state.trace;
        const started = trace ? performance.now() : 0;
        store.enqueue(replayRecord(state, reply, Date.now(), piiKey));
        // Building and queueing the record: the store writes it in a batch, after the answer.
        trace?.step('gateway.replay.record', started, { 'gateway.request.id': state.requestId });
      } catch {
        store.noteDropped();
      }
    },
  };
}
