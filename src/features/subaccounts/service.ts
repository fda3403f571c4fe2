import type { AppContext, WithConfig, WithDb } from '../../context.js';
import { shownEmail, subaccountEmailKey } from '../../accounts/subaccount-email.js';
import { currentKey, insertAccount, type Account, type AuthenticatedAccount } from '../../accounts/index.js';
import { ApiError, badRequest } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { hashPassword } from '../../lib/passwords.js';
import { archiveSubaccount, balanceOf, transferUnits, findSubaccount, lockAccount, subaccountUsage } from './store.js';
import { recordLowBalance } from '../../webhooks/index.js';
import { isUniqueViolation, type Executor } from '../../db/engine.js';

defineMessages({
  subaccount_01: 'Done',
  subaccount_02: 'email is required',
  subaccount_03: 'email is longer than 70 characters',
  subaccount_04: 'email is not a valid address',
  subaccount_05: 'password is required',
  subaccount_06: 'password must have 6 to 36 characters',
  subaccount_07: 'you already have a sub-account with this email',
  subaccount_08: 'you have no sub-account with this email',
  subaccount_09: 'this sub-account is archived',
  subaccount_10: 'type must be 1 (add credits to the sub-account) or 2 (withdraw them)',
  subaccount_11: 'credits must be a whole number greater than 0 (at most 100000000)',
  subaccount_12: 'the paying side does not have enough credits',
  subaccount_13: 'a sub-account cannot manage sub-accounts',
  subaccount_14:
    'this account has reached its limit of sub-accounts: archive one or ask the operator to raise the limit',
});

/** Only top-level accounts manage sub-accounts: one level, no grandchildren. */
function requireManager(caller: AuthenticatedAccount): void {
  if (caller.parent_id !== null) throw new ApiError(403, 'subaccount_13');
}

/** The caller's active sub-account with that email (subaccount_08 when it is not theirs, subaccount_09 when archived). */
async function activeSubaccount(ctx: WithDb, caller: AuthenticatedAccount, email: string): Promise<Account> {
  requireManager(caller);
  const sub = await findSubaccount(ctx.db.kysely, caller.id, email);
  if (!sub) throw badRequest('subaccount_08');
  if (sub.status !== 'active') throw badRequest('subaccount_09');
  return sub;
}

/**
 * The cheap checks (manager, cap, email taken) come before the password hash,
 * which is slow on purpose. The cap is checked again in the transaction that
 * inserts, after locking the parent's row, so parallel requests cannot pass it.
 */
export async function addSubaccount(
  ctx: Pick<AppContext, 'config' | 'db' | 'secrets'>,
  caller: AuthenticatedAccount,
  email: string,
  password: string,
): Promise<{ email: string; apikey: string }> {
  requireManager(caller);
  await checkCap(ctx.db.kysely, ctx, caller.id);
  // Only the caller's own sub-accounts can clash: another tenant's emails stay invisible (see subaccount-email.ts).
  if (await findSubaccount(ctx.db.kysely, caller.id, email)) throw badRequest('subaccount_07');
  const passwordHash = await hashPassword(password);
  try {
    const { account, apikey } = await ctx.db.kysely.transaction().execute(async (trx) => {
      await lockAccount(trx, caller.id);
      await checkCap(trx, ctx, caller.id);
      return insertAccount(trx, ctx.secrets.keyEncryption, {
        email: subaccountEmailKey(caller.id, email),
        passwordHash,
        credits: 0,
        parentId: caller.id,
      });
    });
    return { email: shownEmail(account.email), apikey };
  } catch (error) {
    // Two requests for the same email at once: the unique index decides.
    if (isUniqueViolation(error)) throw badRequest('subaccount_07');
    throw error;
  }
}

/** Active sub-accounts count against the cap (the account's own, else SUBACCOUNTS_PER_ACCOUNT); archived ones do not. */
async function checkCap(db: Executor, ctx: WithConfig, parentId: number): Promise<void> {
  const { max, active } = await subaccountUsage(db, parentId);
  if (active >= (max ?? ctx.config.SUBACCOUNTS_PER_ACCOUNT)) throw new ApiError(403, 'subaccount_14');
}

/**
 * One-way. In one transaction: the sub-account is archived, its keys are
 * revoked (the apikey hook reads the key on every request, so it stops working
 * at once) and its remaining balance goes back to the parent.
 */
export async function archive(
  ctx: WithDb,
  caller: AuthenticatedAccount,
  email: string,
): Promise<{ returnedUnits: number }> {
  const sub = await activeSubaccount(ctx, caller, email);
  return ctx.db.kysely.transaction().execute(async (trx) => {
    await lockAccount(trx, caller.id);
    if (!(await archiveSubaccount(trx, caller.id, sub.id))) throw badRequest('subaccount_09');
    const returnedUnits = await balanceOf(trx, sub.id);
    if (returnedUnits > 0) {
      const reason = 'sub-account archived: its balance back to its parent';
      const actor = `account:${caller.id}`;
      await transferUnits(trx, sub.id, -returnedUnits, { id: caller.id, actor, reason });
      await transferUnits(trx, caller.id, returnedUnits, { id: sub.id, actor, reason });
    }
    return { returnedUnits };
  });
}

export async function subaccountKey(
  ctx: Pick<AppContext, 'db' | 'secrets'>,
  caller: AuthenticatedAccount,
  email: string,
): Promise<{ email: string; apikey: string }> {
  const sub = await activeSubaccount(ctx, caller, email);
  const apikey = await currentKey(ctx.db.kysely, ctx.secrets.keyEncryption, sub.id);
  if (!apikey) throw badRequest('subaccount_09');
  return { email: shownEmail(sub.email), apikey };
}

export type TransferType = 1 | 2;

/**
 * Type 1 moves credits from the parent to the sub-account, type 2 back. Both
 * balances change in one transaction through conditional updates, so the sum
 * never changes and the paying side never goes below zero. The parent's row is
 * always updated first (see lockAccount).
 */
export async function transfer(
  ctx: WithDb,
  caller: AuthenticatedAccount,
  email: string,
  type: TransferType,
  units: number,
): Promise<{ parentUnits: number; subUnits: number }> {
  const sub = await activeSubaccount(ctx, caller, email);
  const actor = `account:${caller.id}`;
  const toParent = { id: caller.id, actor, reason: type === 1 ? 'from the parent' : 'to the parent' };
  const toSub = { id: sub.id, actor, reason: type === 1 ? 'to a sub-account' : 'from a sub-account' };
  return ctx.db.kysely.transaction().execute(async (trx) => {
    if (type === 1) {
      const parentUnits = await transferUnits(trx, caller.id, -units, toSub);
      if (parentUnits === undefined) throw badRequest('subaccount_12');
      const subUnits = await transferUnits(trx, sub.id, units, toParent, caller.id);
      if (subUnits === undefined) throw badRequest('subaccount_09');
      await recordLowBalance(trx, caller.id);
      return { parentUnits, subUnits };
    }
    const parentUnits = await transferUnits(trx, caller.id, units, toSub);
    if (parentUnits === undefined) throw new Error('crediting the parent failed');
    const subUnits = await transferUnits(trx, sub.id, -units, toParent, caller.id);
    if (subUnits === undefined) {
      const now = await findSubaccount(trx, caller.id, email);
      throw badRequest(now?.status === 'active' ? 'subaccount_12' : 'subaccount_09');
    }
    await recordLowBalance(trx, sub.id);
    return { parentUnits, subUnits };
  });
}
