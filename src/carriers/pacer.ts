/** Spreads submissions so a driver never gets more than its messages per second. */
export class Pacer {
  private nextFree = 0;
  constructor(private readonly perSecond: number) {}

  async take(count: number): Promise<void> {
    const now = Date.now();
    const start = Math.max(now, this.nextFree);
    this.nextFree = start + (count * 1000) / this.perSecond;
    if (start > now) await new Promise((r) => setTimeout(r, start - now));
  }
}
