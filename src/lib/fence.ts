/**
 * What a process may still hand over under a lease it holds in the database
 * (a message claim, a job, a bind slot). A lease written at `t` lasts until
 * `t + leaseMs`, when another process may take the work; its holder stops at
 * two thirds of that, `t + 2/3 leaseMs`, unless a renewal written later has
 * succeeded since. A process cut off from the database (its renewals hang or
 * fail) therefore stops a third of a lease before anyone else may start, and a
 * renewal whose answer comes back after a network heals extends nothing that
 * had already run out. The third is the margin for the clocks of the machines
 * (kept in step by NTP) and for a write already on its way to the carrier.
 *
 * `t` is taken before the write is sent, never when its answer arrives.
 */
export class Fence {
  private until: number;

  constructor(
    private readonly leaseMs: number,
    writtenAt: number,
  ) {
    this.until = writtenAt + this.margin();
  }

  /** A renewal (or the claim itself) sent at `writtenAt` took effect. */
  renewed(writtenAt: number): void {
    this.until = Math.max(this.until, writtenAt + this.margin());
  }

  /** Whether the holder may still hand over. */
  get valid(): boolean {
    return Date.now() < this.until;
  }

  /** How long it may still hand over, in ms (0 when it may not). */
  get remainingMs(): number {
    return Math.max(0, this.until - Date.now());
  }

  private margin(): number {
    return Math.floor((this.leaseMs * 2) / 3);
  }
}
