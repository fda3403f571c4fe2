import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * - optouts: the numbers a top-level account (with its sub-accounts) must not
 *   send to; one row per number, so parallel adds of the same number keep one.
 * - optout_settings: a top-level account's choices about its list (OTP codes
 *   exempt, the text sent back to a keyword opt-out).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('optouts'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('optouts_number').on('optouts').columns(['account_id', 'number']).unique().execute();
  await db.schema
    .createTable('optout_settings')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('exempt_otp', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('confirmation', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('optout_settings').execute();
  await db.schema.dropTable('optouts').execute();
}
