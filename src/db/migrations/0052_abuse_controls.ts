import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Abuse controls of a family's sends (src/messaging/send-rules.ts):
 * - send_rules: an account's own destination countries, destination caps and sender rule (no row, or null: its
 *   parent's, else the deployment's); cached by every process, reloaded when the `send_rules` revision moves;
 * - destination_counts: messages of a family to one number in one hour bucket (text_key '') and with one text
 *   (text_key: the text's hash), one upsert per key in the send's transaction;
 * - content_filters: the operator's words, phrases and domains (account_id null: the deployment's).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('send_rules')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey())
    .addColumn('countries', 'text')
    .addColumn('max_per_number_hour', 'integer')
    .addColumn('max_same_text_hour', 'integer')
    .addColumn('senders_registered', 'integer')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('destination_counts')
    .addColumn('family_id', 'bigint', (c) => c.notNull())
    .addColumn('number', 'varchar(20)', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('text_key', 'varchar(32)', (c) => c.notNull())
    .addColumn('sent', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('destination_counts_key', ['family_id', 'number', 'hour', 'text_key'])
    .execute();
  await db.schema.createIndex('destination_counts_hour').on('destination_counts').column('hour').execute();
  await withId(db, db.schema.createTable('content_filters'))
    .addColumn('account_id', 'bigint')
    .addColumn('action', 'varchar(8)', (c) => c.notNull())
    .addColumn('word', 'text')
    .addColumn('domain', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db
    .insertInto('rate_revisions')
    .values([{ name: 'send_rules', revision: 0 }])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('rate_revisions').where('name', '=', 'send_rules').execute();
  await db.schema.dropTable('content_filters').execute();
  await db.schema.dropTable('destination_counts').execute();
  await db.schema.dropTable('send_rules').execute();
}
