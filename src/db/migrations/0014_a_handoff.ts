import type { Kysely } from 'kysely';

/**
 * messages.claim_token: which dispatcher holds the message's claim while it is
 * handed to the carrier, so only that dispatcher renews it. A message still at
 * stage 0 with a token whose claim ran out was in flight when its dispatcher
 * died (src/messaging/dispatch.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('claim_token', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('claim_token').execute();
}
