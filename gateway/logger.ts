// Structured logs (pino). Keys, tokens and full street addresses never reach a log line.
//
// Asynchronous stdout: a slow reader of stdout (a stalled log collector) must not stall request
// handling, so lines are queued while a write is in flight and go out together in the next one.
// pino flushes what is still queued when the process exits, including on a fatal error.
import pino from 'pino';

export function createLogger(level = process.env.LOG_LEVEL ?? 'info') {
  return pino({
    level,
    base: { service: 'energy-plan-gateway' },
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'apiKey', 'key', 'token', 'adminToken', 'variables.address', '*.address'],
      censor: '[redacted]',
    },
  }, pino.destination({ dest: 1, sync: false }));
}

export type Logger = ReturnType<typeof createLogger>;
