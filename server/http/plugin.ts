// The request-level plugin contract of our HTTP listeners. Each cross-cutting concern (keys,
// playground allowance, response cache, replay, logs, metrics) is one plugin in one file.
import type { IncomingMessage } from 'node:http';
import type { PreparedOperation } from '../graphql/prepare.js';
import type { UpstreamCall } from '../../resolvers/context.js';
import type { FeedTracer } from '../../sources/upstream/feed-scope.js';

export type EnvironmentName = 'production' | 'certification' | 'playground';

/**
 * A listener defence that refused or cut off a client before any request reached the plugins
 * (server/http/defences.ts): a socket over the per-address cap, a socket that sent no request shed
 * at the listener's cap, an HTTP/2 connection closed for too many stream resets, and the 431, 400
 * and 408 the listener answers itself.
 */
export type DefenceReason = 'per_ip_cap' | 'silent_shed' | 'h2_rapid_reset' | 'headers_too_large' | 'malformed' | 'request_timeout';

/** The parameters of a GraphQL request, as read from its body (request-body.ts). */
export interface GraphQLRequestBody {
  /** '' when the request names a persisted query by hash only (then `persistedQuery` is set). */
  query: string;
  variables: Record<string, unknown> | null;
  operationName: string | null;
  /** `extensions.persistedQuery` as sent (checked by server/plugins/persisted-queries.ts). */
  persistedQuery?: Record<string, unknown>;
}

/** An answer ready to send: status, headers and an already serialized JSON body. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** body as UTF-8 bytes, when already at hand (a cache hit): sent as is. */
  bytes?: Buffer;
  /** A static file streamed instead of body (the playground page); body is then ''. */
  file?: { path: string; size: number };
}

export interface RequestState {
  environment: EnvironmentName;
  requestId: string;
  clientIp: string;
  receivedAt: number;
  req: IncomingMessage;
  partnerCode: string | null;
  /** Set once the body is parsed. */
  query?: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  operation?: PreparedOperation;
  /** COALESCED: answered with the bytes of an identical request's execution it waited for. */
  cache: 'HIT' | 'MISS' | 'BYPASS' | 'STALE' | 'COALESCED';
  upstreamCalls: UpstreamCall[];
  /** The response cache key of a cacheable operation (set by the response cache on a miss). */
  cacheKey?: string;
  /** Headers every response to this request carries (added by plugins). */
  headers: Record<string, string>;
  /** Free-form notes for logs and replay (e.g. allowance remaining). */
  notes: Record<string, unknown>;
  /** Set by the tracing plugin when this request is traced (sampled); undefined otherwise, at no cost. */
  trace?: RequestTrace;
}

/** Attribute values a span may hold. */
export type TraceAttributes = Record<string, string | number | boolean | string[]>;

/**
 * The trace of one request (server/plugins/tracing.ts). Steps are reported with the
 * `performance.now()` they started at; a step without children is a span created when it ends.
 */
export interface RequestTrace {
  /** 32 hex digits: in the log line, the replay record and the console. */
  readonly traceId: string;
  /** A finished step (cache lookup, allowance count, replay record) as a child of the request span. */
  step(name: string, startedAt: number, attributes: TraceAttributes, failed?: boolean): void;
  /** Parse and validation of the query (timings from the preparer; 0 when its document cache answered). */
  prepared(startedAt: number, parseMs: number, validateMs: number, cached: boolean, op: PreparedOperation | null, failed: boolean): void;
  /** Starts the execute span: feed calls made until it ends are its children. */
  startExecute(op: PreparedOperation): FeedTracer;
  endExecute(hasErrors: boolean): void;
  /** Ends the request span once the answer is sent and every onResponse hook has run. */
  end(reply: Reply): void;
}

export interface HttpPlugin {
  name: string;
  /** Before the body is read. Return a Reply to answer now (e.g. 403). */
  onRequest?(state: RequestState): Reply | void | Promise<Reply | void>;
  /**
   * After the body is read, before the query is parsed: return other parameters to run instead (a
   * persisted query's document), or a Reply to answer now.
   */
  onParams?(state: RequestState, body: GraphQLRequestBody): GraphQLRequestBody | Reply | void | Promise<GraphQLRequestBody | Reply | void>;
  /** After parse and validation of an executable operation. Return a Reply to answer now (e.g. 429). */
  onOperation?(state: RequestState, op: PreparedOperation): Reply | void | Promise<Reply | void>;
  /** Before execution: a Reply here is served as the result (response cache hit). */
  onBeforeExecute?(state: RequestState, op: PreparedOperation): Reply | void | Promise<Reply | void>;
  /** After execution, with the serialized result (response cache store). */
  onExecuted?(state: RequestState, op: PreparedOperation, reply: Reply, result: ExecutedResult): void | Promise<void>;
  /** After the reply is sent; must not throw or block (replay, logs, metrics). */
  onResponse?(state: RequestState, reply: Reply): void;
  /** A listener defence acted (no request, no RequestState); must not throw or block (metrics). */
  onDefence?(reason: DefenceReason): void;
  close?(): Promise<void> | void;
}

export interface ExecutedResult {
  hasErrors: boolean;
  /** Seconds the shortest upstream Cache-Control allows, if any feed said so. */
  upstreamMaxAge: number | null;
  stale: boolean;
}

/** The path of a request URL, without its query string. */
export function pathOf(url: string | undefined): string {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q < 0 ? u : u.slice(0, q);
}

function graphqlErrorBody(message: string, code: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ errors: [{ message, extensions: { code, ...extra } }] });
}

export function errorReply(status: number, message: string, code: string, extra: Record<string, unknown> = {}): Reply {
  return { status, headers: {}, body: graphqlErrorBody(message, code, extra) };
}
