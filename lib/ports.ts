// Every port a local `npm start` listens on, with the variable that moves it. PORT_BASE moves them
// all together: each default shifts by PORT_BASE − 4000 (PORT_BASE=5000 gives 5000, 5001, 5002,
// 5010, 5020, 10464, 10465), so two checkouts run side by side with one setting. A port's own
// variable still wins over PORT_BASE.

export const DEFAULT_PORT_BASE = 4000;

/** How the settings docs say a port's default: `4020 (+ PORT_BASE − 4000)`. */
export const shiftedDefault = (port: number) => `${port} (+ PORT_BASE − ${DEFAULT_PORT_BASE})`;

/** Variable → default port, in the order the README's table lists them. */
export const DEFAULT_PORTS = {
  PRODUCTION_PORT: 4000,
  CERTIFICATION_PORT: 4001,
  PLAYGROUND_PORT: 4002,
  UPSTREAM_PORT: 4010,
  ADMIN_PORT: 4020,
  OPS_PORT: 9464,
  PLAYGROUND_OPS_PORT: 9465,
} as const;
type PortVariable = keyof typeof DEFAULT_PORTS;

/** The highest PORT_BASE that keeps every shifted default a valid port. */
export const MAX_PORT_BASE = 65535 - (Math.max(...Object.values(DEFAULT_PORTS)) - DEFAULT_PORT_BASE);

/** PORT_BASE's shift of the defaults, or an error message naming the variable. */
function portShift(env: NodeJS.ProcessEnv): { shift: number; problem?: string } {
  const raw = env.PORT_BASE?.trim();
  if (!raw) return { shift: 0 };
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1024 || n > MAX_PORT_BASE)
    return { shift: 0, problem: `PORT_BASE must be an integer from 1024 to ${MAX_PORT_BASE}, got "${raw}"` };
  return { shift: n - DEFAULT_PORT_BASE };
}

/** The default of one port under PORT_BASE (an invalid PORT_BASE leaves the defaults; the settings check reports it). */
export function defaultPort(name: PortVariable, env: NodeJS.ProcessEnv): number {
  return DEFAULT_PORTS[name] + portShift(env).shift;
}

/** A listener could not bind its port: the message names the variable that moves it. */
export class PortInUseError extends Error {
  constructor(
    readonly variable: string,
    readonly host: string,
    readonly port: number,
    code: string,
  ) {
    super(
      code === 'EADDRINUSE'
        ? `${host}:${port} is already in use (${variable}): stop what listens there, set ${variable} to another port, ` +
            'or PORT_BASE to move every port (see README.md "Ports")'
        : `cannot listen on ${host}:${port} (${variable}, ${code}): set ${variable} to another port, or PORT_BASE to move every port`,
    );
    this.name = 'PortInUseError';
  }
}

/** The PortInUseError for a listen error naming `variable`, or the error itself when it is not about the address. */
export function explainListenError(err: unknown, variable: string | undefined, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (!variable || (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL')) return err;
  return new PortInUseError(variable, host, port, code);
}
