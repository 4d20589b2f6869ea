// Personal data in replay records: answers of the root fields that carry it (the schema's
// @personalData, see resolvers/schema-policy.ts) and the values sent with them stay masked in the
// console. The gateway holds REPLAY_PII_KEY: it opens a sealed record in the server and masks the
// personal values only (the address, the account data), so a viewer still sees the operation, its
// shape and the answer's real size. Only a session whose token carries the `unmask` role sees them
// in clear, after giving a reason; nobody types the key into a form.
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { schemaPolicy } from '../../resolvers/schema-policy.js';
import type { ReplayRecord } from '../../stores/replay-store.js';
import { maskUrl, sealPersonalData, unsealPersonalData } from '../../stores/replay-privacy.js';

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

/** String values sent with a personal-data operation (literals and variables), 3 characters or longer. */
function sentStrings(record: ReplayRecord): string[] {
  const out = new Set<string>();
  for (const m of (record.query ?? '').matchAll(/"((?:[^"\\\n]|\\.)*)"/g)) out.add(m[1]!);
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(record.variables);
  return [...out].filter((x) => x.length >= 3);
}

export interface MaskedRecord {
  record: ReplayRecord;
  /** True when something was masked (the page then says so and offers unmasking to the unmask role). */
  masked: boolean;
}

/** A copy of the record with personal data masked; records without personal fields are returned as they are. */
export function maskRecord(record: ReplayRecord): MaskedRecord {
  // Still sealed (or withheld) at rest: already masked as stored.
  if (record.personalData && !record.personalData.unsealed) return { record, masked: true };
  const keys = personalResponseKeys(record.query);
  if (keys.length === 0 && !record.personalData) return { record, masked: false };
  let responseBody = record.responseBody;
  try {
    const body = JSON.parse(record.responseBody) as { data?: Record<string, unknown> | null };
    if (body.data)
      for (const k of Object.keys(body.data)) if (keys.includes('*') || keys.includes(k)) body.data[k] = maskLeaves(body.data[k]);
    responseBody = JSON.stringify(body);
  } catch {
    responseBody = MASK;
  }
  // Error messages may quote what was sent (an address): every value sent is masked wherever it appears.
  for (const sent of sentStrings(record)) responseBody = responseBody.split(JSON.stringify(sent).slice(1, -1)).join(MASK);
  return {
    masked: true,
    record: {
      ...record,
      // String literals in the operation are the address as typed; variables likewise.
      query: record.query?.replace(/"(?:[^"\\\n]|\\.)*"/g, `"${MASK}"`) ?? null,
      variables: record.variables ? (maskLeaves(record.variables) as Record<string, unknown>) : null,
      responseBody,
      // The premises feed carries the street address in its query string.
      upstreamCalls: record.upstreamCalls.map((c) => ({ ...c, url: maskUrl(c.url) })),
    },
  };
}

export interface OpenedRecord {
  record: ReplayRecord;
  /** Why personal data could not be opened (not stored, another key, damaged). */
  problem?: string;
}

export interface Unmasker {
  /** Whether the gateway holds a key to open personal data (REPLAY_PII_KEY). */
  readonly available: boolean;
  /** The record with its personal data opened in the server; records without any are returned as they are. */
  open(record: ReplayRecord): OpenedRecord;
  /** Seals a new record's personal data as the replay plugin does (a console rerun's own record). */
  seal(record: ReplayRecord): void;
}

/** Opens records with the gateway's REPLAY_PII_KEY (null: records keep no personal data to open). */
export function createUnmasker(opts: { piiKey: Buffer | null }): Unmasker {
  return {
    available: !!opts.piiKey,
    open(record) {
      if (!record.personalData || record.personalData.unsealed) return { record };
      return unsealPersonalData(record, opts.piiKey);
    },
    seal(record) {
      sealPersonalData(record, opts.piiKey);
    },
  };
}
