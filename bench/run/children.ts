// The benchmark's child processes (servers and load generators): started with their output kept
// for error messages, awaited to a line or a 200, stopped with the run.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { ROOT } from './flags.js';

export interface Child {
  name: string;
  proc: ChildProcess;
  /** Last lines of output, for error messages. */
  tail(): string;
  stop(): Promise<void>;
}

export const children = new Set<Child>();

/**
 * `stdoutFile`: the child's stdout goes to that file instead of a pipe to this process (the gateway's
 * request log: read here, 10k+ lines a second would take CPU from the load generator; in production
 * it goes to a file or a collector, not to a process on the same cores).
 */
export function startChild(
  name: string,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready?: RegExp,
  cwd = ROOT,
  stdoutFile?: string,
): { child: Child; line: Promise<RegExpMatchArray | null> } {
  const out = stdoutFile ? fs.openSync(stdoutFile, 'a') : 'pipe';
  const proc = spawn(cmd, args, { cwd, env, stdio: ['ignore', out, 'pipe'] });
  if (typeof out === 'number') fs.closeSync(out);
  const lines: string[] = [];
  let resolveLine: (m: RegExpMatchArray | null) => void = () => {};
  const line = new Promise<RegExpMatchArray | null>((resolve, reject) => {
    resolveLine = resolve;
    proc.once('exit', (code, signal) => reject(new Error(`${name} exited early (${code ?? signal}):\n${lines.join('\n')}`)));
    if (!ready) resolve(null);
  });
  line.catch(() => {});
  const onData = (d: Buffer) => {
    for (const l of d.toString().split('\n')) {
      if (!l) continue;
      lines.push(l);
      if (lines.length > 40) lines.shift();
      const m = ready?.exec(l);
      if (m) resolveLine(m);
    }
  };
  proc.stdout?.on('data', onData);
  proc.stderr!.on('data', onData);
  const fileTail = () => (stdoutFile ? fs.readFileSync(stdoutFile, 'utf8').split('\n').filter(Boolean).slice(-20) : []);
  const child: Child = {
    name,
    proc,
    tail: () => [...fileTail(), ...lines].join('\n'),
    stop: () =>
      new Promise<void>((resolve) => {
        children.delete(child);
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
        proc.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  };
  children.add(child);
  return { child, line };
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a command to its end (time-boxed: killed after `timeoutMs`); throws with its output unless it exits 0. */
export async function runToExit(
  name: string,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs: number,
): Promise<number> {
  const t0 = performance.now();
  const { child } = startChild(name, cmd, args, env, undefined, cwd);
  const code = await new Promise<number | string | null>((resolve) => {
    const timer = setTimeout(() => {
      child.proc.kill('SIGKILL');
      resolve(`killed after ${timeoutMs} ms`);
    }, timeoutMs);
    child.proc.once('exit', (c, sig) => {
      clearTimeout(timer);
      resolve(c ?? sig);
    });
  });
  children.delete(child);
  if (code !== 0) throw new Error(`${name} failed (${code}):\n${child.tail()}`);
  return performance.now() - t0;
}

export async function waitFor200(url: string, timeoutMs: number, child: Child): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`${child.name} exited:\n${child.tail()}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} not 200 within ${timeoutMs} ms:\n${child.tail()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
