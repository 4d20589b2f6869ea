// The gateway's logger (lib/logger.ts) in a process of its own, as it writes to stdout:
// secrets and addresses are redacted; request lines share the stream and the level; what is queued
// when the process exits is flushed.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { requestLineWriter } from '../../lib/logger.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function run(level: string, script: string, env: Record<string, string> = {}): Record<string, unknown>[] {
  const code = `import { createLogger, requestLineWriter } from './lib/logger.ts';\n${script}\nprocess.exit(0);`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env.PATH, LOG_LEVEL: level, ...env },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('logger', () => {
  it('redacts keys, tokens and addresses; request lines go to the same stream; nothing is lost at exit', () => {
    const lines = run(
      'info',
      `
      const logger = createLogger();
      logger.info({ apiKey: 'k-secret', headers: { 'x-api-key': 'k-secret' }, variables: { address: '1 Main St' }, err: { address: '2 Main St' } }, 'event');
      for (let i = 0; i < 500; i++) requestLineWriter(logger).writeLine('info', '"requestId":"r' + i + '","status":200', 'request');
      logger.warn({ token: 't-secret' }, 'last');
    `,
    );
    expect(lines).toHaveLength(502);
    const text = JSON.stringify(lines);
    expect(text).not.toContain('secret');
    expect(text).not.toContain('Main St');
    // At exit the gathered lines are written synchronously, and a batch already on its way (on
    // libuv's pool) may land after them: every line is there, found by its content.
    const find = (msg: string, id?: string) => lines.find((l) => l.msg === msg && (id === undefined || l.requestId === id));
    expect(find('event')).toMatchObject({ apiKey: '[redacted]', service: 'energy-plan-gateway' });
    for (let i = 0; i < 500; i++) expect(find('request', `r${i}`)).toMatchObject({ service: 'energy-plan-gateway', level: 30 });
    expect(find('last')).toMatchObject({ token: '[redacted]' });
  });

  // What the logger guarantees: every line whole, and the lines of the process's loggers in the order
  // they were written once flush has called back. Written under load: libuv's pool (where stdout
  // writes run) has one thread, kept busy by a key derivation, so a batch waits there while later
  // ones are gathered; flush must wait for it rather than let the exit write the later ones first.
  it('every logger of a process writes through one stdout destination: after flush, lines whole and in the order written', () => {
    const lines = run(
      'info',
      `
      import crypto from 'node:crypto';
      crypto.pbkdf2('busy', 'pool', 300000, 32, 'sha512', () => {});
      const a = createLogger();
      const mesh = createLogger('warn').child({ component: 'mesh' });
      for (let i = 0; i < 3000; i++) {
        requestLineWriter(a).writeLine('info', '"requestId":"r' + i + '","pad":"' + 'x'.repeat(100) + '"', 'request');
        if (i % 100 === 0) mesh.warn({ n: i }, 'mesh warning');
      }
      await new Promise((resolve) => a.flush(() => resolve()));
    `,
      { UV_THREADPOOL_SIZE: '1' },
    );
    // Whole lines: run() parsed each as JSON.
    expect(lines).toHaveLength(3030);
    const order = lines.map((l) => (l.msg === 'request' ? Number(String(l.requestId).slice(1)) : Number(l.n)));
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(lines.filter((l) => l.component === 'mesh')).toHaveLength(30);
  });

  // Full 1 MB slabs are reused once every batch cut from them is written: with libuv's pool kept
  // busy, 4 MB of lines wait to be written while later ones fill the next slabs; none is written over.
  it('lines across many reused slabs arrive whole, with their own content, in order', () => {
    const lines = run(
      'info',
      `
      import crypto from 'node:crypto';
      crypto.pbkdf2('busy', 'pool', 200000, 32, 'sha512', () => {});
      const a = createLogger();
      const w = requestLineWriter(a);
      for (let i = 0; i < 16000; i++) {
        w.writeLine('info', '"requestId":"r' + i + '","pad":"' + String(i % 10).repeat(200 + (i % 50)) + '"', 'request');
        if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => a.flush(() => resolve()));
    `,
      { UV_THREADPOOL_SIZE: '1' },
    );
    expect(lines).toHaveLength(16000);
    for (const [i, l] of lines.entries()) {
      expect(l.requestId).toBe(`r${i}`);
      expect(l.pad).toBe(String(i % 10).repeat(200 + (i % 50)));
    }
  });

  it('an unknown level logs at info instead of throwing (the settings check names the variable)', () => {
    const lines = run(
      'info',
      `
      const logger = createLogger('loud');
      logger.debug('hidden');
      logger.info('shown');
    `,
    );
    expect(lines.map((l) => l.msg)).toEqual(['shown']);
  });

  it('request lines follow the level', () => {
    const lines = run(
      'warn',
      `
      const logger = createLogger();
      const w = requestLineWriter(logger);
      for (const level of ['debug', 'info', 'warn']) if (w.isLevelEnabled(level)) w.writeLine(level, '"requestId":"r-' + level + '"', 'request');
    `,
    );
    expect(lines.map((l) => l.requestId)).toEqual(['r-warn']);
  });

  it("request lines are written in pino's own format", () => {
    const lines = run(
      'debug',
      `
      import pino from 'pino';
      const logger = createLogger();
      requestLineWriter(logger).writeLine('debug', '"requestId":"r1","partnerCode":null,"n":1.5', 'request');
      pino({ base: { service: 'energy-plan-gateway' } }).info({ requestId: 'r2', partnerCode: null, n: 1.5 }, 'request');
    `,
    );
    // Ours is batched and pino's own is not: find each by its id, not by its place.
    const ours = lines.find((l) => l.requestId === 'r1')!;
    const pinos = lines.find((l) => l.requestId === 'r2')!;
    expect(Object.keys(ours)).toEqual(Object.keys(pinos));
    expect(ours).toMatchObject({ level: 20, service: 'energy-plan-gateway', requestId: 'r1', partnerCode: null, n: 1.5, msg: 'request' });
    expect(typeof ours.time).toBe('number');
  });

  it('a logger made elsewhere (tests) is handed objects', () => {
    const got: unknown[] = [];
    const plain = { info: (o: object, msg?: string) => void got.push(o, msg) };
    requestLineWriter(plain).writeLine('info', '"requestId":"r","status":200', 'request');
    expect(got).toEqual([{ requestId: 'r', status: 200 }, 'request']);
  });
});
