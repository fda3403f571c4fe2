import { sql } from 'kysely';
import type { Db, Executor } from '../../db/engine.js';
import { addToRate, forgetRate, pruneRateSlots } from '../../carriers/index.js';

/** Slots of the sliding second: a part counts in the slot of its acceptance. */
const SLOT_MS = 100;
/** A one-second window touches at most 11 slots of 100 ms: counting them all keeps every window within the cap. */
const SLOTS = 11;

/** The carrier_rate rows of one SMPP user's throughput. */
const KEY_PREFIX = 'smpp-user:';
export const throughputKey = (userId: number) => `${KEY_PREFIX}${userId}`;

/**
 * Reserves `parts` of an SMPP user's throughput (parts per second, shared
 * by every process), or returns false. The counters are rows of
 * carrier_rate keyed `smpp-user:<id>`; the user's row is locked first
 * (an UPDATE), so two processes never both take the last of the budget.
 * The cap bursts: all N parts may come at once, then none until the
 * window slides past them. Refused parts count too: a client that retries
 * in a loop keeps its window full, and is served once it waits the
 * window out.
 */
export async function reserveParts(db: Db, userId: number, cap: number, parts: number, now = Date.now()) {
  return (await reserveEach(db, userId, cap, [parts], now))[0];
}

/**
 * reserveParts for several messages in one transaction (the submit_sm of
 * one turn), as if reserved one after the other: each in order gets its
 * parts while they fit, and every one's parts count, granted or not (so
 * after the first refused, the rest of the turn is refused too).
 */
export async function reserveEach(
  db: Db,
  userId: number,
  cap: number,
  parts: number[],
  now = Date.now(),
): Promise<boolean[]> {
  if (cap <= 0) return parts.map(() => true);
  const key = throughputKey(userId);
  const slot = Math.floor(now / SLOT_MS);
  return db.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable('smpp_users')
      .set({ throughput: sql`throughput` })
      .where('id', '=', userId)
      .execute();
    const row = await trx
      .selectFrom('carrier_rate')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('used'), sql<number>`0`).as('used'))
      .where('carrier', '=', key)
      .where('second', '>', slot - SLOTS)
      .executeTakeFirst();
    const used = Number(row?.used ?? 0);
    let counted = 0;
    const granted = parts.map((p) => {
      counted += p;
      return used + counted <= cap;
    });
    if (counted > 0) await addToRate(trx, key, slot, counted);
    return granted;
  });
}

/** Forgets a removed user's counters (a later user never inherits them, and nothing is left behind). */
export async function forgetThroughput(db: Executor, userId: number): Promise<void> {
  await forgetRate(db, throughputKey(userId));
}

/**
 * Forgets every user's slots older than the sliding second: they count for
 * nothing any more. (The carriers' prune reads `second` as seconds and so
 * never reaches these 100 ms slots.) Returns how many rows went.
 */
export async function pruneThroughputSlots(db: Executor, now = Date.now()): Promise<number> {
  return pruneRateSlots(db, KEY_PREFIX, Math.floor(now / SLOT_MS) - SLOTS);
}
