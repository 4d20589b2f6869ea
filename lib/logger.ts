// Structured logs (pino). Keys, tokens and full street addresses never reach a log line.
//
// Asynchronous stdout: a slow reader of stdout (a stalled log collector) must not stall request
// handling. Lines are gathered here as UTF-8 in a buffer of our own, up to LOG_BATCH_BYTES (at most
// LOG_FLUSH_MS late), and handed to pino's asynchronous destination (sonic-boom, in buffer mode) a
// batch at a time: one write per batch of request lines instead of one each. Gathered as bytes, a
// line costs one copy and leaves nothing on the JS heap; sonic-boom's own string mode measured the
// UTF-8 length of its whole pending text on every write (docs/benchmark.md, "The cache hit").
// Batches are views of one larger buffer (LOG_SLAB_BYTES), so a new buffer is allocated every ~16
// batches rather than every batch. What is still gathered is written out when the process exits,
// including on a fatal error.
import fs from 'node:fs';
import pino from 'pino';
import { BufferPool, ByteBuilder } from './byte-builder.js';

const BASE = { service: 'energy-plan-gateway' };
const REQUEST_LINES = Symbol('request lines');
/** pino's numbers for the levels request lines use. */
const LEVEL_NUMBERS = { debug: 20, info: 30, warn: 40 } as const;
export type LineLevel = keyof typeof LEVEL_NUMBERS;
const LOG_BATCH_BYTES = 64 * 1024;
const LOG_FLUSH_MS = 200;
const LOG_SLAB_BYTES = 1024 * 1024;

let stdout: ReturnType<typeof openBatchedStdout> | null = null;

/**
 * The process's one stdout destination, shared by every logger it makes (the gateway's, Mesh's):
 * one batch buffer and one writer, so two writers never interleave their batches on the same pipe.
 */
function batchedStdout() {
  return (stdout ??= openBatchedStdout());
}

/** A destination that gathers lines as UTF-8 and hands sonic-boom one buffer per batch. */
function openBatchedStdout() {
  const boom = pino.destination({ dest: 1, sync: false, contentMode: 'buffer' });
  // Bytes handed to sonic-boom and bytes it reported written: flush waits until they meet. (sonic-boom's
  // own flush calls back at once with its default minLength, while a batch may still sit on libuv's
  // pool; exiting then wrote the later batches first, or lost the one in flight.)
  let handed = 0;
  let written = 0;
  // A full slab is reused once sonic-boom has written every batch cut from it (all were handed
  // before it filled), rather than a new 1 MB of external memory every few thousand lines.
  const slabs = new BufferPool(2 * LOG_SLAB_BYTES);
  const retired: { slab: Buffer; until: number }[] = [];
  const retire = (slab: Buffer) => {
    // A stdout that stopped writing (closed, erroring) never reports them: only the latest are held.
    if (retired.length >= 4) retired.shift();
    retired.push({ slab, until: handed });
  };
  let pending = new ByteBuilder(LOG_SLAB_BYTES, { pool: slabs, retired: retire });
  let waiters: ((err?: Error) => void)[] = [];
  const settle = (err?: Error) => {
    const done = waiters;
    waiters = [];
    for (const cb of done) cb(err);
  };
  boom.on('write', (n: number) => {
    written += n;
    while (retired.length && retired[0]!.until <= written) slabs.give(retired.shift()!.slab);
    if (written >= handed) settle();
  });
  boom.on('error', (err: Error) => settle(err));
  const drain = () => {
    if (pending.length === 0) return;
    handed += pending.length;
    // sonic-boom keeps the view until it is written: later lines are gathered after it, never over it.
    // In buffer mode sonic-boom takes Buffers (its typings name strings only).
    boom.write(pending.take() as unknown as string);
  };
  setInterval(drain, LOG_FLUSH_MS).unref();
  // At exit nothing asynchronous runs any more: what sonic-boom queued, then what we gathered, is
  // written synchronously (a batch already on its way on libuv's pool may land after them, as with
  // pino's own exit flush; each line carries its time).
  process.once('exit', () => {
    try {
      boom.flushSync();
      if (pending.length) fs.writeSync(1, pending.bytes());
    } catch {
      // stdout already closed: nothing more can be written.
    }
    pending = new ByteBuilder(0);
  });
  return {
    write(line: string) {
      pending.append(line);
      if (pending.length >= LOG_BATCH_BYTES) drain();
      return true;
    },
    /** pino's logger.flush(cb): calls back once every line gathered so far is written to stdout. */
    flush(cb?: (err?: Error) => void) {
      drain();
      if (written >= handed) {
        if (cb) process.nextTick(cb);
        return;
      }
      if (cb) waiters.push(cb);
    },
  };
}

/** pino's levels, as LOG_LEVEL and MESH_LOG_LEVEL take them. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * A logger at `level`; an unknown level (a bad LOG_LEVEL reaching a tool that does not check its
 * settings) logs at `info` rather than failing: the gateway's settings check names the variable.
 */
/** `bindings`: fields on every line of this logger, request lines included (a cluster worker's number). */
export function createLogger(level: string = process.env.LOG_LEVEL?.trim() || 'info', bindings: Record<string, string | number> = {}) {
  const dest = batchedStdout();
  const fixed = { ...BASE, ...bindings };
  const logger = pino(
    {
      level: (LOG_LEVELS as readonly string[]).includes(level) ? level : 'info',
      base: fixed,
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'headers["x-api-key"]',
          'apiKey',
          'key',
          'token',
          'adminToken',
          'variables.address',
          '*.address',
        ],
        censor: '[redacted]',
      },
    },
    dest,
  );
  // The per-request line is built as JSON text from a whitelist (observability/request-log.ts) and
  // written to the same stream in pino's format: no redaction pass, no object for pino to walk.
  const base = `,${JSON.stringify(fixed).slice(1, -1)},`;
  const msgs = new Map<string, string>();
  const writer: LineWriter = {
    isLevelEnabled: (l) => logger.isLevelEnabled(l),
    writeLine(l, fields, msg) {
      let m = msgs.get(msg);
      if (m === undefined) {
        m = `,"msg":${JSON.stringify(msg)}}\n`;
        if (msgs.size < 16) msgs.set(msg, m);
      }
      dest.write(`{"level":${LEVEL_NUMBERS[l]},"time":${Date.now()}${base}${fields}${m}`);
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
