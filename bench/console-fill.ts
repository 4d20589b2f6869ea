// What the isolation scenario's console rows load the console over, written straight through the
// stores' APIs into the gateway's Redis (not over HTTP: the sign-in limit would refuse a flood, and
// only what the stores hold matters here):
// - the audit trail after 100,000 refused sign-ins, from as many addresses, one a second over the
//   last days, behind a few entries support looks for (as test/e2e/audit-trail.test.ts);
// - the playground's replay partition filled to near its budget by a flood of free calls from 700
//   addresses over the last 6 days, each answer distinct (what a flood of distinct free documents
//   leaves), so the 7-day search reads full chunks of 500 records.
import { connectRedis } from '../cache/redis-connection.js';
import type { ReplaySettings } from '../stores/replay-settings.js';
import { createAuditStore } from '../support/audit/audit-log.js';
import { createReplayStore, replayKeys, type ReplayRecord } from '../stores/replay-store.js';

const DAY = 86_400_000;
const MiB = 1024 * 1024;

/** The address of flood client `n` (198.18.0.0/15, the benchmarking range). */
const floodIp = (n: number) => `198.18.${n >> 8}.${n & 255}`;

/**
 * What the audit load's sessions load in turn: the newest page, a filter on an action the flood
 * does not touch, a page of the flooded action and the deepest page the console serves.
 */
export const AUDIT_PATHS = [
  '/console/audit',
  '/console/audit?action=record.unmask',
  '/console/audit?action=sign-in.refused&page=40',
  '/console/audit?page=400',
];

/**
 * What the search load's sessions run in turn, each over the last 7 days: one flood address (a
 * 700th of the records match, so the slice reads its whole budget of chunks), an error code nothing
 * carries, and a partner's server errors.
 */
export const SEARCH_PATHS = [
  `/console/search?range=7d&ip=${floodIp(44)}`,
  '/console/search?range=7d&code=PERSISTED_QUERY_NOT_FOUND',
  '/console/search?range=7d&partner=BENCH&outcome=server-errors',
];

/** The same searches as the replay store gets them (the console counts outcomes over a partner's matches, then filters). */
export const SEARCH_QUERIES: readonly Record<string, string>[] = [
  { clientIp: floodIp(44) },
  { errorCode: 'PERSISTED_QUERY_NOT_FOUND' },
  { partner: 'BENCH' },
];

/** Writes `count` refused sign-ins (raw store, no aggregation) after a few entries a search should still find. */
export async function fillAuditTrail(redisUrl: string, dataDir: string, count: number): Promise<{ ms: number }> {
  const t0 = performance.now();
  const redis = await connectRedis(redisUrl);
  try {
    const log = createAuditStore({ redis, dataDir, retentionMs: 400 * DAY });
    // One a second, the newest a minute ago.
    const start = Date.now() - count * 1000 - 60_000;
    await log.write({
      actor: 'support:ALICE',
      action: 'record.unmask',
      target: 'req-early',
      from: '192.0.2.7',
      time: new Date(start - 5000).toISOString(),
    });
    for (let i = 0; i < count; i += 1000)
      await Promise.all(
        Array.from({ length: Math.min(1000, count - i) }, (_, j) =>
          log.write({
            actor: 'anonymous',
            action: 'sign-in.refused',
            target: null,
            from: `10.${(i + j) >> 16}.${((i + j) >> 8) & 255}.${(i + j) & 255}`,
            time: new Date(start + (i + j) * 1000).toISOString(),
            details: { reason: 'unknown' },
          }),
        ),
      );
  } finally {
    redis.disconnect();
  }
  return { ms: Math.round(performance.now() - t0) };
}

/** The gateway's replay settings at their defaults (REPLAY_MAX_BYTES 256 MiB, the playground an eighth). */
export function defaultReplaySettings(): ReplaySettings {
  return {
    enabled: true,
    retentionMs: 7 * DAY,
    maxBytes: 256 * MiB,
    playgroundMaxBytes: 32 * MiB,
    personal: { retentionMs: DAY, maxBytes: 64 * MiB },
    piiKey: null,
    queueMaxRecords: 1_000_000,
    queueMaxBytes: 1024 * MiB,
    segmentBytes: 16 * MiB,
    writeRetryMs: 0,
    flushMs: 50,
  };
}

function floodRecord(i: number, time: number): ReplayRecord {
  const id = `flood-${i.toString(36)}`;
  const field = `nope${i.toString(36)}`;
  const body = JSON.stringify({
    errors: [
      {
        message: `Cannot query field "${field}" on type "Query".`,
        locations: [{ line: 1, column: 3 + (i % 40) }],
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      },
    ],
  });
  return {
    id,
    time: new Date(time).toISOString(),
    environment: 'playground',
    partnerCode: null,
    clientIp: floodIp(i % 700),
    operationName: null,
    query: null,
    queryDigest: { sha256: (i * 2654435761).toString(16).padStart(64, '0').slice(-64), bytes: 4100 + (i % 97), head: `{ ${field} ` },
    variables: null,
    status: 200,
    responseBody: body,
    responseHeaders: { 'x-request-id': id, 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-remaining': String(i % 10) },
    fromCache: false,
    cache: null,
    upstreamCalls: [],
    durationMs: 1 + (i % 5),
    facets: { errors: 1, codes: ['GRAPHQL_VALIDATION_FAILED'], rootFields: [field], zips: [] },
  };
}

/**
 * Fills the playground partition to `fill` of its budget (or `maxRecords`), oldest first over the
 * last 6 days. Returns the records written and the bytes the partition counts.
 */
export async function fillPlaygroundReplay(
  redisUrl: string,
  dataDir: string,
  opts: { settings?: ReplaySettings; fill?: number; maxRecords?: number } = {},
): Promise<{ records: number; bytes: number; budget: number; ms: number }> {
  const t0 = performance.now();
  const settings = opts.settings ?? defaultReplaySettings();
  const target = settings.playgroundMaxBytes * (opts.fill ?? 0.9);
  const maxRecords = opts.maxRecords ?? 600_000;
  const redis = await connectRedis(redisUrl);
  const store = createReplayStore({ redis, dataDir, settings });
  const bytesKey = replayKeys('playground').bytes;
  const counted = async () => Number((await redis.get(bytesKey)) ?? 0);
  try {
    // Records 6 days apart from the first to the last expected one; the estimate is refined as it goes.
    const span = 6 * DAY;
    const start = Date.now() - span;
    let expected = 200_000;
    let i = 0;
    while (i < maxRecords && (await counted()) < target) {
      for (const end = i + 10_000; i < end; i++) store.enqueue(floodRecord(i, start + Math.min(span, (i / expected) * span)));
      await store.flush();
      const bytes = await counted();
      if (bytes > 0) expected = Math.max(i + 1, Math.round((i * target) / bytes));
    }
    return { records: i, bytes: await counted(), budget: settings.playgroundMaxBytes, ms: Math.round(performance.now() - t0) };
  } finally {
    await store.close();
    redis.disconnect();
  }
}
