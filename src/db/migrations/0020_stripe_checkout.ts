import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // The operator's payment provider, shared by every process (one row per provider name).
  await withId(db, db.schema.createTable('payment_provider_settings'))
    .addColumn('provider', 'text', (c) => c.notNull().unique())
    .addColumn('api_base', 'text', (c) => c.notNull())
    .addColumn('secret_key_enc', 'text', (c) => c.notNull())
    .addColumn('webhook_secret_enc', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Every webhook the provider (or anyone) sent: applied, duplicate (replay of a known event id), ignored, refused.
  await withId(db, db.schema.createTable('payment_webhooks'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text')
    .addColumn('event_type', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('remote_address', 'text')
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
  // One applied record per event id: the unique index is what refuses a replay, even in parallel.
  await db.schema
    .createIndex('payment_webhooks_event')
    .on('payment_webhooks')
    .columns(['provider', 'event_id'])
    .unique()
    .where(sql<boolean>`outcome = 'applied'`)
    .execute();
  await db.schema.alterTable('payment_requests').addColumn('checkout_url', 'text').execute();
  await db.schema.alterTable('payment_requests').addColumn('checkout_closed_at', 'bigint').execute();
  await db.schema.alterTable('payment_requests').addColumn('checkout_closed_reason', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_requests').dropColumn('checkout_closed_reason').execute();
  await db.schema.alterTable('payment_requests').dropColumn('checkout_closed_at').execute();
  await db.schema.alterTable('payment_requests').dropColumn('checkout_url').execute();
  await db.schema.dropTable('payment_webhooks').execute();
  await db.schema.dropTable('payment_provider_settings').execute();
}
