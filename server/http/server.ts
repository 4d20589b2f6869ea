// One HTTP listener per environment: routing, request checks, the plugin chain and execution.
// Built on node:http directly so a verified cache hit is answered without the GraphQL pipeline.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
import fs from 'node:fs';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createPreparer, type PreparedOperation } from '../graphql/prepare.js';
import { executeOperation } from '../graphql/execute.js';
import type { QueryLimits } from '../graphql/limits.js';
import type { FeedRegistry, ResolverContext, ResolverSettings } from '../../resolvers/context.js';
import { clientIp, type TrustProxy } from './client-ip.js';
import { errorReply, pathOf, type EnvironmentName, type HttpPlugin, type Reply, type RequestState } from './plugin.js';
import { parseGraphQLBody, readBody, type GraphQLRequestBody } from './request-body.js';
import { capConnections, serverTimeouts, type ConnectionLimits } from './connections.js';
import { corsHeaders, JSON_HEADERS } from './security-headers.js';
import { answerHeaderList } from './answer-headers.js';
import { ASSET_PREFIX, playgroundAssetReply, playgroundPageReply } from './playground-page.js';
import { createHttpServer, type TlsFiles } from './tls.js';
import { turnBatch } from './turn-batch.js';
import { defenceReporter, type DefenceReport } from './defences.js';
import type { DefenceReason } from './plugin.js';
import type { Warn } from '../../lib/throttled-warning.js';

export interface ListenerOptions {
  environment: EnvironmentName;
  schema: GraphQLSchema;
  limits: QueryLimits;
  supplierFeeds: number;
  /** Root fields only a keyed environment serves (named in this listener's validation errors). */
  keyedOnlyFields?: ReadonlySet<string>;
  meshContext: Record<string | symbol, unknown>;
  feeds: FeedRegistry;
  feedUrls: Record<string, string>;
  /** API keys of the feeds that have one (`<SOURCE>_API_KEY`), for `{context.feedKeys.<Source>}`. */
  feedKeys?: Record<string, string>;
  settings: ResolverSettings;
  plugins: HttpPlugin[];
  trustProxy: TrustProxy;
  cors: '*' | Set<string>;
  bodyLimitBytes: number;
  connections: ConnectionLimits;
  /** Readiness: false until the process can serve, and while a dependency is down (reported, not fatal). */
  health(): { ok: boolean; details: Record<string, unknown> };
  onInternalError(err: unknown, state: RequestState): void;
  /** Where the connection defences' throttled warnings go (server/http/defences.ts); none without it. */
  logger?: { warn: Warn } | null;
  now?: () => Date;
  /** Serve HTTPS with this certificate and key (server/http/tls.ts). */
  tls?: TlsFiles | null;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** A reply waiting to be sent at the end of the loop turn. */
interface Answer {
  res: ServerResponse;
  req: IncomingMessage;
  state: RequestState;
  reply: Reply;
}

/** A hook's result: awaited only when it is a promise (a sync hook costs no microtask hop). */
function isPromise<T>(v: T | Promise<T>): v is Promise<T> {
  return typeof (v as Promise<T> | undefined)?.then === 'function';
}

export function createListener(opts: ListenerOptions): http.Server {
  const prepare = createPreparer(opts.schema, opts.limits, opts.supplierFeeds, opts.keyedOnlyFields);
  // Only the plugins that implement a hook are visited for it.
  const onRequestHooks = opts.plugins.filter((p) => p.onRequest).map((p) => p.onRequest!.bind(p));
  const onParamsPlugins = opts.plugins.filter((p) => p.onParams);
  const onOperationHooks = opts.plugins.filter((p) => p.onOperation).map((p) => p.onOperation!.bind(p));
  const onBeforeExecuteHooks = opts.plugins.filter((p) => p.onBeforeExecute).map((p) => p.onBeforeExecute!.bind(p));
  const onExecutedPlugins = opts.plugins.filter((p) => p.onExecuted);
  const onResponsePlugins = opts.plugins.filter((p) => p.onResponse);
  const servesPage = opts.environment === 'playground';
  const report = defenceReporter({ environment: opts.environment, logger: opts.logger, plugins: opts.plugins });

  function handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      serve(req, res);
    } catch {
      failed(res);
    }
  }

  function serve(req: IncomingMessage, res: ServerResponse): void {
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
      trace: undefined,
    };
    // A cache hit is answered without a promise of its own between the body read and the write:
    // each async layer cost a promise and microtask hops (docs/benchmark.md, "The floor on Node 24").
    let routed: Reply | Promise<Reply>;
    try {
      routed = route(req, state);
    } catch (err) {
      routed = internalError(err, state);
    }
    if (isPromise(routed))
      routed.then(
        (reply) => answer({ res, req, state, reply }),
        (err: unknown) => answer({ res, req, state, reply: internalError(err, state) }),
      );
    else answer({ res, req, state, reply: routed });
  }

  function internalError(err: unknown, state: RequestState): Reply {
    opts.onInternalError(err, state);
    return errorReply(500, `Internal error. Quote request id ${state.requestId} to support.`, 'INTERNAL_SERVER_ERROR', {
      requestId: state.requestId,
    });
  }

  /**
   * Answers are sent at the end of the loop turn, all of that turn's back to back, and then their
   * onResponse hooks (replay, logs, metrics) and the ends of their traces run.
   */
  const answer = turnBatch<Answer>((batch) => {
    for (const a of batch) {
      try {
        send(a.res, a.req, a.state, a.reply, opts.cors);
      } catch {
        failed(a.res);
      }
    }
    for (const { state, reply } of batch) {
      for (const p of onResponsePlugins) {
        try {
          p.onResponse!(state, reply);
        } catch (err) {
          opts.onInternalError(err, state);
        }
      }
      try {
        state.trace?.end(reply);
      } catch (err) {
        opts.onInternalError(err, state);
      }
    }
  });

  /**
   * Each step answers or hands on: probes, path and method, admission plugins, body, GraphQL.
   * Synchronous while its steps are (a Reply, or a promise of one once a step waits).
   */
  function route(req: IncomingMessage, state: RequestState): Reply | Promise<Reply> {
    const pathname = pathOf(req.url);
    if (pathname === '/healthz' || pathname === '/readyz') return probe(pathname, opts);
    if (servesPage && pathname.startsWith(ASSET_PREFIX) && (req.method === 'GET' || req.method === 'HEAD')) {
      // The page's immutable assets: static files, no plugin has a say.
      return playgroundAssetReply(req, pathname).then((asset) => asset ?? endpoint(req, state, pathname));
    }
    return endpoint(req, state, pathname);
  }

  function endpoint(req: IncomingMessage, state: RequestState, pathname: string): Reply | Promise<Reply> {
    if (pathname !== '/graphql') return errorReply(404, 'Not found. The GraphQL endpoint is POST /graphql.', 'NOT_FOUND');
    if (req.method === 'OPTIONS') return { status: 204, headers: {}, body: '' };
    // The playground page is free, but still carries the allowance headers and is rate-limited
    // like other free requests: the admission plugins run for it too.
    const refused = admit(state);
    if (isPromise(refused)) return refused.then((r) => r || admitted(req, state));
    return refused || admitted(req, state);
  }

  function admitted(req: IncomingMessage, state: RequestState): Reply | Promise<Reply> {
    if (req.method === 'GET' && servesPage && acceptsHtml(req)) return playgroundPageReply(req);
    if (req.method !== 'POST') {
      return { ...errorReply(405, 'Use POST /graphql with a JSON body.', 'METHOD_NOT_ALLOWED'), headers: { allow: 'POST' } };
    }
    return readBody(req, opts.bodyLimitBytes).then((raw) => {
      if (!Buffer.isBuffer(raw)) return raw;
      const body = paramsOf(onParamsPlugins, state, parseGraphQLBody(req.headers['content-type'], raw));
      if (isPromise(body)) return body.then((b) => ('status' in b ? b : graphql(req, state, b)));
      return 'status' in body ? body : graphql(req, state, body);
    });
  }

  function admit(state: RequestState): Reply | void | Promise<Reply | void> {
    // onRequest hooks take no operation: none exists yet.
    return firstReply(onRequestHooks as Hook[], state, undefined as unknown as PreparedOperation);
  }

  function graphql(req: IncomingMessage, state: RequestState, body: GraphQLRequestBody): Reply | Promise<Reply> {
    const trace = state.trace;
    const prepareStarted = trace ? performance.now() : 0;
    const prepared = prepare(body.query, body.operationName);
    if (trace) {
      const t = prepare.timings;
      trace.prepared(prepareStarted, t.parseMs, t.validateMs, t.cached, prepared.ok ? prepared.op : null, !prepared.ok);
    }
    // The contract answers every GraphQL-level failure (parse, validation, variables, resolvers)
    // with 200 and `errors`, whatever Accept says: partners are told to read `errors` on 200. The
    // media type is still negotiated (graphql-over-http's 4xx for application/graphql-response+json
    // is a SHOULD; docs/partners.md "HTTP status codes").
    const typeHeader: Record<string, string> = prefersGraphQLResponse(req)
      ? { 'content-type': 'application/graphql-response+json; charset=utf-8' }
      : {};
    if (!prepared.ok) {
      return { status: 200, headers: typeHeader, body: JSON.stringify({ errors: prepared.errors.map((e) => e.toJSON()) }) };
    }
    const op = prepared.op;
    state.operation = op;
    const early = firstReply(onOperationHooks, state, op);
    if (isPromise(early)) return early.then((r) => r || beforeExecute(state, op, body, typeHeader));
    return early || beforeExecute(state, op, body, typeHeader);
  }

  function beforeExecute(
    state: RequestState,
    op: PreparedOperation,
    body: GraphQLRequestBody,
    typeHeader: Record<string, string>,
  ): Reply | Promise<Reply> {
    // A cache hit answers here.
    const early = firstReply(onBeforeExecuteHooks, state, op);
    if (isPromise(early)) return early.then((r) => r || execute(opts, onExecutedPlugins, state, op, body, typeHeader));
    return early || execute(opts, onExecutedPlugins, state, op, body, typeHeader);
  }

  const server = createHttpServer(opts.tls ?? null, { maxHeaderSize: 16 * 1024, ...serverTimeouts(opts.connections) }, handle, report);
  server.on('clientError', clientErrorHandler(report));
  capConnections(server, opts.connections, report);
  return server;
}

/** The onParams plugins from `i` on the parsed body; then the parameters are the request's. */
function paramsOf(
  onParamsPlugins: HttpPlugin[],
  state: RequestState,
  parsed: GraphQLRequestBody | Reply,
  i = 0,
): GraphQLRequestBody | Reply | Promise<GraphQLRequestBody | Reply> {
  let body = parsed;
  if ('status' in body) return body;
  for (; i < onParamsPlugins.length; i++) {
    const r = onParamsPlugins[i]!.onParams!(state, body);
    if (isPromise(r)) {
      const from = body;
      return r.then((next) => paramsOf(onParamsPlugins, state, next || from, i + 1));
    }
    if (r && 'status' in r) return r;
    if (r) body = r;
  }
  state.query = body.query;
  state.variables = body.variables;
  state.operationName = body.operationName;
  return body;
}

/** Runs an operation that no plugin answered, then the onExecuted plugins (the response cache stores it). */
async function execute(
  opts: ListenerOptions,
  onExecutedPlugins: HttpPlugin[],
  state: RequestState,
  op: PreparedOperation,
  body: GraphQLRequestBody,
  typeHeader: Record<string, string>,
): Promise<Reply> {
  const context = resolverContext(opts, state);
  // Set only on a traced request, so an untraced context keeps its shape.
  if (state.trace) context.trace = state.trace.startExecute(op);
  const outcome = await executeOperation(opts.schema, op, body.variables, context, (err) => opts.onInternalError(err, state));
  // (An execution that throws leaves its span to the request span's end, which closes it as failed.)
  state.trace?.endExecute(outcome.hasErrors);
  const reply: Reply = { status: 200, headers: typeHeader, body: outcome.body };
  if (outcome.stale) state.cache = 'STALE';
  for (const p of onExecutedPlugins) {
    const r = p.onExecuted!(state, op, reply, {
      hasErrors: outcome.hasErrors,
      upstreamMaxAge: upstreamMaxAge(state),
      stale: outcome.stale,
    });
    if (isPromise(r)) await r;
  }
  return reply;
}

const CLIENT_ERRORS: Record<number, { reason: DefenceReason; message: string }> = {
  431: { reason: 'headers_too_large', message: 'Request headers are too large.' },
  408: { reason: 'request_timeout', message: 'Request timed out.' },
  400: { reason: 'malformed', message: 'Malformed HTTP request.' },
};

/** Malformed HTTP, oversize headers, a request not received in time: answered with a JSON body rather than dropped, and reported. */
function clientErrorHandler(report: DefenceReport) {
  return (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A socket the client already reset or closed is no defence's doing: not reported.
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const { reason, message } = CLIENT_ERRORS[status]!;
    report(reason, (socket as Socket).remoteAddress, { status });
    const body = JSON.stringify({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
    // Closed a second later whatever the client does: one that never reads (an idle-socket flood)
    // must not hold it half-open; the second lets a client that does read get the answer.
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ` +
        `${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    setTimeout(() => socket.destroy(), 1000).unref();
  };
}

/** What a request gets when even the internal-error reply could not be made. */
function failed(res: ServerResponse): void {
  if (!res.headersSent) res.writeHead(500, JSON_HEADERS);
  res.end(JSON.stringify({ errors: [{ message: 'Internal error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }));
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

/**
 * Plugin hooks in order from `i`; the first Reply answers the request. Synchronous while the hooks
 * are (a sync hook costs no microtask hop on the hot path).
 */
type Hook = (state: RequestState, op: PreparedOperation) => Reply | void | Promise<Reply | void>;
function firstReply(hooks: Hook[], state: RequestState, op: PreparedOperation, i = 0): Reply | void | Promise<Reply | void> {
  for (; i < hooks.length; i++) {
    const r = hooks[i]!(state, op);
    if (isPromise(r)) return r.then((early) => early || firstReply(hooks, state, op, i + 1));
    if (r) return r;
  }
  return undefined;
}

/** /healthz (liveness) or /readyz (readiness) of one listener. */
function probe(pathname: string, opts: Pick<ListenerOptions, 'health' | 'environment'>): Reply {
  const h = opts.health();
  const live = pathname === '/healthz';
  // Liveness stays terse; readiness names what is degraded (no counts or paths either way).
  const body = live
    ? { status: 'ok', environment: opts.environment }
    : { status: h.ok ? 'ok' : 'degraded', environment: opts.environment, ...h.details };
  return { status: live || h.ok ? 200 : 503, headers: {}, body: JSON.stringify(body) };
}

/** Writes a reply with the answer headers (CORS, request id, cache, length); a static file is streamed. */
function send(res: ServerResponse, req: IncomingMessage, state: RequestState, reply: Reply, cors: ListenerOptions['cors']) {
  if (res.headersSent || res.destroyed) return;
  const cache = state.operation && !state.operation.introspectionOnly ? state.cache : null;
  const length = reply.file ? reply.file.size : reply.bytes ? reply.bytes.length : Buffer.byteLength(reply.body);
  res.writeHead(
    reply.status,
    answerHeaderList(
      req.headers.origin ? corsHeaders(req.headers.origin, cors) : null,
      state.requestId,
      state.headers,
      reply.headers,
      cache,
      length,
    ),
  );
  if (reply.file && req.method !== 'HEAD') {
    fs.createReadStream(reply.file.path)
      .on('error', () => res.destroy())
      .pipe(res);
    return;
  }
  res.end(reply.bytes ?? reply.body);
}

/** What the resolvers of one request see: the listener's feeds and settings, the request's partner and id. */
function resolverContext(opts: ListenerOptions, state: RequestState): ResolverContext {
  return {
    ...opts.meshContext,
    environment: opts.environment,
    partnerCode: state.partnerCode,
    requestId: state.requestId,
    feeds: opts.feeds,
    feedUrls: opts.feedUrls,
    feedKeys: opts.feedKeys ?? {},
    settings: opts.settings,
    upstreamCalls: state.upstreamCalls,
    extraErrors: [],
    staleFeeds: [],
    now: opts.now ?? (() => new Date()),
  };
}
