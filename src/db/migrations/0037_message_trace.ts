import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * What the message trace shows that was not kept:
 * - `campaigns.accepted_by`: who accepted the request (`key:<api key id>`,
 *   `smpp:<system id>`, `panel`), written with the campaign row;
 * - `message_attempts`: each hand-off attempt that did not take a message
 *   (a refusal, a throttle, a failover, a transient error) with the
 *   carrier's answer; a first-time success writes none;
 * - the raw receipt (`stat`, `err`) on the message, and on a receipt that
 *   waits for its carrier id.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('campaigns').addColumn('accepted_by', 'text').execute();
  await db.schema.alterTable('messages').addColumn('receipt_stat', 'text').execute();
  await db.schema.alterTable('messages').addColumn('receipt_err', 'text').execute();
  await db.schema.alterTable('carrier_receipts').addColumn('stat', 'text').execute();
  await db.schema.alterTable('carrier_receipts').addColumn('err', 'text').execute();
  await withId(db, db.schema.createTable('message_attempts'))
    .addColumn('message_id', 'bigint', (c) => c.notNull())
    .addColumn('carrier', 'text')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('code', 'text')
    .addColumn('error', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('message_attempts_message').on('message_attempts').column('message_id').execute();
  await db.schema.createIndex('message_attempts_at').on('message_attempts').column('at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('message_attempts').execute();
  await db.schema.alterTable('carrier_receipts').dropColumn('err').execute();
  await db.schema.alterTable('carrier_receipts').dropColumn('stat').execute();
  await db.schema.alterTable('messages').dropColumn('receipt_err').execute();
  await db.schema.alterTable('messages').dropColumn('receipt_stat').execute();
  await db.schema.alterTable('campaigns').dropColumn('accepted_by').execute();
}
