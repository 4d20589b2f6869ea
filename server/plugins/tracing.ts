// Tracing plugin: one OpenTelemetry trace per sampled request. Its onRequest starts the request
// span (HTTP server semantic conventions) and, when the sampler keeps it, puts a RequestTrace on
// the request state; the listener, the other plugins and the feed transport report their steps
// through it (`state.trace?.…`), so an untraced request pays one property check per step and
// allocates nothing. Spans are built with explicit parents, never through a context manager:
// AsyncLocalStorage would tax every promise of the process, traced or not.
//
//   POST /graphql (server)                  environment, partner code, request id, status, cache state
//   ├─ gateway.allowance.admit / .count     playground: remaining calls, counted or not
//   ├─ graphql.parse, graphql.validate      operation name and type, root fields, document cached
//   ├─ gateway.cache.lookup                 hit / miss / bypass, level (memory / redis)
//   ├─ gateway.cache.coalesce               a waiter: coalesced / gave_up
//   ├─ graphql.execute                      operation name and type, root fields, has_errors
//   │  └─ feed <name>                       feed, page, breaker state, attempts, deduplicated, stale
//   │     └─ GET (client)                   HTTP client semantic conventions, one per attempt; its
//   │                                       traceparent is sent to the feed
//   └─ gateway.replay.record
//
// Never in a span: variables, query text, response bodies, request headers (keys), the client's
// address, feed query strings (the premises feed carries the street address there), error messages.
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  trace,
  type Context,
  type Link,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { PreparedOperation } from '../graphql/prepare.js';
import {
  pathOf,
  type EnvironmentName,
  type HttpPlugin,
  type Reply,
  type RequestState,
  type RequestTrace,
  type TraceAttributes,
} from '../http/plugin.js';
import type { FeedAttemptSpan, FeedCallSpan, FeedTracer } from '../../sources/upstream/feed-scope.js';
import type { IncomingParent } from '../observability/tracing-config.js';

// GraphQL and deployment attributes are still "incubating" in the semantic conventions: their
// names are copied here, as the conventions package advises, rather than imported.
const GRAPHQL_OPERATION_NAME = 'graphql.operation.name';
const GRAPHQL_OPERATION_TYPE = 'graphql.operation.type';
const ROOT_FIELDS = 'gateway.graphql.root_fields';
const ENVIRONMENT = 'gateway.environment';
const PARTNER = 'gateway.partner.code';
const REQUEST_ID = 'gateway.request.id';

interface TracingPluginOptions {
  tracer: Tracer;
  /** W3C trace context (traceparent / tracestate), from @opentelemetry/core. */
  propagator: TextMapPropagator;
  environment: EnvironmentName;
  incomingParent: IncomingParent;
  scheme: 'http' | 'https';
}

/** Only the name of an operation of the document, and a plain GraphQL name (as in the log line). */
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

function operationAttributes(op: PreparedOperation): TraceAttributes {
  const attributes: TraceAttributes = {
    [GRAPHQL_OPERATION_TYPE]: op.operation.operation,
    [ROOT_FIELDS]: op.rootFields,
  };
  if (op.operationName && OPERATION_NAME.test(op.operationName)) attributes[GRAPHQL_OPERATION_NAME] = op.operationName;
  return attributes;
}

export function tracingPlugin(opts: TracingPluginOptions): HttpPlugin {
  const { tracer, propagator, environment, incomingParent, scheme } = opts;

  /** The partner's trace context: the parent (continue) or a link (link), as configured. */
  function partnerParent(state: RequestState): { parent: Context; links?: Link[] } {
    if (incomingParent === 'ignore' || state.req.headers.traceparent === undefined) return { parent: ROOT_CONTEXT };
    const extracted = propagator.extract(ROOT_CONTEXT, state.req.headers, defaultTextMapGetter);
    const partner = trace.getSpanContext(extracted);
    if (!partner || !isSpanContextValid(partner)) return { parent: ROOT_CONTEXT };
    if (incomingParent === 'continue') return { parent: extracted };
    return { parent: ROOT_CONTEXT, links: [{ context: partner, attributes: { 'gateway.link.reason': 'partner traceparent' } }] };
  }

  return {
    name: 'tracing',
    onRequest(state: RequestState): void {
      const req = state.req;
      const method = req.method ?? 'GET';
      const path = pathOf(req.url);
      const { parent, links } = partnerParent(state);
      // Attributes only once sampled: the SDK checks each one even for a span it does not record,
      // most of what an unsampled request span cost (docs/benchmark.md, "The cache hit").
      const span = tracer.startSpan(`${method} ${path}`, { kind: SpanKind.SERVER, startTime: state.receivedAt, links }, parent);
      // Not sampled: nothing is recorded, so the request goes on untraced (no trace id to quote either).
      if (!span.isRecording()) return;
      span.setAttributes({
        [ATTR_HTTP_REQUEST_METHOD]: method,
        [ATTR_URL_PATH]: path,
        [ATTR_URL_SCHEME]: scheme,
        [ATTR_HTTP_ROUTE]: path,
        [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
        [ENVIRONMENT]: environment,
        [REQUEST_ID]: state.requestId,
      });
      state.trace = new TracedRequest(tracer, propagator, span, state);
    },
  };
}

/** The trace of one sampled request: the request span, the execute span, and their children. */
class TracedRequest implements RequestTrace, FeedTracer {
  readonly traceId: string;
  private readonly context: Context;
  private execute: Span | null = null;
  /** Parent of feed calls: the execute span's context once it started. */
  private feedParent: Context;

  constructor(
    private readonly tracer: Tracer,
    private readonly propagator: TextMapPropagator,
    private readonly span: Span,
    private readonly state: RequestState,
  ) {
    this.traceId = span.spanContext().traceId;
    this.context = trace.setSpan(ROOT_CONTEXT, span);
    this.feedParent = this.context;
  }

  step(name: string, startedAt: number, attributes: TraceAttributes, failed = false): void {
    const s = this.tracer.startSpan(name, { startTime: startedAt, attributes }, this.context);
    if (failed) s.setStatus({ code: SpanStatusCode.ERROR });
    s.end();
  }

  prepared(startedAt: number, parseMs: number, validateMs: number, cached: boolean, op: PreparedOperation | null, failed: boolean): void {
    const attributes: TraceAttributes = op ? operationAttributes(op) : {};
    attributes['gateway.graphql.document_cached'] = cached;
    // A failure with no validation time failed to parse (or was refused for its size before).
    const parseFailed = failed && !cached && validateMs === 0;
    const parse = this.tracer.startSpan('graphql.parse', { startTime: startedAt, attributes }, this.context);
    if (parseFailed) parse.setAttributes({ [ATTR_ERROR_TYPE]: 'GRAPHQL_PARSE_FAILED' }).setStatus({ code: SpanStatusCode.ERROR });
    parse.end(startedAt + parseMs);
    if (parseFailed) return;
    const validate = this.tracer.startSpan('graphql.validate', { startTime: startedAt + parseMs, attributes }, this.context);
    if (failed) validate.setAttributes({ [ATTR_ERROR_TYPE]: 'GRAPHQL_VALIDATION_FAILED' }).setStatus({ code: SpanStatusCode.ERROR });
    validate.end(failed ? undefined : startedAt + parseMs + validateMs);
  }

  startExecute(op: PreparedOperation): FeedTracer {
    this.execute = this.tracer.startSpan('graphql.execute', { attributes: operationAttributes(op) }, this.context);
    this.feedParent = trace.setSpan(this.context, this.execute);
    return this;
  }

  endExecute(hasErrors: boolean): void {
    if (!this.execute) return;
    this.execute.setAttribute('gateway.graphql.has_errors', hasErrors);
    this.execute.end();
    this.execute = null;
  }

  startCall(call: { feed: string; method: string; url: string; page: number | undefined; breaker: string }): FeedCallSpan {
    const attributes: TraceAttributes = {
      'gateway.feed.name': call.feed,
      'gateway.feed.breaker_state': call.breaker,
      [ATTR_HTTP_REQUEST_METHOD]: call.method,
      [ATTR_URL_FULL]: call.url,
    };
    if (call.page !== undefined) attributes['gateway.feed.page'] = call.page;
    const span = this.tracer.startSpan(`feed ${call.feed}`, { attributes }, this.feedParent);
    return new FeedCall(this.tracer, this.propagator, span, call);
  }

  end(reply: Reply): void {
    const state = this.state;
    if (this.execute) {
      // Execution threw (the answer is a 500): its span ends with the request's.
      this.execute.setStatus({ code: SpanStatusCode.ERROR });
      this.endExecute(true);
    }
    const span = this.span;
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, reply.status);
    if (state.partnerCode) span.setAttribute(PARTNER, state.partnerCode);
    const op = state.operation;
    if (op) {
      span.setAttributes(operationAttributes(op));
      if (!op.introspectionOnly) span.setAttribute('gateway.cache.result', state.cache.toLowerCase());
    }
    if (state.upstreamCalls.length) span.setAttribute('gateway.upstream.calls', state.upstreamCalls.length);
    if (reply.status >= 500) span.setAttribute(ATTR_ERROR_TYPE, String(reply.status)).setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}

/** One feed call: its span, and one client span per HTTP attempt (retries are attempts too). */
class FeedCall implements FeedCallSpan {
  private attempts = 0;
  private readonly context: Context;
  private readonly server: { address: string; port: number } | null;

  constructor(
    private readonly tracer: Tracer,
    private readonly propagator: TextMapPropagator,
    private readonly span: Span,
    private readonly call: { feed: string; method: string; url: string },
  ) {
    this.context = trace.setSpan(ROOT_CONTEXT, span);
    this.server = serverOf(call.url);
  }

  startAttempt(): FeedAttemptSpan {
    const attempt = ++this.attempts;
    const attributes: TraceAttributes = {
      [ATTR_HTTP_REQUEST_METHOD]: this.call.method,
      [ATTR_URL_FULL]: this.call.url,
      'gateway.feed.name': this.call.feed,
      'gateway.feed.attempt': attempt,
    };
    if (attempt > 1) attributes[ATTR_HTTP_REQUEST_RESEND_COUNT] = attempt - 1;
    if (this.server) {
      attributes[ATTR_SERVER_ADDRESS] = this.server.address;
      attributes[ATTR_SERVER_PORT] = this.server.port;
    }
    const span = this.tracer.startSpan(this.call.method, { kind: SpanKind.CLIENT, attributes }, this.context);
    const headers: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
    return {
      headers,
      end(status: number | null, error: string | null): void {
        if (status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        if (error) span.setAttribute(ATTR_ERROR_TYPE, error).setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  end(outcome: { status: number | null; error: string | null; deduplicated: boolean; staleSeconds: number | null }): void {
    const span = this.span;
    span.setAttribute('gateway.feed.attempts', this.attempts);
    if (outcome.deduplicated) span.setAttribute('gateway.feed.deduplicated', true);
    if (outcome.status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status);
    if (outcome.staleSeconds !== null) span.setAttribute('gateway.feed.stale_age_seconds', outcome.staleSeconds);
    // The error kind only (timeout, network, status 503, circuit_open, ...): never a message.
    if (outcome.error) {
      span.setAttribute(ATTR_ERROR_TYPE, outcome.error);
      if (outcome.staleSeconds === null) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}

function serverOf(url: string): { address: string; port: number } | null {
  try {
    const u = new URL(url);
    return { address: u.hostname, port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80 };
  } catch {
    return null;
  }
}
