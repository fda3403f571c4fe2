import type { Kysely } from 'kysely';

/** Provider message ids by age, for the upkeep that drops them after PROVIDER_IDS_KEEP_DAYS (src/messaging/receipts.ts). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('provider_message_ids_created').on('provider_message_ids').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('provider_message_ids_created').execute();
}
