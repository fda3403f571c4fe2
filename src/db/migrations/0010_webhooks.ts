import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('webhook_secrets')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('secret_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  // SQLite adds one column per ALTER TABLE.
  await db.schema.alterTable('events').addColumn('uid', 'text').execute();
  await db.schema.alterTable('events').addColumn('next_attempt_at', 'bigint').execute();
  await db.schema.alterTable('events').addColumn('last_status', 'integer').execute();
  await db.schema.alterTable('events').addColumn('last_error', 'text').execute();
  // Small: only undelivered events are in it (the pending gauge and `events list --failed`).
  await db.schema
    .createIndex('events_pending')
    .on('events')
    .column('state')
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('events_failed')
    .on('events')
    .columns(['account_id', 'id'])
    .where(sql.ref('state'), '=', 'failed')
    .execute();

  await withId(db, db.schema.createTable('event_attempts'))
    .addColumn('event_id', 'bigint', (c) => c.notNull())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('event_attempts_event').on('event_attempts').columns(['event_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_attempts').execute();
  await db.schema.dropIndex('events_failed').execute();
  await db.schema.dropIndex('events_pending').execute();
  for (const c of ['last_error', 'last_status', 'next_attempt_at', 'uid'])
    await db.schema.alterTable('events').dropColumn(c).execute();
  await db.schema.dropTable('webhook_secrets').execute();
  await db.schema.dropTable('webhooks').execute();
}
