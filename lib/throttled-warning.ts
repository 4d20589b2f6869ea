// A warning that a client can trigger at will (a refused request) is written at most once per
// interval; the line says how many refusals it stands for. Refusals held back are reported by a
// trailing line at the end of the interval, so a burst is never left uncounted. Each refusal is
// still in its request line.
export type Warn = (obj: object, msg: string) => void;

export function throttledWarning(warn: Warn, opts: { everyMs?: number; now?: () => number; countField?: string } = {}): Warn {
  const everyMs = opts.everyMs ?? 1000;
  const now = opts.now ?? Date.now;
  const countField = opts.countField ?? 'refusedSinceLastWarning';
  let lastWarnAt = -Infinity;
  let unreported = 0;
  let held: { obj: object; msg: string } | null = null;
  let trailing: NodeJS.Timeout | null = null;
  const write = (obj: object, msg: string) => {
    warn({ ...obj, [countField]: unreported }, msg);
    lastWarnAt = now();
    unreported = 0;
    held = null;
  };
  return (obj, msg) => {
    const t = now();
    if (t - lastWarnAt < everyMs) {
      unreported++;
      held = { obj, msg };
      if (!trailing) {
        trailing = setTimeout(
          () => {
            trailing = null;
            if (held) write(held.obj, held.msg);
          },
          Math.max(0, lastWarnAt + everyMs - t),
        );
        trailing.unref();
      }
      return;
    }
    if (trailing) {
      clearTimeout(trailing);
      trailing = null;
    }
    write(obj, msg);
  };
}
