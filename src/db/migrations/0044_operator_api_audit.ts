import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * The operator API's tokens (stored as a SHA-256 of the token, never the
 * token) and the audit log of every change made through the operator API, the
 * CLI and the panel's operator view.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('operator_tokens'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('read_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await withId(db, db.schema.createTable('audit_log'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .execute();
  // `audit list --since`: newest first from a moment; housekeeping could prune by it later.
  await db.schema.createIndex('audit_log_at').on('audit_log').columns(['at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
  await db.schema.dropTable('operator_tokens').execute();
}
