import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('senders'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('rcs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('senders_account_name').on('senders').columns(['account_id', 'name']).unique().execute();

  await withId(db, db.schema.createTable('short_links'))
    .addColumn('code', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('campaign_id', 'bigint', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_click_at', 'bigint')
    .execute();

  await db.schema
    .createTable('landline_prefixes')
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addPrimaryKeyConstraint('landline_prefixes_pk', ['country_code', 'prefix'])
    .execute();

  await db.schema
    .createTable('sandbox_usage')
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('messages', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('sandbox_usage_pk', ['account_id', 'day'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['sandbox_usage', 'landline_prefixes', 'short_links', 'senders'])
    await db.schema.dropTable(t).execute();
}
