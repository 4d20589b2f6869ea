// Replay records for tests: a plain 200 answer from the production environment; a test overrides
// what its assertions depend on.
import type { ReplayRecord } from '../../stores/replay-record.js';

let seq = 0;

/** A full record received at `time` (ms), with an id no other record of this file has. */
export const testRecord = (over: Partial<ReplayRecord> = {}, time = Date.now()): ReplayRecord => ({
  id: `req-${String(++seq).padStart(8, '0')}`,
  time: new Date(time).toISOString(),
  environment: 'production',
  partnerCode: 'ACME',
  clientIp: '127.0.0.1',
  operationName: null,
  query: '{ utilities(zipCode: "75001") { id } }',
  variables: null,
  status: 200,
  responseBody: '{"data":{"utilities":[{"id":"ONCOR"}]}}',
  responseHeaders: {},
  fromCache: false,
  cache: 'MISS',
  upstreamCalls: [],
  durationMs: 3,
  ...over,
});
