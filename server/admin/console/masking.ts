// Personal data in replay records: answers of the root fields that carry it (the schema's
// @personalData, see resolvers/schema-policy.ts) and the values sent with them stay masked in the console
// unless the support user supplies the support key of the personal-data issue.
//
// Unmasking: the support user types the support key (REPLAY_PII_KEY); it must be the gateway's key
// and it opens the record's sealed personal data (server/stores/replay-privacy.ts).
import { timingSafeEqual } from 'node:crypto';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { schemaPolicy } from '../../../resolvers/schema-policy.js';
import type { ReplayRecord } from '../../stores/replay-store.js';
import { parsePiiKey } from '../../../cache/cache-config.js';
import { unsealPersonalData } from '../../stores/replay-privacy.js';

const MASK = '••••';

/** Response keys (alias or name) of the personal root fields the record's operation selected. */
export function personalResponseKeys(query: string | null): string[] {
  if (!query) return [];
  try {
    const doc = parse(query, { noLocation: true });
    return doc.definitions
      .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
      .flatMap((op) => op.selectionSet.selections)
      .flatMap((s) => (s.kind === Kind.FIELD && schemaPolicy.neverCached.has(s.name.value) ? [s.alias?.value ?? s.name.value] : []));
  } catch {
    // Not parseable: it was refused before execution and answered no data, but mask what it sent.
    return [...schemaPolicy.neverCached].some((f) => query.includes(f)) ? ['*'] : [];
  }
}

function maskLeaves(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(maskLeaves);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskLeaves(x)]));
  return typeof v === 'string' || typeof v === 'number' ? MASK : v;
}

export interface MaskedRecord {
  record: ReplayRecord;
  /** True when something was masked (the page then offers the unmask form). */
  masked: boolean;
}

/** A copy of the record with personal data masked; records without personal fields are returned as they are. */
export function maskRecord(record: ReplayRecord): MaskedRecord {
  // Sealed (or withheld) at rest by the replay plugin: already masked as stored.
  if (record.personalData && !record.personalData.unsealed) return { record, masked: true };
  const keys = personalResponseKeys(record.query);
  if (keys.length === 0) return { record, masked: false };
  let responseBody = record.responseBody;
  try {
    const body = JSON.parse(record.responseBody) as { data?: Record<string, unknown> | null };
    if (body.data)
      for (const k of Object.keys(body.data)) if (keys.includes('*') || keys.includes(k)) body.data[k] = maskLeaves(body.data[k]);
    responseBody = JSON.stringify(body);
  } catch {
    responseBody = MASK;
  }
  return {
    masked: true,
    record: {
      ...record,
      // String literals in the operation are the address as typed; variables likewise.
      query: record.query?.replace(/"(?:[^"\\\n]|\\.)*"/g, `"${MASK}"`) ?? null,
      variables: record.variables ? (maskLeaves(record.variables) as Record<string, unknown>) : null,
      responseBody,
    },
  };
}

export interface Unmasker {
  /** Whether unmasking is possible at all (a key is configured). */
  readonly available: boolean;
  /** The record in clear when the key is right, else null. */
  unmask(record: ReplayRecord, key: string): Promise<ReplayRecord | null>;
}

/** Unmasking with the gateway's REPLAY_PII_KEY (null: records keep no personal data to show). */
export function createUnmasker(opts: { piiKey: Buffer | null }): Unmasker {
  return {
    available: !!opts.piiKey,
    async unmask(record, key) {
      const given = typeof key === 'string' ? parsePiiKey(key, []) : null;
      if (!opts.piiKey || !given || !timingSafeEqual(given, opts.piiKey)) return null;
      const { record: open, problem } = unsealPersonalData(record, given);
      return problem ? null : open;
    },
  };
}
