import type { Executor } from '../../db/engine.js';
import type { DncSource } from './tables.js';

/** Puts numbers on the list; returns how many were not on it (a listed number keeps its first date and source). */
export async function insertNumbers(db: Executor, numbers: string[], source: DncSource, now: number): Promise<number> {
  if (numbers.length === 0) return 0;
  const rows = await db
    .insertInto('do_not_contact')
    .values(numbers.map((number) => ({ number, source, created_at: now })))
    .onConflict((oc) => oc.column('number').doNothing())
    .returning('number')
    .execute();
  return rows.length;
}

/** Takes a number off the list; whether it was on it. */
export async function deleteNumber(db: Executor, number: string): Promise<boolean> {
  const rows = await db.deleteFrom('do_not_contact').where('number', '=', number).returning('number').execute();
  return rows.length > 0;
}

/** Up to `limit` listed numbers in their order (as text), after `after` when given: a walk of the primary key. */
export async function numbersAfter(db: Executor, after: string | undefined, limit: number): Promise<string[]> {
  let query = db.selectFrom('do_not_contact').select('number').orderBy('number').limit(limit);
  if (after !== undefined) query = query.where('number', '>', after);
  return (await query.execute()).map((r) => r.number);
}
