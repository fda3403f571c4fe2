import type { Kysely } from 'kysely';

/**
 * - accounts.suspended: 1 when the operator archived the account, alone or with
 *   its parent. The sends it had accepted are then not handed over (a parent
 *   archiving its own sub-account through the API leaves it 0: those still go
 *   out). Top-level accounts archived before this migration were archived by
 *   the operator, so they start suspended.
 * - accounts.panel_allow_ip: 1 when the account's IP allow-list applies to the
 *   panel too (sign-in and every signed-in request).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('suspended', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('panel_allow_ip', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db
    .updateTable('accounts')
    .set({ suspended: 1 })
    .where('status', '=', 'archived')
    .where('parent_id', 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('panel_allow_ip').execute();
  await db.schema.alterTable('accounts').dropColumn('suspended').execute();
}
