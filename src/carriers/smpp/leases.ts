import type { BindLeaseStore } from '../adapter.js';
import { Fence } from '../../lib/fence.js';

/**
 * Bind slots 0..binds-1 of a connector, leased through the coordination
 * port so the binds of all processes together never exceed the connector's
 * `binds`: a slot is taken only when it is free or its lease expired, and
 * kept by renewing it. A process that loses a lease closes that bind at its
 * next tick; one that cannot renew it (cut off from the database) closes it
 * on its own a third of a lease before the lease ends, before another
 * process may bind in its place.
 */
export class BindLeases {
  /** The fence of each slot held (src/lib/fence.ts): its bind closes once that fence closes. */
  private readonly fences = new Map<number, Fence>();

  constructor(
    private readonly store: BindLeaseStore,
    private readonly carrier: string,
    private readonly holder: string,
  ) {}

  /** Renews the slots this process holds; returns the ones still held. */
  async renew(slots: number[]): Promise<number[]> {
    const sentAt = Date.now();
    const held = await this.store.renew(this.carrier, this.holder, slots);
    for (const slot of held) this.fences.get(slot)?.renewed(sentAt);
    return held;
  }

  /** Takes one free slot below `binds`, or returns null. */
  async acquire(binds: number, held: number[]): Promise<number | null> {
    for (let slot = 0; slot < binds; slot++) {
      if (held.includes(slot)) continue;
      const sentAt = Date.now();
      if (await this.store.take(this.carrier, this.holder, slot)) {
        this.fences.set(slot, new Fence(this.store.leaseMs, sentAt));
        return slot;
      }
    }
    return null;
  }

  /** Whether this process may keep `slot`'s bind open: its lease was renewed recently enough. */
  holds(slot: number): boolean {
    return this.fences.get(slot)?.valid ?? false;
  }

  /** Whether a slot's lease was last renewed more than a third of a lease ago (the upkeep is late). */
  due(slot: number): boolean {
    return (this.fences.get(slot)?.remainingMs ?? 0) < this.store.leaseMs / 3;
  }

  release(slots?: number[]): Promise<void> {
    for (const slot of slots ?? [...this.fences.keys()]) this.fences.delete(slot);
    return this.store.release(this.carrier, this.holder, slots);
  }
}
