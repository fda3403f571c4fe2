import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/** The account panel: operators, server-side sessions, and sign-in attempts (throttling). */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('panel_operators'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('panel_sessions'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('principal_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('pending_totp', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('panel_sessions_principal')
    .on('panel_sessions')
    .columns(['kind', 'principal_id'])
    .execute();

  await db.schema
    .createTable('panel_totp')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('principal_id', 'bigint', (c) => c.notNull())
    .addColumn('secret_enc', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_step', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('panel_totp_pk', ['kind', 'principal_id'])
    .execute();

  await withId(db, db.schema.createTable('panel_signin_failures'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('panel_signin_failures_email')
    .on('panel_signin_failures')
    .columns(['email', 'at'])
    .execute();
  await db.schema.createIndex('panel_signin_failures_ip').on('panel_signin_failures').columns(['ip', 'at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('panel_signin_failures').execute();
  await db.schema.dropTable('panel_totp').execute();
  await db.schema.dropTable('panel_sessions').execute();
  await db.schema.dropTable('panel_operators').execute();
}
