import type { ThroughputStore } from '../adapter.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A connector's throughput cap in messages per second, shared by every
 * process through one counter per second (the coordination port): a process
 * reserves a slice of the current second with one conditional increment
 * (`used + n <= cap`), spends it locally, and waits for the next second
 * when the cap is reached. Slices are a tenth of the cap, so two processes
 * share a second fairly and the database sees ~10 writes per second.
 */
export class SharedThroughput {
  private second = -1;
  private local = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: ThroughputStore,
    private readonly carrier: string,
    private readonly cap: number,
  ) {}

  get capped(): boolean {
    return this.cap > 0;
  }

  /** Resolves when one more message may go out now. */
  take(): Promise<void> {
    if (this.cap <= 0) return Promise.resolve();
    const turn = this.queue.then(() => this.takeOne());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async takeOne(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const second = Math.floor(now / 1000);
      if (second !== this.second) {
        this.second = second;
        this.local = 0;
      }
      if (this.local > 0) {
        this.local--;
        return;
      }
      const slice = await this.reserve(second, Math.max(1, Math.ceil(this.cap / 10)));
      if (slice > 0) {
        this.local = slice - 1;
        return;
      }
      await sleep(1000 - (Date.now() % 1000) + Math.floor(Math.random() * 20));
    }
  }

  /** Reserves up to `want` of this second's budget; returns how many it got. */
  private async reserve(second: number, want: number): Promise<number> {
    for (let n = want; n >= 1; n = Math.floor(n / 2))
      if (await this.store.reserve(this.carrier, second, n, this.cap)) return n;
    return 0;
  }
}
