import type { ThroughputStore } from '../adapter.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The window's buckets: a connector's count is kept per BUCKET_MS. */
export const BUCKET_MS = 50;

/** Buckets before the current one that a reservation counts: with it, they cover any second that ends in it. */
export const WINDOW_BUCKETS = 1000 / BUCKET_MS;

/**
 * A connector's throughput cap in messages per second, over any sliding second and shared by every process through
 * one counter per BUCKET_MS bucket (the coordination port): a process reserves a slice of the current bucket with one
 * conditional write that succeeds only while the bucket and the WINDOW_BUCKETS before it stay within the cap, and
 * spends it within that bucket (what a bucket ends with unspent is lost, never carried over). A second that ends in
 * bucket b starts after the start of bucket b − WINDOW_BUCKETS, so every second counts at most the cap; the cost is
 * that a saturated connector sends the cap per 1.05 s. Slices are a twentieth of the cap, so processes share a
 * bucket and the database sees about twenty writes per second and process while the cap is reached.
 */
export class SharedThroughput {
  private bucket = -1;
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

  /** Resolves when one more message part may go out now. */
  take(): Promise<void> {
    if (this.cap <= 0) return Promise.resolve();
    const turn = this.queue.then(() => this.takeOne());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async takeOne(): Promise<void> {
    for (;;) {
      const bucket = Math.floor(Date.now() / BUCKET_MS);
      if (bucket !== this.bucket) {
        this.bucket = bucket;
        this.local = 0;
      }
      if (this.local > 0) {
        this.local--;
        return;
      }
      const slice = await this.reserve(bucket, Math.max(1, Math.ceil(this.cap / WINDOW_BUCKETS)));
      // A slice whose answer came after its bucket ended is not spent: sent now, it would count in no window.
      if (slice > 0 && Math.floor(Date.now() / BUCKET_MS) === bucket) {
        this.local = slice - 1;
        return;
      }
      if (slice === 0) await sleep(BUCKET_MS - (Date.now() % BUCKET_MS) + Math.floor(Math.random() * 5));
    }
  }

  /** Reserves up to `want` of this bucket's room; returns how many it got. */
  private async reserve(bucket: number, want: number): Promise<number> {
    for (let n = want; n >= 1; n = Math.floor(n / 2))
      if (await this.store.reserve(this.carrier, bucket, n, this.cap)) return n;
    return 0;
  }
}
