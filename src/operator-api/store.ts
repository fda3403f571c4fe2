import type { Executor } from '../db/engine.js';

/** The stored emails of these accounts, by id. */
export async function emailsById(db: Executor, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('accounts').select(['id', 'email']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [Number(r.id), r.email]));
}
