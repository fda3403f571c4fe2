import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('otp_verifications'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('round', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('code_hash', 'text')
    .addColumn('code_enc', 'text')
    .addColumn('code_format', 'text')
    .addColumn('code_length', 'integer')
    .addColumn('attempts_remaining', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint')
    .addColumn('last_sent_at', 'bigint')
    .addColumn('channel', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('verified_at', 'bigint')
    .addUniqueConstraint('otp_verifications_number', ['account_id', 'country_code', 'phone_number'])
    .execute();

  await withId(db, db.schema.createTable('otp_starts'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('otp_starts_number')
    .on('otp_starts')
    .columns(['account_id', 'country_code', 'phone_number', 'started_at'])
    .execute();

  await db.schema
    .createTable('otp_settings')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('allowed_countries', 'text')
    .addColumn('max_per_number_hour', 'integer')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('otp_settings').ifExists().execute();
  await db.schema.dropTable('otp_starts').ifExists().execute();
  await db.schema.dropTable('otp_verifications').ifExists().execute();
}
