// A real redis-server owned by the test: on a free port, stoppable and restartable to test faults.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface TestRedis {
  port: number;
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP: the server hangs with its connections open (no answer, no error). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

/** Ports handed out by this process, never twice: two tests of one file cannot be given the same. */
const handedOut = new Set<number>();

/**
 * A port free now, picked at random below the kernel's ephemeral range (32768 and up on Linux),
 * where outgoing connections of every process take theirs: a port from the ephemeral range could
 * be taken by some client socket between this check and the bind that follows it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (handedOut.has(port)) continue;
    if (await canBind(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port found between 20000 and 32000');
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function redisBinary(): string {
  const bin = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(`redis-server not found (${bin}). Install it (apt-get install -y redis-server) or set REDIS_SERVER_BIN.`);
  }
  return bin;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.write('PING\r\n');
      });
      sock.once('data', (d) => {
        sock.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`redis-server did not start on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startTestRedis(): Promise<TestRedis> {
  const bin = redisBinary();
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    // Persistence off except what the test asks for: the allowance-survives-restart test uses
    // `appendonly` via its own instance if needed; here a stop is a real outage.
    child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], {
      stdio: 'ignore',
    });
    await waitForPort(port, 5000);
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };
  await start();
  const signal = (sig: NodeJS.Signals) => () => {
    const c = child as ChildProcess | null;
    if (c && c.exitCode === null) c.kill(sig);
  };
  return { port, url: `redis://127.0.0.1:${port}`, stop, start, pause: signal('SIGSTOP'), resume: signal('SIGCONT') };
}
