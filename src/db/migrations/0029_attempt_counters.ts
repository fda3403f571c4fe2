import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Attempts are counted, not logged one row each: attempt_counters replaces
 * panel_signin_failures. A sign-in is reserved before its password is
 * checked (src/auth/attempts.ts); the last window's failures are not carried over.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('attempt_counters')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('in_flight', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('attempt_counters_expires').on('attempt_counters').column('expires_at').execute();
  await db.schema.dropTable('panel_signin_failures').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('panel_signin_failures'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  for (const column of ['email', 'ip']) {
    const index = db.schema.createIndex(`panel_signin_failures_${column}`);
    await index.on('panel_signin_failures').columns([column, 'at']).execute();
  }
  await db.schema.dropTable('attempt_counters').execute();
}
