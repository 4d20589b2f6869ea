// Settings of the replay log: retention, byte budgets, the write queue and the key that seals
// personal data. Read once by server/config.ts; a bad value stops the process with a message naming
// the variable.
import { kinds } from '../lib/settings.js';
import { readAllSettings, type SettingValues } from '../lib/settings-table.js';

export interface ReplaySettings {
  enabled: boolean;
  retentionMs: number;
  /** Byte budget of each keyed environment (production, certification). */
  maxBytes: number;
  /** Byte budget of the playground's records: keyless traffic never evicts keyed records. */
  playgroundMaxBytes: number;
  /** Records holding personal data: their own, shorter retention and budget per environment. */
  personal: { retentionMs: number; maxBytes: number };
  /** AES-256 key (REPLAY_PII_KEY) that seals personal data in records; null = not stored at all. */
  piiKey: Buffer | null;
  queueMaxRecords: number;
  queueMaxBytes: number;
  /** Embedded store: a segment file is closed once it reaches this size. */
  segmentBytes: number;
  /** How long a failed batch write is retried before its records are dropped (ms; 0 = no retry; default 10 s). */
  writeRetryMs?: number;
  /** The longest a record waits in its batch before the batch is written (ms; default 50; a batch of 500 is written at once). */
  flushMs?: number;
}

/** The replay log's settings; `s` is the settings already read (loadConfig), else read here. */
export function loadReplaySettings(
  env: NodeJS.ProcessEnv,
  problems: string[],
  s: SettingValues = readAllSettings(env, problems),
): ReplaySettings {
  if (s.REPLAY_PII_RETENTION > s.REPLAY_RETENTION) problems.push('REPLAY_PII_RETENTION must not be longer than REPLAY_RETENTION');
  return {
    enabled: s.REPLAY_ENABLED,
    retentionMs: s.REPLAY_RETENTION,
    maxBytes: s.REPLAY_MAX_BYTES,
    playgroundMaxBytes: s.REPLAY_PLAYGROUND_MAX_BYTES,
    personal: { retentionMs: s.REPLAY_PII_RETENTION, maxBytes: s.REPLAY_PII_MAX_BYTES },
    piiKey: s.REPLAY_PII_KEY,
    queueMaxRecords: s.REPLAY_QUEUE_MAX,
    queueMaxBytes: s.REPLAY_QUEUE_BYTES,
    segmentBytes: s.REPLAY_SEGMENT_BYTES,
    writeRetryMs: s.REPLAY_WRITE_RETRY_MS,
    flushMs: s.REPLAY_FLUSH_MS,
  };
}

/** A REPLAY_PII_KEY typed elsewhere (the console's unmask form): 32 bytes as 64 hex digits or base64. */
export function parsePiiKey(raw: string | undefined, problems: string[]): Buffer | null {
  if (!raw?.trim()) return null;
  const key = kinds.key32().schema.safeParse(raw);
  if (key.success) return key.data;
  problems.push(`REPLAY_PII_KEY must be ${kinds.key32().accepts}`);
  return null;
}
