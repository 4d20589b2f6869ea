// Fair admission of expensive work among tenants: at most `total` jobs run at once, at most `share`
// of them one tenant's. A tenant past its share waits in a queue of its own (at most `queue` long,
// at most `maxWaitMs`); a freed slot goes to the next waiting tenant in turn (round robin), so one
// tenant's burst waits behind its own jobs, never in front of another tenant's.

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

  constructor(readonly limits: FairShareLimits) {}

  /** A slot now (sync) or once one is free for this tenant; refused when its queue is full or the wait too long. */
  admit(tenant: string): Admission | Promise<Admission> {
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
  stats(): { running: number; runningBy: Record<string, number>; waitingBy: Record<string, number> } {
    return {
      running: this.running,
      runningBy: Object.fromEntries(this.runningBy),
      waitingBy: Object.fromEntries([...this.waiting].map(([t, q]) => [t, q.length])),
    };
  }

  private fits(tenant: string): boolean {
    return this.running < this.limits.total && (this.runningBy.get(tenant) ?? 0) < this.limits.share;
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
