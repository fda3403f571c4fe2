/**
 * At most `limit` deliveries in flight per destination host in this process,
 * so one slow or dead receiver cannot take every slot of the webhook lane.
 * Other jobs for a busy host wait briefly for a slot, then step back.
 *
 * A host whose last `limit` attempts all failed is "failing": its jobs no
 * longer wait for a slot but step back in the queue at once, further each
 * time (up to 64 steps of `stepMs`: about a minute and a half with the
 * default retry base), so a backlog for a dead receiver
 * costs the lane almost nothing and the other destinations' events go first.
 * An HTTP 200 from the host clears it.
 */
export class HostSlots {
  private readonly busy = new Map<string, number>();
  private readonly waiters = new Map<string, Array<() => void>>();
  private readonly failures = new Map<string, number>();
  private readonly refusals = new Map<string, number>();

  /** `stepMs`: the middle of a failing host's first step back (deliveries pass 1 s, less for a fast retry base). */
  constructor(
    private readonly limit: number,
    private readonly stepMs = 1000,
  ) {}

  /** Takes a slot for `host`, waiting at most `waitMs` when allowed; false when none was free. */
  async acquire(host: string, waitMs: number): Promise<boolean> {
    if ((this.busy.get(host) ?? 0) < this.limit) {
      this.busy.set(host, (this.busy.get(host) ?? 0) + 1);
      return true;
    }
    const queue = this.waiters.get(host) ?? [];
    if (this.failing(host)) {
      this.refusals.set(host, (this.refusals.get(host) ?? 0) + 1);
      return false;
    }
    return new Promise<boolean>((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const i = queue.indexOf(grant);
        if (i >= 0) queue.splice(i, 1);
        resolve(false);
      }, waitMs);
      queue.push(grant);
      this.waiters.set(host, queue);
    });
  }

  private failing(host: string): boolean {
    return (this.failures.get(host) ?? 0) >= this.limit;
  }

  /**
   * How long a job that found no slot steps back. A busy but healthy host:
   * 25–75 ms, enough to go behind every job already due (fairness comes from
   * the queue's order, not from the length of the wait); a longer step left
   * a backlog for one receiver waiting idle after the others were done. A
   * failing host: 0.5–1.5 × `stepMs`, doubling per `limit` refusals up to ×64.
   */
  deferMs(host: string): number {
    if (!this.failing(host)) return Math.round(25 + Math.random() * 50);
    const factor = Math.min(2 ** Math.floor((this.refusals.get(host) ?? 0) / this.limit), 64);
    return Math.round((0.5 + Math.random()) * this.stepMs * factor);
  }

  /** Records an attempt's outcome: an HTTP 200 clears the host's failures. */
  outcome(host: string, delivered: boolean): void {
    if (delivered) {
      this.failures.delete(host);
      this.refusals.delete(host);
    } else this.failures.set(host, (this.failures.get(host) ?? 0) + 1);
  }

  /** Gives the slot to the next waiter, or frees it. */
  release(host: string): void {
    const next = this.waiters.get(host)?.shift();
    if (next) return next();
    const n = (this.busy.get(host) ?? 1) - 1;
    if (n <= 0) {
      this.busy.delete(host);
      this.waiters.delete(host);
    } else this.busy.set(host, n);
  }
}
