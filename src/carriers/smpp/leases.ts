import type { BindLeaseStore } from '../adapter.js';

/**
 * Bind slots 0..binds-1 of a connector, leased through the coordination
 * port so the binds of all processes together never exceed the connector's
 * `binds`: a slot is taken only when it is free or its lease expired, and
 * kept by renewing it. A process that loses a lease (it stalled past the
 * lease's length) closes that bind at its next tick.
 */
export class BindLeases {
  constructor(
    private readonly store: BindLeaseStore,
    private readonly carrier: string,
    private readonly holder: string,
  ) {}

  /** Renews the slots this process holds; returns the ones still held. */
  renew(slots: number[]): Promise<number[]> {
    return this.store.renew(this.carrier, this.holder, slots);
  }

  /** Takes one free slot below `binds`, or returns null. */
  async acquire(binds: number, held: number[]): Promise<number | null> {
    for (let slot = 0; slot < binds; slot++) {
      if (held.includes(slot)) continue;
      if (await this.store.take(this.carrier, this.holder, slot)) return slot;
    }
    return null;
  }

  release(slots?: number[]): Promise<void> {
    return this.store.release(this.carrier, this.holder, slots);
  }
}
