// What the replay log keeps of one request (written by plugins/replay.ts, stored by
// replay-store.ts in the format of replay-chunk.ts).
import type { QueryDigest, SealedBox } from './replay-privacy.js';
import type { ReplayFacets } from './replay-facets.js';

export interface ReplayUpstreamCall {
  feed: string;
  url: string;
  status: number | null;
  durationMs: number;
  error?: string;
}

export interface ReplayRecord {
  /** The request id (x-request-id). */
  id: string;
  /** When the request was received, ISO 8601. */
  time: string;
  environment: string;
  partnerCode: string | null;
  clientIp: string;
  operationName: string | null;
  /**
   * The operation text as sent: null when the request had no readable body, or when it was not
   * executed (refused, invalid, introspection-only: see queryDigest), or a mask (personalData).
   */
  query: string | null;
  /** For a request not executed: its text's digest instead of the text. */
  queryDigest?: QueryDigest;
  /** Present when the record touches personal data: those parts are masked, sealed when a key was set. */
  personalData?: { sealed: SealedBox | null; unsealed?: true };
  variables: Record<string, unknown> | null;
  status: number;
  /** The exact body sent. */
  responseBody: string;
  /** The headers that matter for support: x-request-id, x-cache, age, X-RateLimit-*, RateLimit(-Policy), Retry-After. */
  responseHeaders: Record<string, string>;
  fromCache: boolean;
  cache: string | null;
  upstreamCalls: ReplayUpstreamCall[];
  durationMs: number;
  /** What the console's search filters on, derived when written (absent on older records). */
  facets?: ReplayFacets;
  /** Plugins' notes (allowance state, key id, cache level). */
  notes?: Record<string, unknown>;
  /** The OpenTelemetry trace id of a traced (sampled) request: its trace in the operators' trace UI. */
  traceId?: string;
}
