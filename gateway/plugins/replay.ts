// Replay plugin: after the answer is sent, queue a record of the request and of exactly what was
// sent, for support (`npm run replay`, admin endpoint). Never the API key: the record holds the
// partner code only, and no request headers.
import type { HttpPlugin, Reply, RequestState } from '../http/plugin.js';
import type { ReplayRecord, ReplayStore } from '../../cache/replay-store.js';

const KEPT_HEADERS = /^(x-request-id|x-cache|age|retry-after|x-ratelimit-.*)$/i;
const SECRET_NOTE = /^(x-?api-?key|api_?key|key|token|secret|password|authorization)$/i;

/** Builds the record of one request (exported for tests). */
export function replayRecord(state: RequestState, reply: Reply, now = Date.now()): ReplayRecord {
  const responseHeaders: Record<string, string> = { 'x-request-id': state.requestId };
  for (const [k, v] of Object.entries({ ...state.headers, ...reply.headers })) {
    if (KEPT_HEADERS.test(k) && v !== '') responseHeaders[k] = String(v);
  }
  // The listener derives x-cache from state.cache when it sends (see http/server.ts).
  const cacheHeader = state.operation && !state.operation.introspectionOnly ? state.cache : null;
  if (cacheHeader) responseHeaders['x-cache'] = cacheHeader;
  const notes: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(state.notes)) if (!SECRET_NOTE.test(k)) notes[k] = v;
  return {
    id: state.requestId,
    time: new Date(state.receivedAt).toISOString(),
    environment: state.environment,
    partnerCode: state.partnerCode,
    clientIp: state.clientIp,
    operationName: state.operation?.operationName ?? state.operationName ?? null,
    query: state.query ?? null,
    variables: state.variables ?? null,
    status: reply.status,
    responseBody: reply.body,
    responseHeaders,
    fromCache: state.cache === 'HIT',
    cache: cacheHeader,
    upstreamCalls: state.upstreamCalls.map((c) => ({ feed: c.feed, url: c.url, status: c.status, durationMs: c.durationMs, ...(c.error ? { error: c.error } : {}) })),
    durationMs: Math.max(0, now - state.receivedAt),
    ...(Object.keys(notes).length ? { notes } : {}),
  };
}

function worthRecording(state: RequestState, reply: Reply): boolean {
  const pathname = (state.req.url ?? '/').split('?', 1)[0];
  if (pathname === '/healthz' || pathname === '/readyz') return false;
  if (state.req.method === 'OPTIONS') return false;
  // The GraphiQL page (HTML) is not an API answer.
  if (/text\/html/i.test(reply.headers['content-type'] ?? '')) return false;
  return true;
}

export function replayPlugin(store: ReplayStore): HttpPlugin {
  return {
    name: 'replay',
    onResponse(state: RequestState, reply: Reply): void {
      try {
        if (!worthRecording(state, reply)) return;
        store.enqueue(replayRecord(state, reply));
      } catch {
        store.noteDropped();
      }
    },
  };
}
