// One structured log line per request (pino, the gateway's logger), written after the answer is
// sent. What it holds, and what it never holds:
//
//   requestId, environment, partnerCode (keyed environments), clientIp, method, path,
//   operationName, rootFields, status, durationMs, cache (HIT / MISS / BYPASS / STALE, only for
//   executable operations), upstream calls ({ feed, status, ms, url } with the URL cut before its
//   query string, plus the error kind when the call failed), allowance (playground: counted or
//   not, remaining), auth refusal reason, addressGiven (true when the request carried an address).
//
//   Never: the API key or any request header, the query text, variable values (personal data,
//   the `@personalData` arguments of schema/public.graphql, is reported only as `addressGiven: true`), response bodies, upstream query strings (the premises
//   feed carries the address there).
//
// Health probes (/healthz, /readyz) are logged at debug level so load balancers do not flood the
// log; everything else at info (warn for 5xx).
import { pathOf, type HttpPlugin, type Reply, type RequestState } from '../http/plugin.js';
import { schemaPolicy } from '../../api/schema-policy.js';

export interface RequestLogger {
  isLevelEnabled(level: string): boolean;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface UpstreamCallLog {
  feed: string;
  status: number | null;
  ms: number;
  url: string;
  error?: string;
}

export interface RequestLogLine {
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
  addressGiven?: true;
}

/** The URL of an upstream call without query string, fragment or credentials. */
export function urlWithoutQuery(raw: string): string {
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
  for (const [k, v] of Object.entries(variables)) {
    if (looksPersonal(k)) return true;
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const k2 of Object.keys(v)) if (looksPersonal(k2)) return true;
  }
  return false;
}

/** Builds the log line of a request (exported for tests). */
export function requestLogLine(state: RequestState, reply: Reply, now = Date.now()): RequestLogLine {
  const op = state.operation;
  const line: RequestLogLine = {
    requestId: state.requestId,
    environment: state.environment,
    partnerCode: state.partnerCode,
    clientIp: state.clientIp,
    method: state.req.method ?? 'GET',
    path: pathOf(state.req.url),
    operationName: op?.operationName ?? (typeof state.operationName === 'string' ? state.operationName : null),
    status: reply.status,
    durationMs: Math.max(0, now - state.receivedAt),
  };
  if (op) {
    line.rootFields = op.rootFields;
    if (!op.introspectionOnly) line.cache = state.cache;
  }
  if (state.upstreamCalls.length) {
    line.upstream = state.upstreamCalls.map((c) => {
      const entry: UpstreamCallLog = { feed: c.feed, status: c.status, ms: c.durationMs, url: urlWithoutQuery(c.url) };
      if (c.error) entry.error = c.error;
      return entry;
    });
  }
  const allowance = state.notes.allowance as { counted?: boolean; reason?: string; remaining?: number; limit?: number } | undefined;
  if (state.environment === 'playground') {
    const remainingHeader = state.headers['X-RateLimit-Remaining'];
    const remaining = typeof allowance?.remaining === 'number' ? allowance.remaining : remainingHeader !== undefined ? Number(remainingHeader) : undefined;
    line.allowance = { counted: allowance?.counted === true };
    if (allowance?.reason) line.allowance.reason = allowance.reason;
    if (remaining !== undefined && Number.isFinite(remaining)) line.allowance.remaining = remaining;
  }
  const auth = state.notes.auth as { ok?: boolean; reason?: string } | undefined;
  if (auth && auth.ok === false && auth.reason) line.auth = auth.reason;
  if (hasPersonalData(state.variables, op?.rootFields)) line.addressGiven = true;
  return line;
}

export function requestLogPlugin(logger: RequestLogger): HttpPlugin {
  return {
    name: 'request-log',
    onResponse(state: RequestState, reply: Reply): void {
      const path = pathOf(state.req.url);
      const probe = path === '/healthz' || path === '/readyz';
      const level = probe ? 'debug' : reply.status >= 500 ? 'warn' : 'info';
      // Nothing is built when the level is off (LOG_LEVEL=warn in the benchmark).
      if (!logger.isLevelEnabled(level)) return;
      logger[level](requestLogLine(state, reply), 'request');
    },
  };
}
