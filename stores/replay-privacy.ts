// What a replay record keeps of the text it was sent, and how personal data is held at rest.
//
// - A request that was not executed (refused, invalid, introspection-only) keeps only a digest of
//   its text (SHA-256, size, the first characters): anyone can send 60 KB of comment for free, and
//   support needs the full text only to re-run an executed operation.
// - A record that touches personal data (the schema's @personalData, resolvers/schema-policy.ts) keeps its query, variables, response
//   body and upstream query strings sealed with AES-256-GCM under REPLAY_PII_KEY; in clear it shows
//   masks only. Without the key those parts are not stored at all. Only a holder of the key
//   (`npm run replay -- show` with REPLAY_PII_KEY set) sees them again.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** The parts of a replay record this module reads and masks (the record type lives in replay-store.ts). */
export interface SealableRecord {
  query: string | null;
  queryDigest?: QueryDigest;
  variables: Record<string, unknown> | null;
  responseBody: string;
  upstreamCalls: { url: string }[];
  personalData?: { sealed: SealedBox | null; unsealed?: true };
}

const DIGEST_HEAD_CHARS = 200;
export const SEALED_MASK = '[personal data: sealed, readable with REPLAY_PII_KEY]';
const WITHHELD_MASK = '[personal data: not stored (no REPLAY_PII_KEY configured)]';
const UNRECORDABLE = { $unrecorded: 'variables too deeply nested or too large to record' };

export interface QueryDigest {
  sha256: string;
  bytes: number;
  head: string;
}

export interface SealedBox {
  alg: 'aes-256-gcm';
  /** First 16 hex digits of SHA-256 of the key: tells which key sealed it, reveals nothing. */
  keyId: string;
  iv: string;
  tag: string;
  data: string;
}

/** What a sealed record hides. */
interface SealedParts {
  query: string | null;
  variables: unknown;
  responseBody: string;
  upstreamUrls: string[];
}

export function digestQuery(text: string): QueryDigest {
  return {
    sha256: createHash('sha256').update(text).digest('hex'),
    bytes: Buffer.byteLength(text),
    head: text.slice(0, DIGEST_HEAD_CHARS),
  };
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** JSON of a value, or of a marker when it cannot be serialized (nested past V8's stack). */
export function safeJson(value: unknown, fallback: (v: unknown) => unknown = () => UNRECORDABLE): string {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(fallback(value));
  }
}

/** A record as JSON; variables that cannot be serialized become a marker instead of losing the record. */
export function recordJson(record: object & { variables?: unknown }): string {
  return safeJson(record, (r) => ({ ...(r as object), variables: UNRECORDABLE }));
}

/** The URL without its query string (the premises feed carries the street address there). */
export function maskUrl(raw: string): string {
  const cut = raw.search(/[?#]/);
  return cut < 0 ? raw : `${raw.slice(0, cut)}?[personal data]`;
}

/** Replaces the personal parts of a record with masks, sealing them under `key` when given. */
export function sealPersonalData(record: SealableRecord, key: Buffer | null): void {
  let sealed: SealedBox | null = null;
  if (key) {
    const parts: SealedParts = {
      query: record.query,
      variables: record.variables,
      responseBody: record.responseBody,
      upstreamUrls: record.upstreamCalls.map((c) => c.url),
    };
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([
      cipher.update(
        safeJson(parts, () => ({ ...parts, variables: UNRECORDABLE })),
        'utf8',
      ),
      cipher.final(),
    ]);
    sealed = {
      alg: 'aes-256-gcm',
      keyId: keyId(key),
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  }
  const mask = sealed ? SEALED_MASK : WITHHELD_MASK;
  record.query = record.query === null ? null : mask;
  record.variables = record.variables === null ? null : { $personalData: mask };
  record.responseBody = mask;
  delete record.queryDigest;
  record.upstreamCalls = record.upstreamCalls.map((c) => ({ ...c, url: maskUrl(c.url) }));
  record.personalData = { sealed };
}

/**
 * The record with its personal parts restored, when `key` is the one that sealed it; else the
 * record as stored (masked) and the reason.
 */
export function unsealPersonalData<R extends SealableRecord>(record: R, key: Buffer | null): { record: R; problem?: string } {
  const box = record.personalData?.sealed;
  if (!record.personalData) return { record };
  if (!box) return { record, problem: 'personal data was not stored (the gateway had no REPLAY_PII_KEY)' };
  if (!key) return { record, problem: 'personal data is sealed: set REPLAY_PII_KEY to read it' };
  if (box.keyId !== keyId(key)) return { record, problem: `personal data was sealed with another key (key id ${box.keyId})` };
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(box.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(box.tag, 'base64'));
    const text = Buffer.concat([decipher.update(Buffer.from(box.data, 'base64')), decipher.final()]).toString('utf8');
    const parts = JSON.parse(text) as SealedParts;
    return {
      record: {
        ...record,
        query: parts.query,
        variables: parts.variables as R['variables'],
        responseBody: parts.responseBody,
        upstreamCalls: record.upstreamCalls.map((c, i) => ({ ...c, url: parts.upstreamUrls[i] ?? c.url })),
        personalData: { sealed: null, unsealed: true },
      },
    };
  } catch {
    return { record, problem: 'personal data could not be unsealed (damaged record or wrong key)' };
  }
}
