// One HTTP listener per environment: routing, request checks, the plugin chain and execution.
// Built on node:http directly so a verified cache hit is answered without the GraphQL pipeline.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
import fs from 'node:fs';
import { createPreparer } from '../graphql/prepare.js';
import { executeOperation } from '../graphql/execute.js';
import type { QueryLimits } from '../graphql/limits.js';
import type { FeedRegistry, ResolverContext, ResolverSettings } from '../../api/context.js';
import { clientIp, type TrustProxy } from './client-ip.js';
import { errorReply, pathOf, type EnvironmentName, type HttpPlugin, type Reply, type RequestState } from './plugin.js';
import { parseGraphQLBody, readBody } from './request-body.js';
import { API_HEADERS, corsHeaders } from './security-headers.js';
import { playgroundPageFile } from './playground-page.js';
import { createHttpServer, type TlsFiles } from './tls.js';

export interface ListenerOptions {
  environment: EnvironmentName;
  schema: GraphQLSchema;
  limits: QueryLimits;
  supplierFeeds: number;
  meshContext: Record<string | symbol, unknown>;
  feeds: FeedRegistry;
  feedUrls: Record<string, string>;
  settings: ResolverSettings;
  plugins: HttpPlugin[];
  trustProxy: TrustProxy;
  cors: '*' | Set<string>;
  bodyLimitBytes: number;
  /** Readiness: false until the process can serve, and while a dependency is down (reported, not fatal). */
  health(): { ok: boolean; details: Record<string, unknown> };
  onInternalError(err: unknown, state: RequestState): void;
  now?: () => Date;
  /** Serve HTTPS with this certificate and key (server/http/tls.ts). */
  tls?: TlsFiles | null;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
/** The headers every answer starts from (API_HEADERS, then the JSON content type), merged once. */
const BASE_HEADERS: [string, string][] = Object.entries({ ...API_HEADERS, ...JSON_HEADERS });

/** A hook's result: awaited only when it is a promise (a sync hook costs no microtask hop). */
function isPromise<T>(v: T | Promise<T>): v is Promise<T> {
  return typeof (v as Promise<T> | undefined)?.then === 'function';
}

export function createListener(opts: ListenerOptions): http.Server {
  const prepare = createPreparer(opts.schema, opts.limits, opts.supplierFeeds);
  // Only the plugins that implement a hook are visited for it.
  const onRequestPlugins = opts.plugins.filter((p) => p.onRequest);
  const onOperationPlugins = opts.plugins.filter((p) => p.onOperation);
  const onBeforeExecutePlugins = opts.plugins.filter((p) => p.onBeforeExecute);
  const onExecutedPlugins = opts.plugins.filter((p) => p.onExecuted);
  const onResponsePlugins = opts.plugins.filter((p) => p.onResponse);
  const servesPage = opts.environment === 'playground';

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const incomingId = req.headers['x-request-id'];
    const state: RequestState = {
      environment: opts.environment,
      requestId: typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID(),
      clientIp: clientIp(req, opts.trustProxy),
      receivedAt: Date.now(),
      req,
      partnerCode: null,
      cache: 'BYPASS',
      upstreamCalls: [],
      headers: {},
      notes: {},
    };
    let reply: Reply;
    try {
      reply = await route(req, state);
    } catch (err) {
      opts.onInternalError(err, state);
      reply = errorReply(500, `Internal error. Quote request id ${state.requestId} to support.`, 'INTERNAL_SERVER_ERROR', { requestId: state.requestId });
    }
    send(res, req, state, reply);
    for (const p of onResponsePlugins) {
      try {
        p.onResponse!(state, reply);
      } catch (err) {
        opts.onInternalError(err, state);
      }
    }
  }

  async function route(req: IncomingMessage, state: RequestState): Promise<Reply> {
    const pathname = pathOf(req.url);
    if (pathname === '/healthz' || pathname === '/readyz') {
      const h = opts.health();
      const status = pathname === '/healthz' ? 200 : h.ok ? 200 : 503;
      // Liveness stays terse; readiness names what is degraded (no counts or paths either way).
      const body = pathname === '/healthz' ? { status: 'ok', environment: opts.environment } : { status: h.ok ? 'ok' : 'degraded', environment: opts.environment, ...h.details };
      return { status, headers: {}, body: JSON.stringify(body) };
    }
    if (pathname !== '/graphql') return errorReply(404, 'Not found. The GraphQL endpoint is POST /graphql.', 'NOT_FOUND');
    if (req.method === 'OPTIONS') return { status: 204, headers: {}, body: '' };
    if (req.method === 'GET' && servesPage && acceptsHtml(req)) {
      // The playground page is free, but still carries the allowance headers (set in onRequest).
      for (const p of onRequestPlugins) {
        const r = p.onRequest!(state);
        if (isPromise(r)) await r;
      }
      const file = await playgroundPageFile();
      return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': '' }, body: '', file };
    }
    for (const p of onRequestPlugins) {
      const r = p.onRequest!(state);
      const early = isPromise(r) ? await r : r;
      if (early) return early;
    }
    if (req.method !== 'POST') {
      return { ...errorReply(405, 'Use POST /graphql with a JSON body.', 'METHOD_NOT_ALLOWED'), headers: { allow: 'POST' } };
    }
    const raw = await readBody(req, opts.bodyLimitBytes);
    if (!Buffer.isBuffer(raw)) return raw;
    const body = parseGraphQLBody(req.headers['content-type'], raw);
    if ('status' in body) return body;
    state.query = body.query;
    state.variables = body.variables;
    state.operationName = body.operationName;

    const prepared = prepare(body.query, body.operationName);
    // The spec answers GraphQL-level failures with 200 (application/json). A client that asks for
    // application/graphql-response+json first gets that media type's 400 semantics instead.
    const gqlResponse = prefersGraphQLResponse(req);
    const typeHeader: Record<string, string> = gqlResponse ? { 'content-type': 'application/graphql-response+json; charset=utf-8' } : {};
    if (!prepared.ok) {
      return { status: gqlResponse ? 400 : 200, headers: typeHeader, body: JSON.stringify({ errors: prepared.errors.map((e) => e.toJSON()) }) };
    }
    const op = prepared.op;
    state.operation = op;
    for (const p of onOperationPlugins) {
      const r = p.onOperation!(state, op);
      const early = isPromise(r) ? await r : r;
      if (early) return early;
    }
    for (const p of onBeforeExecutePlugins) {
      const r = p.onBeforeExecute!(state, op);
      const hit = isPromise(r) ? await r : r;
      if (hit) return hit;
    }
    const context: ResolverContext = {
      ...opts.meshContext,
      environment: opts.environment,
      partnerCode: state.partnerCode,
      requestId: state.requestId,
      feeds: opts.feeds,
      feedUrls: opts.feedUrls,
      settings: opts.settings,
      upstreamCalls: state.upstreamCalls,
      extraErrors: [],
      staleFeeds: [],
      now: opts.now ?? (() => new Date()),
    };
    const outcome = await executeOperation(opts.schema, op, body.variables, context, (err) => opts.onInternalError(err, state));
    const requestError = gqlResponse && outcome.hasErrors && !outcome.body.includes('"data"');
    const reply: Reply = { status: requestError ? 400 : 200, headers: typeHeader, body: outcome.body };
    if (outcome.stale) state.cache = 'STALE';
    for (const p of onExecutedPlugins) {
      const r = p.onExecuted!(state, op, reply, { hasErrors: outcome.hasErrors, upstreamMaxAge: upstreamMaxAge(state), stale: outcome.stale });
      if (isPromise(r)) await r;
    }
    return reply;
  }

  function send(res: ServerResponse, req: IncomingMessage, state: RequestState, reply: Reply) {
    if (res.headersSent || res.destroyed) return;
    // Same names, order and precedence as spreading API_HEADERS, JSON_HEADERS, CORS, x-request-id,
    // state.headers and reply.headers into one object (a later name replaces the value in place),
    // '' removing a header; handed to writeHead as a flat [name, value, ...] list. Growing a header
    // object property by property cost ~10 µs a request (V8 object shape changes); a Map does not.
    const merged = new Map<string, string>(BASE_HEADERS);
    const origin = req.headers.origin;
    if (origin) for (const [k, v] of Object.entries(corsHeaders(origin, opts.cors))) merged.set(k, v);
    merged.set('x-request-id', state.requestId);
    for (const k in state.headers) merged.set(k, state.headers[k]!);
    for (const k in reply.headers) merged.set(k, reply.headers[k]!);
    if (state.operation && !state.operation.introspectionOnly) merged.set('x-cache', state.cache);
    merged.set('content-length', String(reply.file ? reply.file.size : reply.bytes ? reply.bytes.length : Buffer.byteLength(reply.body)));
    const headers: string[] = [];
    for (const [k, v] of merged) if (v !== '') headers.push(k, v);
    res.writeHead(reply.status, headers);
    if (reply.file && req.method !== 'HEAD') {
      fs.createReadStream(reply.file.path).on('error', () => res.destroy()).pipe(res);
      return;
    }
    res.end(reply.bytes ?? reply.body);
  }

  const server = createHttpServer(opts.tls ?? null, { maxHeaderSize: 16 * 1024, requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, JSON_HEADERS);
      res.end(JSON.stringify({ errors: [{ message: 'Internal error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }));
    });
  });
  // Malformed HTTP (bad headers, oversize headers): answer with a JSON body rather than drop.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({ errors: [{ message: status === 431 ? 'Request headers are too large.' : status === 408 ? 'Request timed out.' : 'Malformed HTTP request.', extensions: { code: 'BAD_REQUEST' } }] });
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  return server;
}

function prefersGraphQLResponse(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  // Most clients send no such media type at all: skip the split.
  if (!accept || !/graphql-response/i.test(accept)) return false;
  const first = accept.split(',')[0]!.trim().toLowerCase();
  return first.startsWith('application/graphql-response+json');
}

function acceptsHtml(req: IncomingMessage): boolean {
  return /text\/html/.test(String(req.headers.accept ?? ''));
}

function upstreamMaxAge(state: RequestState): number | null {
  let min: number | null = null;
  for (const c of state.upstreamCalls) {
    const age = (c as { maxAge?: number | null }).maxAge;
    if (typeof age === 'number') min = min === null ? age : Math.min(min, age);
  }
  return min;
}
