import type { Kysely } from 'kysely';

/**
 * A family's opt-out list in its order (oldest first): a page of
 * GET /optouts, by page or after a number, walks this index instead of
 * sorting the whole list.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('optouts_in_order').on('optouts').columns(['account_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('optouts_in_order').execute();
}
