import { sql, type Kysely } from 'kysely';

/**
 * Message retention (MESSAGES_KEEP_DAYS, src/messaging/retention.ts): the final messages by creation time, so a
 * prune batch and the export read the oldest ones in index order and stop at their LIMIT. Partial (stage 2 only):
 * messages still queued, scheduled or waiting for a receipt are never in it, and the index stays as small as what
 * a prune may remove. Payment requests by message and short links by campaign: the rows a prune removes with their
 * message or campaign, found without reading the whole table (both are written once per request or campaign).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX messages_final_created ON messages (created_at, id) WHERE stage = 2`.execute(db);
  await db.schema.createIndex('payment_requests_message').on('payment_requests').column('message_id').execute();
  await db.schema.createIndex('short_links_campaign').on('short_links').column('campaign_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['short_links_campaign', 'payment_requests_message', 'messages_final_created'])
    await db.schema.dropIndex(index).execute();
}
