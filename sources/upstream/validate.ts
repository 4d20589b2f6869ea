// Edge validation of feed payloads, before Mesh sees them: a 2xx answer to a GET must be a JSON
// object or array. Mesh's handlers pass a non-JSON body through as an error value with the upstream
// URL and body attached, and the openapi handler crashes on a JSON `null`; we turn both into an
// UpstreamError('malformed') so the breaker counts it, stale-if-error can answer, and the partner
// sees "UPSTREAM_UNAVAILABLE ... malformed payload" without any upstream detail.
import { UpstreamError } from './errors.js';
import type { BufferedResponse } from './transport.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Throws UpstreamError('malformed') unless the body is a JSON object or array. Returns the body's
 * text and its parse when it decoded it (a 2xx), so the callers sharing the answer need not decode
 * it again, and the first of them need not parse it again either.
 */
export function validatePayload(b: BufferedResponse): { text: string; json: object } | undefined {
  if (b.status < 200 || b.status >= 300 || b.status === 204 || b.status === 205) return undefined;
  let text: string;
  try {
    text = decoder.decode(b.body);
  } catch {
    throw new UpstreamError('malformed', { detail: 'not UTF-8' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UpstreamError('malformed', { detail: text.trim() === '' ? 'empty body' : 'not JSON' });
  }
  if (value === null || typeof value !== 'object') {
    throw new UpstreamError('malformed', { detail: value === null ? 'JSON null' : `JSON ${typeof value} instead of an object` });
  }
  return { text, json: value };
}
