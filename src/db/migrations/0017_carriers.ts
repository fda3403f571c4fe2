import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

const CHANNELS = ['sms', 'rcs', 'chatapp', 'voice'];

/**
 * Carrier connectors and routes (operator configuration shared by every
 * process), bind leases, the shared throughput counter, per-process status,
 * and what SMPP sessions receive: carrier ids, receipts waiting for their
 * message, parts of concatenated replies, replies that matched nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('carriers'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('password_enc', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('carrier_routes'))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    // 0: every account.
    .addColumn('account_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('carriers', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('carrier_routes_key')
    .on('carrier_routes')
    .columns(['channel', 'prefix', 'account_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('carrier_binds')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_binds_pk', ['carrier', 'slot'])
    .execute();

  await db.schema
    .createTable('carrier_rate')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('second', 'bigint', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_rate_pk', ['carrier', 'second'])
    .execute();

  await db.schema
    .createTable('carrier_process_status')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('stats', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_process_status_pk', ['carrier', 'holder'])
    .execute();

  await withId(db, db.schema.createTable('smpp_ids'))
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('carrier_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('smpp_ids_lookup').on('smpp_ids').columns(['carrier', 'carrier_id']).execute();
  await db.schema.createIndex('smpp_ids_created').on('smpp_ids').column('created_at').execute();

  await withId(db, db.schema.createTable('smpp_receipts'))
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('carrier_id', 'text', (c) => c.notNull())
    .addColumn('code', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('smpp_receipts_lookup').on('smpp_receipts').columns(['carrier', 'carrier_id']).execute();

  await db.schema
    .createTable('smpp_reply_parts')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('reference', 'integer', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('smpp_reply_parts_pk', ['carrier', 'source', 'reference', 'sequence'])
    .execute();

  await withId(db, db.schema.createTable('unmatched_replies'))
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();

  // Replies are matched by the number that sent them, whatever the account.
  await db.schema.createIndex('messages_number').on('messages').columns(['number', 'id']).execute();

  // A fresh install behaves as before: the simulator carries every channel.
  const now = Date.now();
  await db
    .insertInto('carriers')
    .values({
      name: 'simulator',
      type: 'simulator',
      enabled: 1,
      settings: '{}',
      version: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db
    .insertInto('carrier_routes')
    .values(
      CHANNELS.map((channel) => ({ channel, prefix: '', account_id: 0, carriers: '["simulator"]', created_at: now })),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_number').execute();
  for (const t of [
    'unmatched_replies',
    'smpp_reply_parts',
    'smpp_receipts',
    'smpp_ids',
    'carrier_process_status',
    'carrier_rate',
    'carrier_binds',
    'carrier_routes',
    'carriers',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
