import type { Kysely } from 'kysely';

/**
 * Reports page by keyset on (created_at, id) within an account. The index now
 * holds that whole order, so a page is read in index order and stops at its
 * LIMIT. With (account_id, created_at) only, PostgreSQL right after a bulk load
 * (no statistics yet, one row estimated) sorted every remaining row of the
 * period for each page. The new index serves every query the old one did
 * (same leading columns), so it replaces it and inserts keep the same cost.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('messages_account_created_id')
    .on('messages')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema.dropIndex('messages_account_created').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('messages_account_created')
    .on('messages')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema.dropIndex('messages_account_created_id').execute();
}
