import type { ThroughputStore } from '../adapter.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The window's buckets: a connector's count is kept per BUCKET_MS. */
export const BUCKET_MS = 50;

/**
 * Buckets before the current one that a reservation counts: with it, they cover any second that ends in it, and one
 * bucket more, so that messages the carrier receives up to BUCKET_MS closer together than they were sent (network,
 * a busy carrier) still make at most the cap in any second of the carrier's clock. A saturated connector sends the
 * cap per 1.1 s.
 */
export const WINDOW_BUCKETS = 1000 / BUCKET_MS + 1;

/**
 * A connector's throughput cap in messages per second, over any sliding second and shared by every process through
 * one counter per BUCKET_MS bucket (the coordination port): a process reserves a slice of the current bucket with one
 * conditional write that succeeds only while the bucket and the WINDOW_BUCKETS before it stay within the cap, and
 * spends it within that bucket (what a bucket ends with unspent is lost, never carried over). A second that ends in
 * bucket b starts after the start of bucket b − WINDOW_BUCKETS, so every second counts at most the cap. A bucket
 * also holds at most its even share of the cap (cap × BUCKET_MS / 1000, at least 1), so the carrier sees an even flow
 * instead of the whole second's messages in a burst each time a second frees up. A slice is that share: the database
 * sees about 1000 / BUCKET_MS writes per second and connector while messages wait, fewer when the cap is small.
 */
export class SharedThroughput {
  private bucket = -1;
  private local = 0;
  private queue: Promise<void> = Promise.resolve();
  private readonly share: number;

  constructor(
    private readonly store: ThroughputStore,
    private readonly carrier: string,
    private readonly cap: number,
  ) {
    this.share = Math.max(1, Math.ceil((cap * BUCKET_MS) / 1000));
  }

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
      const slice = await this.reserve(bucket);
      // A slice whose answer came after its bucket ended is not spent: sent now, it would count in no window.
      if (slice > 0 && Math.floor(Date.now() / BUCKET_MS) === bucket) {
        this.local = slice - 1;
        return;
      }
      if (slice === 0) await sleep(BUCKET_MS - (Date.now() % BUCKET_MS) + Math.floor(Math.random() * 5));
    }
  }

  /** Reserves up to a bucket's share of this bucket's room; returns how many it got. */
  private async reserve(bucket: number): Promise<number> {
    for (let n = this.share; n >= 1; n = Math.floor(n / 2))
      if (await this.store.reserve(this.carrier, bucket, n, this.cap, this.share)) return n;
    return 0;
  }
}
