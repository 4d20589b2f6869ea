// Fair admission of expensive work among tenants: at most `total` jobs run at once, at most `share`
// of them one tenant's. A tenant past its share waits in a queue of its own (at most `queue` long,
// at most `maxWaitMs`); a freed slot goes to the next waiting tenant in turn (round robin), so one
// tenant's burst waits behind its own jobs, never in front of another tenant's.
//
// A count of slots says nothing of what a job costs the event loop: jobs whose work is on the loop
// (parsing, mapping, pricing) fill it with `share` of them, and every other tenant's request, a
// cache hit too, waits behind their work at each of its own steps; jobs waiting on a slow feed
// leave it idle. So the share adapts to the loop's load (with `pressure`): while the loop is busy
// (utilisation at least BUSY over a tick) and another tenant is active (any request in the last
// ACTIVE_MS, seen()), the running tenant that finished the most jobs in the tick (its jobs are the
// ones the loop spent itself on: a job waiting on a slow feed finishes rarely; none finished: the
// one running the most) has its share halved, down to one; once the loop has room again (under
// EASED) each cut share grows back by one a tick; a lone tenant keeps the whole share at once.
import { performance } from 'node:perf_hooks';

interface FairShareLimits {
  total: number;
  share: number;
  queue: number;
  maxWaitMs: number;
}

/** A running job's slot: call release() once it ends (a second call does nothing). */
export interface Slot {
  release(): void;
  /** Milliseconds spent waiting for the slot (0: admitted at once). */
  queuedMs: number;
}

/** What the share adapts to (lib default: nothing, the share stays fixed). */
interface Pressure {
  /** The event loop's utilisation (0-1) since the previous call. */
  loopLoad(): number;
  /** Milliseconds, monotonic. */
  now(): number;
}

/** Ticks of the adaptive share: how often the loop's load is read. */
const TICK_MS = 100;
/** A tenant with a request in this long counts as active. */
const ACTIVE_MS = 1000;
/** Loop utilisation from which the busiest tenant's share is halved. */
const BUSY = 0.85;
/** Loop utilisation under which cut shares grow back. */
const EASED = 0.6;

/** The event loop's utilisation since the previous call (perf_hooks), for Pressure.loopLoad. */
export function eventLoopLoad(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}

export type Admission = Slot | { refused: 'queue_full' | 'wait_timeout'; queuedMs: number };

interface Waiter {
  since: number;
  grant(slot: Slot): void;
  timer: NodeJS.Timeout;
}

export class FairShare {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  /** Tenants with waiters, in turn order: the first is served next, then moved to the end. */
  private readonly waiting = new Map<string, Waiter[]>();

  /** Tenants active lately (any request), by when last seen. */
  private readonly seenAt = new Map<string, number>();
  /** Shares cut under load (tenants absent here have the whole share). */
  private readonly cutTo = new Map<string, number>();
  /** Jobs finished since the last tick, per tenant. */
  private doneBy = new Map<string, number>();
  private lastTick = -Infinity;

  constructor(
    readonly limits: FairShareLimits,
    private readonly pressure: Pressure | null = null,
  ) {}

  /** A request of this tenant, a cache hit too: it counts as active for ACTIVE_MS. */
  seen(tenant: string): void {
    if (!this.pressure) return;
    this.seenAt.set(tenant, this.pressure.now());
    this.adapt();
  }

  /** How many jobs this tenant may run at once now. */
  shareOf(tenant: string): number {
    return this.cutTo.get(tenant) ?? this.limits.share;
  }

  /** A slot now (sync) or once one is free for this tenant; refused when its queue is full or the wait too long. */
  admit(tenant: string): Admission | Promise<Admission> {
    this.seen(tenant);
    if (!this.waiting.has(tenant) && this.fits(tenant)) return this.take(tenant, 0);
    const queue = this.waiting.get(tenant) ?? [];
    if (queue.length >= this.limits.queue) return { refused: 'queue_full', queuedMs: 0 };
    const since = performance.now();
    return new Promise<Admission>((resolve) => {
      const waiter: Waiter = {
        since,
        grant: resolve,
        timer: setTimeout(() => {
          const q = this.waiting.get(tenant);
          const i = q?.indexOf(waiter) ?? -1;
          if (i >= 0) q!.splice(i, 1);
          if (q && !q.length) this.waiting.delete(tenant);
          resolve({ refused: 'wait_timeout', queuedMs: performance.now() - since });
        }, this.limits.maxWaitMs),
      };
      waiter.timer.unref?.();
      queue.push(waiter);
      this.waiting.set(tenant, queue);
    });
  }

  /** Jobs running now, and waiting, per tenant (for tests and metrics). */
  stats(): {
    running: number;
    runningBy: Record<string, number>;
    waitingBy: Record<string, number>;
    /** Shares cut under load. */
    cutTo: Record<string, number>;
  } {
    return {
      running: this.running,
      runningBy: Object.fromEntries(this.runningBy),
      waitingBy: Object.fromEntries([...this.waiting].map(([t, q]) => [t, q.length])),
      cutTo: Object.fromEntries(this.cutTo),
    };
  }

  private fits(tenant: string): boolean {
    return this.running < this.limits.total && (this.runningBy.get(tenant) ?? 0) < this.shareOf(tenant);
  }

  /** At most once a tick: reads the loop's load and cuts or restores shares (see the top of the file). */
  private adapt(): void {
    const now = this.pressure!.now();
    if (now - this.lastTick < TICK_MS) return;
    this.lastTick = now;
    const load = this.pressure!.loopLoad();
    const done = this.doneBy;
    this.doneBy = new Map();
    for (const [t, at] of this.seenAt) if (now - at > ACTIVE_MS) this.seenAt.delete(t);
    if (this.seenAt.size < 2) {
      if (!this.cutTo.size) return;
      this.cutTo.clear();
    } else if (load >= BUSY) {
      const running = [...this.runningBy.keys()];
      const weight = running.some((t) => done.has(t)) ? (t: string) => done.get(t) ?? 0 : (t: string) => this.runningBy.get(t)!;
      const most = Math.max(0, ...running.map(weight));
      for (const t of running) if (weight(t) === most) this.cutTo.set(t, Math.max(1, Math.floor(this.shareOf(t) / 2)));
      return;
    } else if (load < EASED) {
      for (const [t, n] of this.cutTo) {
        if (n + 1 >= this.limits.share) this.cutTo.delete(t);
        else this.cutTo.set(t, n + 1);
      }
    } else return;
    this.dispatch();
  }

  private take(tenant: string, queuedMs: number): Slot {
    this.running++;
    this.runningBy.set(tenant, (this.runningBy.get(tenant) ?? 0) + 1);
    let released = false;
    return {
      queuedMs,
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        const n = this.runningBy.get(tenant)! - 1;
        if (n) this.runningBy.set(tenant, n);
        else this.runningBy.delete(tenant);
        if (this.pressure) {
          this.doneBy.set(tenant, (this.doneBy.get(tenant) ?? 0) + 1);
          this.adapt();
        }
        this.dispatch();
      },
    };
  }

  /** Hands free slots to waiting tenants in turn. */
  private dispatch(): void {
    let progress = true;
    while (progress && this.running < this.limits.total && this.waiting.size) {
      progress = false;
      for (const [tenant, queue] of this.waiting) {
        if (!this.fits(tenant)) continue;
        const waiter = queue.shift()!;
        this.waiting.delete(tenant);
        // Back of the line for its next waiter.
        if (queue.length) this.waiting.set(tenant, queue);
        clearTimeout(waiter.timer);
        waiter.grant(this.take(tenant, performance.now() - waiter.since));
        progress = true;
        break;
      }
    }
  }
}
