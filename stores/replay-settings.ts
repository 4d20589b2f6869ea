// Settings of the replay log: retention, byte budgets, the write queue and the key that seals
// personal data, declared as the config they fill. Read once by server/config.ts; a bad value
// stops the process with a message naming the variable.
import type { z } from 'zod';
import { kinds as k, readSettingsOrDefaults, setting, settingsSchema } from '../lib/settings.js';

const DAY = 86_400_000;
const MiB = 1024 * 1024;

export const replaySettings = settingsSchema({
  enabled: setting('REPLAY_ENABLED', k.bool(), true, 'the replay log on or off'),
  retentionMs: setting('REPLAY_RETENTION', k.duration(1000), 7 * DAY, 'how long replay records are kept', [
    'gateway',
    'playground process',
    'CLI',
  ]),
  /** Byte budget of each keyed environment (production, certification). */
  maxBytes: setting('REPLAY_MAX_BYTES', k.bytes(4096), 256 * MiB, 'replay budget per keyed environment'),
  /** Byte budget of the playground's records: keyless traffic never evicts keyed records. */
  playgroundMaxBytes: setting(
    'REPLAY_PLAYGROUND_MAX_BYTES',
    k.bytes(4096),
    { text: 'REPLAY_MAX_BYTES / 8', from: (v) => Math.max(4096, Math.floor((v.REPLAY_MAX_BYTES as number) / 8)) },
    "the playground's own replay budget",
  ),
  /** AES-256 key (REPLAY_PII_KEY) that seals personal data in records; null = not stored at all. */
  piiKey: setting(
    'REPLAY_PII_KEY',
    k.key32(),
    null,
    'sealing key of records holding personal data (32 bytes, hex or base64); unset = personal data not stored',
    ['gateway', 'CLI'],
  ),
  /** Records holding personal data: their own, shorter retention and budget per environment. */
  personal: {
    retentionMs: setting(
      'REPLAY_PII_RETENTION',
      k.duration(1000),
      { text: '24h (at most REPLAY_RETENTION)', from: (v) => Math.min(DAY, v.REPLAY_RETENTION as number) },
      'retention of records holding personal data (at most REPLAY_RETENTION)',
    ),
    maxBytes: setting(
      'REPLAY_PII_MAX_BYTES',
      k.bytes(4096),
      { text: 'REPLAY_MAX_BYTES / 4', from: (v) => Math.max(4096, Math.floor((v.REPLAY_MAX_BYTES as number) / 4)) },
      'budget per environment of records holding personal data',
    ),
  },
  queueMaxRecords: setting('REPLAY_QUEUE_MAX', k.int(1, 1_000_000), 10_000, 'records waiting to be written, at most'),
  queueMaxBytes: setting('REPLAY_QUEUE_BYTES', k.bytes(1024), 16 * MiB, 'bytes waiting to be written, at most'),
  /** Embedded store: a segment file is closed once it reaches this size. */
  segmentBytes: setting(
    'REPLAY_SEGMENT_BYTES',
    k.bytes(1024),
    {
      text: 'REPLAY_MAX_BYTES / 8, at most 16 MiB',
      from: (v) => Math.max(1024, Math.min(16 * MiB, Math.floor((v.REPLAY_MAX_BYTES as number) / 8))),
    },
    'without Redis: the size of one file of the embedded replay store (the oldest file is dropped whole when the budget is reached)',
  ),
  /** How long a failed batch write is retried before its records are dropped (ms; 0 = no retry). */
  writeRetryMs: setting('REPLAY_WRITE_RETRY_MS', k.int(0, 120_000), 10_000, 'how long a failed batch write is retried'),
  /** The longest a record waits in its batch before the batch is written (ms; a batch of 500 is written at once). */
  flushMs: setting(
    'REPLAY_FLUSH_MS',
    k.int(1, 60_000),
    50,
    'a batch is written once it holds 500 records or its first record has waited this long',
  ),
}).check((ctx) => {
  if (ctx.value.personal.retentionMs > ctx.value.retentionMs)
    ctx.issues.push({ code: 'custom', message: 'REPLAY_PII_RETENTION must not be longer than REPLAY_RETENTION', input: ctx.value });
});

type Read = z.output<typeof replaySettings>;
/** The replay log's settings; the write retry and flush delay have defaults of their own in the store. */
export type ReplaySettings = Omit<Read, 'writeRetryMs' | 'flushMs'> & Partial<Pick<Read, 'writeRetryMs' | 'flushMs'>>;

/** The replay log's settings of an environment, its problems added to `problems`. */
export function loadReplaySettings(env: NodeJS.ProcessEnv, problems: string[]): ReplaySettings {
  return readSettingsOrDefaults(replaySettings, env, problems);
}

/** A REPLAY_PII_KEY typed elsewhere (the console's unmask form): 32 bytes as 64 hex digits or base64. */
export function parsePiiKey(raw: string | undefined, problems: string[]): Buffer | null {
  if (!raw?.trim()) return null;
  const key = k.key32().schema.safeParse(raw);
  if (key.success) return key.data;
  problems.push(`REPLAY_PII_KEY must be ${k.key32().accepts}`);
  return null;
}
