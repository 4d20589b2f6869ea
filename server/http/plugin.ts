// The request-level plugin contract of our HTTP listeners. Each cross-cutting concern (keys,
// playground allowance, response cache, replay, logs, metrics) is one plugin in one file.
import type { IncomingMessage } from 'node:http';
import type { PreparedOperation } from '../graphql/prepare.js';
import type { UpstreamCall } from '../../resolvers/context.js';

export type EnvironmentName = 'production' | 'certification' | 'playground';

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

export function graphqlErrorBody(message: string, code: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ errors: [{ message, extensions: { code, ...extra } }] });
}

export function errorReply(status: number, message: string, code: string, extra: Record<string, unknown> = {}): Reply {
  return { status, headers: {}, body: graphqlErrorBody(message, code, extra) };
}
