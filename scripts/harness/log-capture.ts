// A pino logger whose lines are kept in memory as parsed objects, for tests that read a gateway's log.
import { Writable } from 'node:stream';
import pino from 'pino';

export function captureLog(level = 'info'): { logger: pino.Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { logger: pino({ level }, stream), lines };
}
