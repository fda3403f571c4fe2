import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * credit_ledger: one row per movement of an account's balance (operator credit, send request, refund, transfer,
 * adjustment), with the balance it left, written in the movement's transaction (src/accounts/ledger.ts). Read per
 * account, newest first, so the index is (account_id, id). Balances before this migration have no history: the first
 * entry of an account starts from the balance it had then.
 *
 * reset_links: one-time links that set an account's panel password, stored as the token's hash, for an hour.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('credit_ledger'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('balance_after', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .execute();
  await db.schema.createIndex('credit_ledger_account').on('credit_ledger').columns(['account_id', 'id']).execute();
  await db.schema
    .createTable('reset_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reset_links_account').on('reset_links').column('account_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('reset_links').execute();
  await db.schema.dropTable('credit_ledger').execute();
}
