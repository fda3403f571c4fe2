import { sql } from 'kysely';
import type { Executor } from '../../db/engine.js';
import type { Account } from '../../accounts/store.js';
import { moveCredits } from '../../accounts/ledger.js';
import { subaccountEmailKey } from '../../accounts/subaccount-email.js';

/** The parent's sub-account with that email, archived or not; another account's is absent. */
export async function findSubaccount(db: Executor, parentId: number, email: string): Promise<Account | undefined> {
  return db
    .selectFrom('accounts')
    .selectAll()
    .where('email', '=', subaccountEmailKey(parentId, email))
    .where('parent_id', '=', parentId)
    .executeTakeFirst();
}

/**
 * Takes the parent's row lock first (a no-op update). Every transaction that
 * touches a parent and a sub-account locks the parent before the sub-account,
 * so on PostgreSQL transfers in both directions and archives never deadlock.
 */
export async function lockAccount(trx: Executor, accountId: number): Promise<void> {
  await trx
    .updateTable('accounts')
    .set({ credits: sql`credits` })
    .where('id', '=', accountId)
    .execute();
}

/** active → archived, once; revokes its keys. False when it was not an active sub-account of the parent. */
export async function archiveSubaccount(trx: Executor, parentId: number, subId: number): Promise<boolean> {
  const now = Date.now();
  const claimed = await trx
    .updateTable('accounts')
    .set({ status: 'archived', archived_at: now })
    .where('id', '=', subId)
    .where('parent_id', '=', parentId)
    .where('status', '=', 'active')
    .returning('id')
    .executeTakeFirst();
  if (!claimed) return false;
  await trx
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('account_id', '=', subId)
    .where('revoked_at', 'is', null)
    .execute();
  return true;
}

/** The balance of an account, in units (read inside the transaction that holds its lock). */
export async function balanceOf(trx: Executor, accountId: number): Promise<number> {
  const row = await trx.selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirstOrThrow();
  return row.credits;
}

/**
 * A transfer within a family: adds `units` (negative withdraws) to an account when the result stays ≥ 0, with its
 * `transfer` ledger entry naming the other account; the new balance, or undefined. `subaccountOf`: only on an active
 * sub-account of that parent.
 */
export const transferUnits = (
  trx: Executor,
  accountId: number,
  units: number,
  other: { id: number; actor: string; reason: string },
  subaccountOf?: number,
): Promise<number | undefined> =>
  moveCredits(
    trx,
    accountId,
    units,
    { kind: 'transfer', actor: other.actor, reason: other.reason, reference: `account:${other.id}` },
    { subaccountOf },
  );

/** The account's own cap (null: the configured default) and how many active sub-accounts it has. */
export async function subaccountUsage(db: Executor, parentId: number): Promise<{ max: number | null; active: number }> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => [
      'max_subaccounts',
      eb
        .selectFrom('accounts as sub')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('sub.parent_id', '=', parentId)
        .where('sub.status', '=', 'active')
        .as('active'),
    ])
    .where('id', '=', parentId)
    .executeTakeFirstOrThrow();
  return { max: row.max_subaccounts, active: Number(row.active ?? 0) };
}
