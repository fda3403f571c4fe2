import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * HTTP provider connectors (WhatsApp Cloud API, TwiML voice): the provider's
 * id of each accepted message, and the webhooks refused (bad signature,
 * unknown connector, unreadable body) for the operator to see.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('provider_message_ids')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('carrier_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('provider_message_ids_pk', ['carrier', 'carrier_id'])
    .execute();

  await withId(db, db.schema.createTable('provider_rejections'))
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('remote_address', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('provider_rejections').execute();
  await db.schema.dropTable('provider_message_ids').execute();
}
