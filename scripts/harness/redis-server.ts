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

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
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
