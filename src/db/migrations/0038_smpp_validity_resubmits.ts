import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * SMPP protocol completeness:
 * - `messages.valid_until`: the end of a message's validity (SMPP
 *   validity_period); a message not handed over by then closes as expired.
 *   Written with the message, read by the dispatch claim: no extra write.
 * - `smpp_resubmits`: submit_sm whose response could not be written because
 *   the customer's bind had dropped, so a resubmission of the same PDU gets
 *   the first one's message_id instead of a second message.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('valid_until', 'bigint').execute();
  await withId(db, db.schema.createTable('smpp_resubmits'))
    .addColumn('smpp_user_id', 'bigint', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('smpp_resubmits_user')
    .on('smpp_resubmits')
    .columns(['smpp_user_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('smpp_resubmits').execute();
  await db.schema.alterTable('messages').dropColumn('valid_until').execute();
}
