import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/** idempotency_keys: the first response to each account's Idempotency-Key, kept 24 hours (src/idempotency/). */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('idempotency_keys'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('content_type', 'text')
    .addColumn('response_body', 'text')
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('idempotency_keys_account_key', ['account_id', 'idem_key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_expiry')
    .on('idempotency_keys')
    .columns(['account_id', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
