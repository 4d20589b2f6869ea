// Personal data in replay records: what the schema's @personalData marks (see
// operation-privacy.ts: positions derived from the typed operation, deny by default) stays masked
// in the console. The gateway holds REPLAY_PII_KEY: it opens a sealed record in the server and
// masks the personal values only, so a viewer still sees the operation, its shape and the answer's
// real size, but never the raw answer or the variables of a record that touches personal data.
// Only a session whose token carries the `unmask` role sees them in clear, after giving a reason;
// nobody types the key into a form.
import { Lexer, Source, TokenKind } from 'graphql';
import type { ReplayRecord } from '../../stores/replay-store.js';
import { maskUrl, sealPersonalData, unsealPersonalData, type QueryDigest } from '../../stores/replay-privacy.js';
import { MASK, answerHasData, maskLeaves, operationPrivacy } from './operation-privacy.js';

const LITERALS = new Set<string>([TokenKind.STRING, TokenKind.BLOCK_STRING, TokenKind.INT, TokenKind.FLOAT]);

/**
 * Text that may not parse (the kept start of a refused request) with every literal masked and its
 * comments dropped; it stops where the text stops being GraphQL tokens (a cut-off string).
 */
export function maskTokens(text: string): string {
  const out: string[] = [];
  try {
    const lexer = new Lexer(new Source(text));
    for (let t = lexer.advance(); t.kind !== TokenKind.EOF; t = lexer.advance())
      out.push(LITERALS.has(t.kind) ? `"${MASK}"` : (t.value ?? t.kind));
  } catch {
    out.push('…');
  }
  return out.join(' ');
}

/** A refused request's kept text, masked: typed when it is all of the text and parses, else token by token. */
function maskedDigest(d: QueryDigest, typed: string | null): QueryDigest {
  // The digest of a text holding an address would confirm a guessed address: not shown either.
  const sha256 = 'withheld';
  if (typed !== null && Buffer.byteLength(d.head) === d.bytes) return { ...d, sha256, head: typed, bytes: Buffer.byteLength(typed) };
  return { ...d, sha256, head: maskTokens(d.head) };
}

interface MaskedRecord {
  record: ReplayRecord;
  /** True when something was masked (the page then says so and offers unmasking to the unmask role). */
  masked: boolean;
  /** The record touches personal data (by type, or it could not be typed): a viewer sees no raw answer or variables. */
  personal: boolean;
}

/** A copy of the record with personal data masked by type; records that touch none are returned as they are. */
export function maskRecord(record: ReplayRecord): MaskedRecord {
  // Still sealed (or withheld) at rest: already masked as stored.
  if (record.personalData && !record.personalData.unsealed) return { record, masked: true, personal: true };
  const text = record.query ?? record.queryDigest?.head ?? null;
  // Answered before its body was read: nothing was sent that could be personal.
  if (text === null && !record.personalData) return { record, masked: false, personal: false };
  const privacy = operationPrivacy(text, record.operationName);
  const personal = privacy.personal || (privacy.untypedFields && answerHasData(record.responseBody));
  if (!personal && !record.personalData) return { record, masked: false, personal: false };
  const digest = record.queryDigest;
  return {
    masked: true,
    personal: true,
    record: {
      ...record,
      query: record.query === null ? null : (privacy.maskedQuery ?? maskTokens(record.query)),
      ...(digest ? { queryDigest: maskedDigest(digest, privacy.maskedQuery) } : {}),
      variables: record.variables ? (maskLeaves(record.variables) as Record<string, unknown>) : null,
      responseBody: privacy.maskBody(record.responseBody, record.variables),
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
