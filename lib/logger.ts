// Structured logs (pino). Keys, tokens and full street addresses never reach a log line.
//
// Asynchronous stdout: a slow reader of stdout (a stalled log collector) must not stall request
// handling, so lines are queued while a write is in flight and go out together in the next one.
// Lines are also gathered up to LOG_BATCH_BYTES before a write (at most LOG_FLUSH_MS late): one
// write per ~20 request lines instead of one each, which under load cost the event loop more than
// building the lines. pino flushes what is still queued when the process exits, including on a
// fatal error.
import pino from 'pino';

const BASE = { service: 'energy-plan-gateway' };
const REQUEST_LINES = Symbol('request lines');
/** pino's numbers for the levels request lines use. */
const LEVEL_NUMBERS = { debug: 20, info: 30, warn: 40 } as const;
export type LineLevel = keyof typeof LEVEL_NUMBERS;
const LOG_BATCH_BYTES = 8 * 1024;
const LOG_FLUSH_MS = 200;

export function createLogger(level = process.env.LOG_LEVEL ?? 'info') {
  const dest = pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS });
  const logger = pino({
    level,
    base: BASE,
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'apiKey', 'key', 'token', 'adminToken', 'variables.address', '*.address'],
      censor: '[redacted]',
    },
  }, dest);
  // The per-request line is built as JSON text from a whitelist (observability/request-log.ts) and
  // written to the same stream in pino's format: no redaction pass, no object for pino to walk.
  const base = `,"service":${JSON.stringify(BASE.service)},`;
  const writer: LineWriter = {
    isLevelEnabled: (l) => logger.isLevelEnabled(l),
    writeLine(l, fields, msg) {
      dest.write(`{"level":${LEVEL_NUMBERS[l]},"time":${Date.now()}${base}${fields},"msg":${JSON.stringify(msg)}}\n`);
    },
  };
  Object.defineProperty(logger, REQUEST_LINES, { value: writer });
  return logger;
}

export type Logger = ReturnType<typeof createLogger>;

/** Writes lines whose fields are already JSON text (`"a":1,"b":"x"`), in the logger's format. */
export interface LineWriter {
  isLevelEnabled(level: LineLevel): boolean;
  writeLine(level: LineLevel, fields: string, msg: string): void;
}

type PlainLogger = { isLevelEnabled?(level: string): boolean } & Partial<Record<LineLevel, (obj: object, msg?: string) => void>>;

/** The request-line writer of a logger made by createLogger; for any other logger (tests), one that hands it objects. */
export function requestLineWriter(logger: object): LineWriter {
  const own = (logger as Record<symbol, LineWriter | undefined>)[REQUEST_LINES];
  if (own) return own;
  const plain = logger as PlainLogger;
  return {
    isLevelEnabled: (l) => plain.isLevelEnabled?.(l) ?? true,
    writeLine: (l, fields, msg) => plain[l]?.(JSON.parse(`{${fields}}`) as object, msg),
  };
}
