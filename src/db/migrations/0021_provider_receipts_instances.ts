import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Early receipts of every connector wait in smpp_receipts; a provider's `read` status keeps that it was a read.
  await db.schema
    .alterTable('smpp_receipts')
    .addColumn('read', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // A chat-app instance bound to its own Cloud API phone number: settings as JSON, secrets sealed with the server key.
  await db.schema.alterTable('chatapp_instances').addColumn('cloud_settings', 'text').execute();
  await db.schema.alterTable('chatapp_instances').addColumn('cloud_secrets_enc', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('chatapp_instances').dropColumn('cloud_secrets_enc').execute();
  await db.schema.alterTable('chatapp_instances').dropColumn('cloud_settings').execute();
  await db.schema.alterTable('smpp_receipts').dropColumn('read').execute();
}
