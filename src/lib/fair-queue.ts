/** A caller already holds its share of the queue (running and waiting): refused at once, not queued. */
export class CallerBusy extends Error {
  constructor() {
    super('too many tasks of this caller at once');
  }
}

const NO_CALLER = '';

/**
 * At most `limit` tasks at once, like a semaphore, but fair among callers
 * (an address): waiting tasks are taken one caller at a time in turn, the
 * caller whose task just finished last, and a caller holds at most
 * `perCaller` tasks (running and waiting) at once, so one caller can
 * neither fill the queue nor make the others wait behind all of its tasks.
 * Tasks without a caller (the operator's own work) are never refused.
 */
export class FairQueue {
  running = 0;
  /** The most tasks that ever ran at once. */
  peak = 0;
  /** Tasks started so far. */
  started = 0;
  /** Waiting tasks per caller, in the order callers are served. */
  private readonly queues = new Map<string, Array<() => void>>();
  private readonly held = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly perCaller: number,
  ) {}

  get waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  async run<T>(caller: string | undefined, task: () => Promise<T>): Promise<T> {
    const key = caller ?? NO_CALLER;
    const held = this.held.get(key) ?? 0;
    if (caller !== undefined && held >= this.perCaller) throw new CallerBusy();
    this.held.set(key, held + 1);
    try {
      if (this.running >= this.limit) await new Promise<void>((resolve) => this.enqueue(key, resolve));
      else this.running++;
      this.started++;
      this.peak = Math.max(this.peak, this.running);
      try {
        return await task();
      } finally {
        this.next(key);
      }
    } finally {
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    }
  }

  private enqueue(key: string, start: () => void): void {
    const queue = this.queues.get(key);
    if (queue) queue.push(start);
    else this.queues.set(key, [start]);
  }

  /** Hands the finished task's place to the first waiting caller other than `finished` (or to it, when alone). */
  private next(finished: string): void {
    let chosen: string | undefined;
    for (const key of this.queues.keys()) {
      chosen ??= key;
      if (key !== finished) {
        chosen = key;
        break;
      }
    }
    if (chosen === undefined) return void this.running--;
    const queue = this.queues.get(chosen)!;
    const start = queue.shift()!;
    // Served: to the back of the line, behind every caller waiting now.
    this.queues.delete(chosen);
    if (queue.length > 0) this.queues.set(chosen, queue);
    start();
  }
}
