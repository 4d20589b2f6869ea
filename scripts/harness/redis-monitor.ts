// Redis MONITOR on a plain socket. ioredis' monitor() races: when +OK and the first monitored
// command arrive in one read, the command is parsed before the client has switched to monitoring
// mode and surfaces as an uncaught "Command queue state error" (it failed a CI run).
import net from 'node:net';

interface RedisMonitor {
  /** Stops monitoring and closes the socket. */
  close(): void;
}

/** Calls `onCommand` with each command's arguments, in the order Redis ran them, once MONITOR is on. */
export function monitorRedis(port: number, onCommand: (args: string[]) => void): Promise<RedisMonitor> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buffered = '';
    let on = false;
    socket.setEncoding('latin1');
    // Kept after MONITOR is on: a later socket error is not an uncaught exception in the test.
    socket.on('error', reject);
    socket.on('connect', () => socket.write('MONITOR\r\n'));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (!on) {
          if (line !== '+OK') {
            socket.destroy();
            return reject(new Error(`MONITOR answered ${line}`));
          }
          on = true;
          resolve({ close: () => socket.destroy() });
        } else if (line.startsWith('+')) onCommand(parseArgs(line));
      }
    });
  });
}

/** The quoted arguments of a MONITOR line: `+<time> [<db> <client>] "cmd" "arg" ...`. */
function parseArgs(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(["\\])/g, '$1'));
}
