// The one HTTP client every Mesh source uses: keep-alive pool, per-feed timeout with a fresh abort
// signal per attempt, and a record of each call for logs, metrics and replay.
import { Agent, fetch as undiciFetch } from 'undici';
import { feedScope } from './feed-scope.js';

export interface UpstreamFetchOptions {
  defaultTimeoutMs?: number;
  connections?: number;
}

export type MeshFetch = (url: string, init?: RequestInit, context?: unknown, info?: unknown) => Promise<Response>;

export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    u.username = '';
    u.password = '';
    for (const key of [...u.searchParams.keys()]) {
      if (/key|token|secret|password|auth|sig/i.test(key)) u.searchParams.set(key, 'REDACTED');
    }
    return u.toString();
  } catch {
    return 'invalid-url';
  }
}

export function createUpstreamFetch(opts: UpstreamFetchOptions = {}): MeshFetch & { close(): Promise<void> } {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: opts.connections ?? 64, pipelining: 1 });
  const fetchFn = async (url: string, init: RequestInit = {}) => {
    const scope = feedScope.getStore();
    const timeoutMs = scope?.timeoutMs ?? opts.defaultTimeoutMs ?? 5000;
    const started = performance.now();
    const call = { feed: scope?.feed ?? 'unknown', url: redactUrl(url), status: null as number | null, durationMs: 0, maxAge: null as number | null, error: undefined as string | undefined };
    try {
      const res = await undiciFetch(url, { ...(init as object), dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) } as never);
      call.status = res.status;
      call.maxAge = cacheControlMaxAge(res.headers.get('cache-control'));
      // Buffer so the duration covers the body and the socket returns to the pool at once.
      const body = await res.arrayBuffer();
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers as unknown as Headers });
    } catch (err) {
      call.error = (err as Error)?.name === 'TimeoutError' ? 'timeout' : 'network error';
      throw new Error(`upstream ${call.error}`);
    } finally {
      call.durationMs = Math.round((performance.now() - started) * 100) / 100;
      scope?.calls.push(call);
    }
  };
  return Object.assign(fetchFn as MeshFetch, { close: () => agent.close() });
}

/** max-age (or s-maxage) of a Cache-Control header; 0 for no-store/no-cache/private; null when absent. */
export function cacheControlMaxAge(header: string | null): number | null {
  if (!header) return null;
  if (/(?:^|,)\s*(?:no-store|no-cache|private)\s*(?:,|$)/i.test(header)) return 0;
  const m = /(?:^|,)\s*s-maxage\s*=\s*(\d+)/i.exec(header) ?? /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(header);
  return m ? Number(m[1]) : null;
}
