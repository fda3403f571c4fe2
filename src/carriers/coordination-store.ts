import type { Db, Executor } from '../db/engine.js';
import { sql } from 'kysely';
import type { BindLeaseStore, Coordination, ThroughputStore } from './adapter.js';
import { BUCKET_MS, WINDOW_BUCKETS } from './smpp/throughput.js';

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

/**
 * One counter row per connector and bucket (carrier_window), raised by a conditional upsert that holds the bucket to
 * its share and counts it with the WINDOW_BUCKETS before it (the first write of a bucket checks the same through its
 * SELECT).
 */
function throughputCounters(db: Db): ThroughputStore {
  return {
    async reserve(carrier, bucket, n, cap, perBucket) {
      const from = bucket - WINDOW_BUCKETS;
      const before = (alias: string) =>
        sql`(SELECT coalesce(sum(${sql.ref(`${alias}.used`)}), 0) FROM carrier_window AS ${sql.id(alias)} WHERE ${sql.ref(`${alias}.carrier`)} = ${carrier} AND ${sql.ref(`${alias}.bucket`)} >= ${from} AND ${sql.ref(`${alias}.bucket`)} < ${bucket})`;
      const { rows } = await sql<{ used: number }>`
        INSERT INTO carrier_window (carrier, bucket, used)
        SELECT ${carrier}, CAST(${bucket} AS bigint), CAST(${n} AS integer)
        WHERE ${n} <= ${perBucket} AND ${before('b')} + ${n} <= ${cap}
        ON CONFLICT (carrier, bucket) DO UPDATE SET used = carrier_window.used + ${n}
        WHERE carrier_window.used + ${n} <= ${perBucket} AND carrier_window.used + ${n} + ${before('u')} <= ${cap}
        RETURNING used`.execute(db.kysely);
      return rows.length > 0;
    },
  };
}

/** Forgets throughput counters older than a minute. */
export async function pruneThroughput(db: Db): Promise<void> {
  const now = Date.now();
  await db.kysely
    .deleteFrom('carrier_window')
    .where('bucket', '<', Math.floor(now / BUCKET_MS) - 60_000 / BUCKET_MS)
    .execute();
  // What connectors counted per second before the sliding window (migration 0050).
  await db.kysely
    .deleteFrom('carrier_rate')
    .where('carrier', 'not like', 'smpp-user:%')
    .where('second', '<', Math.floor(now / 1000) - 60)
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
