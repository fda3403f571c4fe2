import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('payment_requests'))
    .addColumn('request_id', 'text', (c) => c.notNull().unique())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('message_id', 'bigint', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('email', 'text')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('checkout_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('paid_amount_cents', 'bigint')
    .addColumn('provider_ref', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('payment_requests_account')
    .on('payment_requests')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('payment_requests_checkout')
    .on('payment_requests')
    .columns(['provider', 'checkout_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_requests').execute();
}
