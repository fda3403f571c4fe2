import type { Db } from '../../db/engine.js';

/** A bind lease lasts this long; holders renew it every few seconds (CarrierManager's tick). */
export const LEASE_MS = 15_000;

/**
 * Bind slots 0..binds-1 of a connector, leased in the database so the
 * binds of all processes together never exceed the connector's `binds`:
 * a slot is taken by an upsert that succeeds only when the slot is free or
 * its lease expired, and kept by renewing it. A process that loses a lease
 * (it stalled past LEASE_MS) closes that bind at its next tick.
 */
export class BindLeases {
  constructor(
    private readonly db: Db,
    private readonly carrier: string,
    private readonly holder: string,
  ) {}

  /** Renews the slots this process holds; returns the ones still held. */
  async renew(slots: number[]): Promise<number[]> {
    if (slots.length === 0) return [];
    const now = Date.now();
    const rows = await this.db.kysely
      .updateTable('carrier_binds')
      .set({ expires_at: now + LEASE_MS })
      .where('carrier', '=', this.carrier)
      .where('holder', '=', this.holder)
      .where('slot', 'in', slots)
      .where('expires_at', '>=', now)
      .returning('slot')
      .execute();
    return rows.map((r) => r.slot);
  }

  /** Takes one free slot below `binds`, or returns null. */
  async acquire(binds: number, held: number[]): Promise<number | null> {
    const now = Date.now();
    for (let slot = 0; slot < binds; slot++) {
      if (held.includes(slot)) continue;
      const row = await this.db.kysely
        .insertInto('carrier_binds')
        .values({ carrier: this.carrier, slot, holder: this.holder, expires_at: now + LEASE_MS })
        .onConflict((oc) =>
          oc
            .columns(['carrier', 'slot'])
            .doUpdateSet({ holder: this.holder, expires_at: now + LEASE_MS })
            .where('carrier_binds.expires_at', '<', now),
        )
        .returning('slot')
        .executeTakeFirst();
      if (row) return slot;
    }
    return null;
  }

  async release(slots?: number[]): Promise<void> {
    let q = this.db.kysely
      .deleteFrom('carrier_binds')
      .where('carrier', '=', this.carrier)
      .where('holder', '=', this.holder);
    if (slots) {
      if (slots.length === 0) return;
      q = q.where('slot', 'in', slots);
    }
    await q.execute();
  }
}
