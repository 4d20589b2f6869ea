// Which shutdown requests count. One Ctrl-C in a terminal sends SIGINT to the whole foreground
// process group: `npm start` (which relays it to its child), the gateway, and the playground
// process. The gateway therefore sees the same SIGINT twice within milliseconds (three times under
// `tsx`, which relays it too), and the playground process gets it beside its parent's SIGTERM. A
// repeat of the first signal within RELAYED_SIGNAL_WINDOW_MS is that same request relayed, and a
// supervised playground process leaves SIGINT to its parent; only a later, or another, signal is a
// second request (exit at once).

/** How long after the first signal a repeat of it is taken as the same request, relayed. */
export const RELAYED_SIGNAL_WINDOW_MS = 1_000;

type ShutdownDecision = 'drain' | 'ignore' | 'exit-now';

/** Decides what each shutdown request does: the first drains, a relayed repeat is ignored, a true second exits at once. */
export function shutdownRequests(now: () => number = Date.now): (reason: string) => ShutdownDecision {
  let first: { reason: string; at: number } | null = null;
  return (reason) => {
    if (!first) {
      first = { reason, at: now() };
      return 'drain';
    }
    if (reason === first.reason && now() - first.at < RELAYED_SIGNAL_WINDOW_MS) return 'ignore';
    return 'exit-now';
  };
}

/** Whether this process was started by a parent that supervises it (the playground process): it then leaves SIGINT to the parent. */
function supervised(): boolean {
  return typeof process.send === 'function';
}

/**
 * What each signal does here: a playground process started by its parent leaves SIGINT to the
 * parent (which sends it SIGTERM) and must not die of it either.
 */
export function shutdownSignals(isSupervised: boolean): Record<'SIGTERM' | 'SIGINT', 'stop' | 'leave-to-parent'> {
  return { SIGTERM: 'stop', SIGINT: isSupervised ? 'leave-to-parent' : 'stop' };
}
shutdownSignals.supervised = supervised;
