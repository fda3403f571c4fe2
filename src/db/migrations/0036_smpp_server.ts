import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/** Customers bind over SMPP: their logins, the binds open across processes, and what waits for them. */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('smpp_users'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('system_id', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('max_binds', 'integer', (c) => c.notNull())
    .addColumn('throughput', 'integer', (c) => c.notNull())
    .addColumn('window_size', 'integer', (c) => c.notNull())
    .addColumn('allow_ips', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('smpp_users_account').on('smpp_users').column('account_id').execute();
  await db.schema
    .createTable('smpp_binds')
    .addColumn('smpp_user_id', 'integer', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('since', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('submitted', 'integer', (c) => c.notNull())
    .addColumn('delivered', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('smpp_binds_pkey', ['smpp_user_id', 'slot'])
    .execute();
  await db.schema.createIndex('smpp_binds_account').on('smpp_binds').columns(['account_id', 'expires_at']).execute();
  await withId(db, db.schema.createTable('smpp_deliveries'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('pdu', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'bigint')
    .execute();
  await db.schema.createIndex('smpp_deliveries_due').on('smpp_deliveries').columns(['account_id', 'next_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('smpp_deliveries').execute();
  await db.schema.dropTable('smpp_binds').execute();
  await db.schema.dropTable('smpp_users').execute();
}
