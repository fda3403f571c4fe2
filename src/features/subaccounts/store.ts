import type { Executor } from '../../db/engine.js';
import { moveCredits, type Account } from '../../accounts/index.js';
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
