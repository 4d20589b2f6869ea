// node:cluster's primary accepts each connection and sends it to a worker over the IPC channel,
// keeping its own copy until the worker acknowledges it (then it closes that copy). A worker that
// dies (kill -9, out of memory) with a connection in that hand-off never acknowledges, and node never
// closes the primary's copy: the client's socket stays open, unanswered, for as long as the primary
// runs. This tracks each connection handed to a worker until its acknowledgement and, once the
// worker's channel is gone (no acknowledgement can come any more), closes the copies left: the
// client sees the connection closed at once and can retry.
//
// It reads node's cluster messages ({cmd: 'NODE_CLUSTER', act: 'newconn', seq} out, {ack: seq} back),
// which are internal: test/e2e/worker-death-connections.test.ts fails if a node version changes them.
import type { Worker } from 'node:cluster';

interface ClusterMessage {
  cmd?: unknown;
  act?: unknown;
  seq?: unknown;
  ack?: unknown;
}

interface Closable {
  close(): void;
}

/** Tracks `worker`'s connection hand-offs; `onOrphans(n)` after closing n left at its channel's end. */
export function closeOrphanedHandoffs(worker: Worker, onOrphans: (count: number) => void): void {
  const proc = worker.process;
  const inFlight = new Map<number, Closable>();
  const send = proc.send.bind(proc) as (...args: unknown[]) => boolean;
  proc.send = ((message: unknown, handle?: unknown, ...rest: unknown[]) => {
    const m = message as ClusterMessage | null;
    if (m?.cmd === 'NODE_CLUSTER' && m.act === 'newconn' && typeof m.seq === 'number' && isClosable(handle)) {
      inFlight.set(m.seq, handle);
    }
    return send(message, handle, ...rest);
  }) as typeof proc.send;
  proc.on('internalMessage', (m: ClusterMessage | null) => {
    if (m?.cmd === 'NODE_CLUSTER' && typeof m.ack === 'number') inFlight.delete(m.ack);
  });
  // Once the channel is closed every acknowledgement sent has been read: what is left is orphaned.
  const closeOrphans = () => {
    const orphans = [...inFlight.values()];
    inFlight.clear();
    for (const handle of orphans) handle.close();
    if (orphans.length) onOrphans(orphans.length);
  };
  proc.once('disconnect', closeOrphans);
  // A killed process's channel is often gone by its exit without a 'disconnect' event.
  proc.once('exit', () => {
    if (!proc.connected) closeOrphans();
  });
}

function isClosable(handle: unknown): handle is Closable {
  return typeof (handle as Closable | null)?.close === 'function';
}
