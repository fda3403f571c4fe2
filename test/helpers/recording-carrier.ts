import type { CarrierDriver, OutboundMessage, SubmitOutcome } from '../../src/messaging/ports.js';
import type { Channel } from '../../src/messaging/types.js';

/**
 * A carrier driver for tests that counts every hand-off of every message, on
 * the carrier's side of the call. `submitDelayMs` makes submit() wait like a
 * carrier that throttles inside the call; `messagesPerSecond` is the pace the
 * dispatcher must keep.
 */
export class RecordingCarrier implements CarrierDriver {
  readonly name = 'recording';
  readonly handOffs = new Map<number, number>();
  calls = 0;

  constructor(
    readonly channels: readonly Channel[] = ['voice'],
    readonly messagesPerSecond = 100_000,
    readonly maxBatch = 50,
    private readonly submitDelayMs = 0,
  ) {}

  async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    this.calls++;
    for (const m of batch) this.handOffs.set(m.id, (this.handOffs.get(m.id) ?? 0) + 1);
    if (this.submitDelayMs > 0) await new Promise((r) => setTimeout(r, this.submitDelayMs));
    return batch.map((m) => ({ ok: true, carrierId: `rec-${m.id}` }));
  }

  /** Messages handed over more than once. */
  repeated(): number[] {
    return [...this.handOffs].filter(([, n]) => n > 1).map(([id]) => id);
  }
}
