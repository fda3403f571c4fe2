import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Two-way messaging:
 * - mo_routes: which account a customer's message goes to when it answers
 *   none of our messages, by the number it was sent to and its first word.
 *   '' stands for "any" in either column, so one unique index keeps one route
 *   per (number, keyword) across the deployment: two accounts never tie.
 * - replies gains the number the reply was sent to and the route that gave
 *   it to the account (a routed reply answers no message: message_id 0), and
 *   an index for an account's replies, newest first (the panel's list).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('mo_routes'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('keyword', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mo_routes_key').on('mo_routes').columns(['number', 'keyword']).unique().execute();
  await db.schema.alterTable('replies').addColumn('destination', 'text').execute();
  await db.schema.alterTable('replies').addColumn('route_id', 'bigint').execute();
  await db.schema.createIndex('replies_account').on('replies').columns(['account_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('replies_account').execute();
  await db.schema.alterTable('replies').dropColumn('route_id').execute();
  await db.schema.alterTable('replies').dropColumn('destination').execute();
  await db.schema.dropTable('mo_routes').execute();
}
