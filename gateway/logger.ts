// Structured logs (pino). Keys, tokens and full street addresses never reach a log line.
import pino from 'pino';

export function createLogger(level = process.env.LOG_LEVEL ?? 'info') {
  return pino({
    level,
    base: { service: 'energy-plan-gateway' },
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'apiKey', 'key', 'token', 'adminToken', 'variables.address', '*.address'],
      censor: '[redacted]',
    },
  });
}

export type Logger = ReturnType<typeof createLogger>;
