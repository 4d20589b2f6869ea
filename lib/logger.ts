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
  // The per-request line is built field by field from a whitelist (observability/request-log.ts),
  // so it skips the redaction pass, which cost ~10% of a cached answer's CPU. Same stream, same level.
  Object.defineProperty(logger, REQUEST_LINES, { value: pino({ level, base: BASE }, dest) });
  return logger;
}

export type Logger = ReturnType<typeof createLogger>;

/** The logger for request lines: the unredacted sibling of a logger made by createLogger, else the logger itself. */
export function requestLineLogger<T extends object>(logger: T): T {
  return ((logger as Record<symbol, unknown>)[REQUEST_LINES] as T | undefined) ?? logger;
}
