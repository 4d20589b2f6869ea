// One structured log line per request (pino, the gateway's logger), written after the answer is
// sent. What it holds, and what it never holds:
//
//   requestId, environment, partnerCode (keyed environments), clientIp, method, path,
//   operationName (only the name of an operation of the document), rootFields, status, durationMs, cache (HIT / MISS / BYPASS / STALE, only for
//   executable operations), upstream calls ({ feed, status, ms, url } with the URL cut before its
//   query string, plus the error kind when the call failed), allowance (playground: counted or
//   not, remaining), auth refusal reason, addressGiven (true when the request carried an address),
//   traceId (when the request is traced: server/plugins/tracing.ts).
//
//   Never: the API key or any request header, the query text, variable values (personal data,
//   the `@personalData` arguments of schema/public.graphql, is reported only as `addressGiven: true`), response bodies, upstream query strings (the premises
//   feed carries the address there).
//
// Health probes (/healthz, /readyz) are logged at debug level so load balancers do not flood the
// log; everything else at info (warn for 5xx).
import { pathOf, type HttpPlugin, type Reply, type RequestState } from '../http/plugin.js';
import { schemaPolicy } from '../../resolvers/schema-policy.js';
import type { LineWriter } from '../../lib/logger.js';
import { jsonString as str, jsonStringOrNull as strOrNull } from '../../lib/json-text.js';

interface UpstreamCallLog {
  feed: string;
  status: number | null;
  ms: number;
  url: string;
  error?: string;
}

interface RequestLogLine {
  requestId: string;
  environment: string;
  partnerCode: string | null;
  clientIp: string;
  method: string;
  path: string;
  operationName: string | null;
  rootFields?: string[];
  status: number;
  durationMs: number;
  cache?: string;
  upstream?: UpstreamCallLog[];
  allowance?: { counted: boolean; reason?: string; remaining?: number; limit?: number };
  auth?: string;
  /** PARTNER_QUOTA or PARTNER_CONCURRENCY: the partner quota refused the request. */
  quota?: string;
  addressGiven?: true;
  traceId?: string;
}

/** The URL of an upstream call without query string, fragment or credentials. */
function urlWithoutQuery(raw: string): string {
  const cut = raw.search(/[?#]/);
  const base = cut < 0 ? raw : raw.slice(0, cut);
  // Credentials in the authority (user:pass@host) never reach a log either.
  return base.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

/** Names of the schema's personal-data arguments ("address"): a variable named like one is treated as one. */
const PERSONAL_ARG_NAMES = [...new Set([...schemaPolicy.personalData.args].map((a) => a.slice(a.lastIndexOf('.') + 1).toLowerCase()))];
const looksPersonal = (name: string) => {
  const lower = name.toLowerCase();
  return PERSONAL_ARG_NAMES.some((n) => lower.includes(n));
};

/**
 * True when the request carried personal data (an address): it selects a root field with a
 * `@personalData` argument, or a variable, one level deep as in the schema, is named like one.
 */
function hasPersonalData(variables: Record<string, unknown> | null | undefined, rootFields: string[] | undefined): boolean {
  if (rootFields?.some((f) => schemaPolicy.personalArgsOf(f).length > 0)) return true;
  if (!variables) return false;
  // Repeated request texts share one frozen variables object (http/request-body.ts): decided once.
  const known = personalVariables.get(variables);
  if (known !== undefined) return known;
  const found = namesPersonalData(variables);
  if (Object.isFrozen(variables)) personalVariables.set(variables, found);
  return found;
}

const personalVariables = new WeakMap<object, boolean>();

function namesPersonalData(variables: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(variables)) {
    if (looksPersonal(k)) return true;
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const k2 of Object.keys(v)) if (looksPersonal(k2)) return true;
  }
  return false;
}

const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

/**
 * The operation's name only when it names an operation of the document (the prepared operation's
 * own name) and is a plain GraphQL name: the body's operationName is whatever the client sent
 * (an address, a token), and is never logged.
 */
function loggableOperationName(op: RequestState['operation']): string | null {
  const name = op?.operationName;
  return name && OPERATION_NAME.test(name) ? name : null;
}

/** The parts of a line an operation decides, as JSON text: made once per prepared operation (shared by every request sending its text). */
const operationTextMemo = new WeakMap<NonNullable<RequestState['operation']>, { name: string; rootFields: string }>();
function operationTexts(op: NonNullable<RequestState['operation']>): { name: string; rootFields: string } {
  let t = operationTextMemo.get(op);
  if (!t)
    operationTextMemo.set(
      op,
      (t = { name: strOrNull(loggableOperationName(op)), rootFields: `,"rootFields":[${op.rootFields.map(str).join(',')}]` }),
    );
  return t;
}

/**
 * The fields of a request's log line as JSON text (`"requestId":"…",…`): built by concatenation,
 * without an object per request for the logger to walk (it runs for every answer, cache hits included).
 */
function requestLogFields(state: RequestState, reply: Reply, now = Date.now()): string {
  const op = state.operation;
  const texts = op ? operationTexts(op) : null;
  let out =
    `"requestId":${str(state.requestId)},"environment":${str(state.environment)},"partnerCode":${strOrNull(state.partnerCode)},` +
    `"clientIp":${str(state.clientIp)},"method":${str(state.req.method ?? 'GET')},"path":${str(pathOf(state.req.url))},` +
    `"operationName":${texts ? texts.name : 'null'},"status":${reply.status},"durationMs":${Math.max(0, now - state.receivedAt)}`;
  if (op && texts) {
    out += texts.rootFields;
    if (!op.introspectionOnly) out += `,"cache":${str(state.cache)}`;
  }
  if (state.upstreamCalls.length) {
    const upstream = state.upstreamCalls.map((c) => {
      const entry: UpstreamCallLog = { feed: c.feed, status: c.status, ms: c.durationMs, url: urlWithoutQuery(c.url) };
      if (c.error) entry.error = c.error;
      return entry;
    });
    out += `,"upstream":${JSON.stringify(upstream)}`;
  }
  if (state.environment === 'playground') {
    const allowance = state.notes.allowance as { counted?: boolean; reason?: string; remaining?: number } | undefined;
    const remainingHeader = state.headers['X-RateLimit-Remaining'];
    const remaining =
      typeof allowance?.remaining === 'number' ? allowance.remaining : remainingHeader !== undefined ? Number(remainingHeader) : undefined;
    out += `,"allowance":{"counted":${allowance?.counted === true}`;
    if (allowance?.reason) out += `,"reason":${str(allowance.reason)}`;
    if (remaining !== undefined && Number.isFinite(remaining)) out += `,"remaining":${remaining}`;
    out += '}';
  }
  out += quotaField(state);
  const auth = state.notes.auth as { ok?: boolean; reason?: string } | undefined;
  if (auth && auth.ok === false && auth.reason) out += `,"auth":${str(auth.reason)}`;
  if (hasPersonalData(state.variables, op?.rootFields)) out += ',"addressGiven":true';
  // A traced (sampled) request's OpenTelemetry trace id: 32 hex digits, safe as is.
  if (state.trace) out += `,"traceId":"${state.trace.traceId}"`;
  return out;
}

/** A keyed request refused by its partner's quota or fair share (server/plugins/partner-quota.ts). */
function quotaField(state: RequestState): string {
  const quota = state.notes.quota as { result?: string; reason?: string } | undefined;
  return quota?.result === 'refused' && quota.reason ? `,"quota":${str(quota.reason)}` : '';
}

/** The log line of a request as an object (tests). */
export function requestLogLine(state: RequestState, reply: Reply, now = Date.now()): RequestLogLine {
  return JSON.parse(`{${requestLogFields(state, reply, now)}}`) as RequestLogLine;
}

export function requestLogPlugin(writer: LineWriter): HttpPlugin {
  return {
    name: 'request-log',
    onResponse(state: RequestState, reply: Reply): void {
      const path = pathOf(state.req.url);
      const probe = path === '/healthz' || path === '/readyz';
      const level = probe ? 'debug' : reply.status >= 500 ? 'warn' : 'info';
      // Nothing is built when the level is off (LOG_LEVEL=warn in the benchmark).
      if (!writer.isLevelEnabled(level)) return;
      writer.writeLine(level, requestLogFields(state, reply), 'request');
    },
  };
}
