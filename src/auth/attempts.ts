import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';

/*
 * A window opens at a key's first attempt and lasts `windowMs`; within it at
 * most `limit` attempts are reserved. A reservation is one conditional upsert,
 * so parallel attempts (in any process) can never reserve more than the limit
 * between them.
 */

/** A reserved attempt: the window it counts in (finishing one of an older window changes nothing). */
export interface Reservation {
  key: string;
  expiresAt: number;
}

export interface Limit {
  key: string;
  limit: number;
  windowMs: number;
}

const expired = (now: number) => sql<boolean>`attempt_counters.expires_at <= ${now}`;

/** Reserves one attempt of `key`, or null when its window already holds `limit` attempts. */
export async function reserveAttempt(
  db: Executor,
  { key, limit, windowMs }: Limit,
  now = Date.now(),
): Promise<Reservation | null> {
  const row = await db
    .insertInto('attempt_counters')
    .values({ key, expires_at: now + windowMs, attempts: 1, in_flight: 1 })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet({
          attempts: sql`case when ${expired(now)} then 1 else attempt_counters.attempts + 1 end`,
          in_flight: sql`case when ${expired(now)} then 1 else attempt_counters.in_flight + 1 end`,
          expires_at: sql`case when ${expired(now)} then ${now + windowMs} else attempt_counters.expires_at end`,
        })
        .where((eb) => eb.or([expired(now), eb('attempt_counters.attempts', '<', limit)])),
    )
    .returning('expires_at')
    .executeTakeFirst();
  return row ? { key, expiresAt: Number(row.expires_at) } : null;
}

/** When the window of a key that refused an attempt ends (now when it already did). */
export async function windowEnd(db: Executor, key: string, now = Date.now()): Promise<number> {
  const row = await db.selectFrom('attempt_counters').select('expires_at').where('key', '=', key).executeTakeFirst();
  return Math.max(now, Number(row?.expires_at ?? now));
}

/**
 * Ends a reserved attempt. 'failed': it stays counted. 'released': it no
 * longer counts (a right password is no guess). 'cleared': the key's
 * finished attempts no longer count either, but those still running do, so
 * a success never frees room for guesses made in parallel with it.
 */
export async function finishAttempt(
  db: Executor,
  r: Reservation,
  outcome: 'failed' | 'released' | 'cleared',
): Promise<void> {
  const inFlight = sql<number>`case when in_flight > 0 then in_flight - 1 else 0 end`;
  const attempts =
    outcome === 'failed'
      ? sql<number>`attempts`
      : outcome === 'released'
        ? sql<number>`case when attempts > 0 then attempts - 1 else 0 end`
        : inFlight;
  await db
    .updateTable('attempt_counters')
    .set({ attempts, in_flight: inFlight })
    .where('key', '=', r.key)
    .where('expires_at', '=', r.expiresAt)
    .execute();
}

/** Counters whose window ended are no longer needed: removed on a schedule (housekeeping). */
export async function pruneAttemptCounters(db: Executor, now = Date.now()): Promise<number> {
  const result = await db.deleteFrom('attempt_counters').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
