/** At most `limit` tasks at once; the others wait in order. */
export class Semaphore {
  running = 0;
  /** The most tasks that ever ran at once. */
  peak = 0;
  /** Tasks started so far. */
  started = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.running++;
    this.started++;
    this.peak = Math.max(this.peak, this.running);
    try {
      return await task();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}
