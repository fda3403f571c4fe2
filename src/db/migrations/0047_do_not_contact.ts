import type { Kysely } from 'kysely';

/**
 * do_not_contact: the deployment-wide list of full international numbers no
 * account sends to (src/messaging/optouts.ts). The number is the key: the
 * send path looks numbers up by it, and `dnc list` pages in its order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('do_not_contact')
    .addColumn('number', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('do_not_contact').execute();
}
