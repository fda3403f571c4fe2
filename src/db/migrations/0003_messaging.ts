import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('campaigns'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('scheduled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('campaigns_account').on('campaigns').columns(['account_id', 'created_at']).execute();

  await withId(db, db.schema.createTable('messages'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('campaign_id', 'bigint', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull().unique())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('sender', 'text')
    .addColumn('flash', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('extra_params', 'text')
    .addColumn('meta', 'text')
    .addColumn('price_units', 'bigint', (c) => c.notNull())
    .addColumn('stage', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('dlr_code', 'integer')
    .addColumn('carrier', 'text')
    .addColumn('carrier_id', 'text')
    .addColumn('error', 'text')
    .addColumn('scheduled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addColumn('dlr_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('messages_account_created')
    .on('messages')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema.createIndex('messages_campaign').on('messages').column('campaign_id').execute();
  await db.schema
    .createIndex('messages_account_number')
    .on('messages')
    .columns(['account_id', 'number', 'id'])
    .execute();

  await db.schema
    .createTable('account_prices')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_prices_pk', ['account_id', 'channel'])
    .execute();

  await withId(db, db.schema.createTable('replies'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('message_id', 'bigint', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('replies_message').on('replies').column('message_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['replies', 'account_prices', 'messages', 'campaigns']) await db.schema.dropTable(t).execute();
}
