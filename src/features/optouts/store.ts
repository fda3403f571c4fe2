import type { Executor } from '../../db/engine.js';

/** A page of the family's list in id order, after the id `after` (the export). */
export function optoutExportPage(db: Executor, owner: number, after: number, limit: number) {
  return db
    .selectFrom('optouts')
    .select(['id', 'number', 'source', 'created_at'])
    .where('account_id', '=', owner)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}
