// A warning that a client can trigger at will (a refused request) is written at most once per
// interval; the line says how many refusals it stands for. Each refusal is still in its request line.
export type Warn = (obj: object, msg: string) => void;

export function throttledWarning(warn: Warn, opts: { everyMs?: number; now?: () => number } = {}): Warn {
  const everyMs = opts.everyMs ?? 1000;
  const now = opts.now ?? Date.now;
  let lastWarnAt = -Infinity;
  let unreported = 0;
  return (obj, msg) => {
    const t = now();
    if (t - lastWarnAt < everyMs) {
      unreported++;
      return;
    }
    warn({ ...obj, refusedSinceLastWarning: unreported }, msg);
    lastWarnAt = t;
    unreported = 0;
  };
}
