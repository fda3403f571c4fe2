import type { Db, Executor } from '../db/engine.js';
import type { BindLeaseStore, Coordination, ThroughputStore } from './adapter.js';

/** A bind lease lasts this long; holders renew it every few seconds (CarrierManager's tick). */
export const LEASE_MS = 15_000;

/** Bind leases and throughput counters in the database, where every process of the deployment sees them. */
export function databaseCoordination(db: Db): Coordination {
  return { leases: bindLeases(db), throughput: throughputCounters(db) };
}

/**
 * One row per slot (carrier_binds): a slot is taken by an upsert that
 * succeeds only when the slot is free or its lease expired, and kept by
 * renewing it.
 */
function bindLeases(db: Db): BindLeaseStore {
  return {
    leaseMs: LEASE_MS,
    async renew(carrier, holder, slots) {
      if (slots.length === 0) return [];
      const now = Date.now();
      const rows = await db.kysely
        .updateTable('carrier_binds')
        .set({ expires_at: now + LEASE_MS })
        .where('carrier', '=', carrier)
        .where('holder', '=', holder)
        .where('slot', 'in', slots)
        .where('expires_at', '>=', now)
        .returning('slot')
        .execute();
      return rows.map((r) => r.slot);
    },

    async take(carrier, holder, slot) {
      const now = Date.now();
      const row = await db.kysely
        .insertInto('carrier_binds')
        .values({ carrier, slot, holder, expires_at: now + LEASE_MS })
        .onConflict((oc) =>
          oc
            .columns(['carrier', 'slot'])
            .doUpdateSet({ holder, expires_at: now + LEASE_MS })
            .where('carrier_binds.expires_at', '<', now),
        )
        .returning('slot')
        .executeTakeFirst();
      return row !== undefined;
    },

    async release(carrier, holder, slots) {
      if (slots?.length === 0) return;
      let q = db.kysely.deleteFrom('carrier_binds').where('carrier', '=', carrier).where('holder', '=', holder);
      if (slots) q = q.where('slot', 'in', slots);
      await q.execute();
    },
  };
}

/** One counter row per connector and second (carrier_rate), raised by a conditional upsert. */
function throughputCounters(db: Db): ThroughputStore {
  return {
    async reserve(carrier, second, n, cap) {
      const row = await db.kysely
        .insertInto('carrier_rate')
        .values({ carrier, second, used: n })
        .onConflict((oc) =>
          oc
            .columns(['carrier', 'second'])
            .doUpdateSet((eb) => ({ used: eb('carrier_rate.used', '+', n) }))
            .where('carrier_rate.used', '<=', cap - n),
        )
        .returning('used')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

/** Forgets throughput counters older than a minute. */
export async function pruneThroughput(db: Db): Promise<void> {
  await db.kysely
    .deleteFrom('carrier_rate')
    .where('second', '<', Math.floor(Date.now() / 1000) - 60)
    .execute();
}

// carrier_rate also counts the parts an SMPP customer submits (src/features/smpp-users/throughput.ts), in rows keyed
// by its own name and 100 ms slots: written through the three functions below.

/** Adds `used` to the counter of `key` in `slot` (the caller checked its cap, under its own lock). */
export async function addToRate(trx: Executor, key: string, slot: number, used: number): Promise<void> {
  await trx
    .insertInto('carrier_rate')
    .values({ carrier: key, second: slot, used })
    .onConflict((oc) =>
      oc.columns(['carrier', 'second']).doUpdateSet((eb) => ({ used: eb('carrier_rate.used', '+', used) })),
    )
    .execute();
}

/** Forgets every counter of `key`. */
export async function forgetRate(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('carrier_rate').where('carrier', '=', key).execute();
}

/** Forgets the counters of keys starting with `prefix` in slots up to `lastSlot`; returns how many rows went. */
export async function pruneRateSlots(db: Executor, prefix: string, lastSlot: number): Promise<number> {
  const r = await db
    .deleteFrom('carrier_rate')
    .where('carrier', 'like', `${prefix}%`)
    .where('second', '<=', lastSlot)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
