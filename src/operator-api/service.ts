import { toCredits, toUnits } from '../accounts/credits.js';
import { AccountCreateError, createAccount } from '../accounts/create.js';
import {
  adjustCreditsByOperator,
  archiveAccount,
  findAccountById,
  accountListing,
  issuePasswordReset,
  ledgerPage,
  ledgerPeriod,
  RESET_PATH,
  listAccounts,
  unarchiveAccount,
  type Account,
} from '../accounts/index.js';
import { shownEmail } from '../accounts/subaccount-email.js';
import { accountTarget, recordAudit } from '../audit/service.js';
import type { AppContext } from '../context.js';
import type { Db, Executor } from '../db/engine.js';
import { ApiError, badRequest } from '../http/errors.js';
import { recordLowBalance } from '../webhooks/index.js';
import type { ApiActor } from './schemas.js';

/** One page as `accounts list` prints it (id order, so a new account never shifts a page). */
export const accountsPage = (db: Executor, search: string, page: number) => listAccounts(db, { search, page });

async function existing(db: Executor, id: number): Promise<Account> {
  const account = await findAccountById(db, id);
  if (!account) throw new ApiError(404, 'op_account_missing');
  return account;
}

export const accountById = async (db: Executor, id: number) => accountListing(await existing(db, id));

/** Creates a top-level account (the service `accounts create` uses) and records it; the key is in the answer only. */
export async function createAccountAs(
  ctx: Pick<AppContext, 'db' | 'secrets'>,
  by: ApiActor,
  email: string,
  credits?: number,
) {
  // The audit entry is written in the account's own transaction.
  const record = (trx: Executor, made: Account) =>
    recordAudit(trx, {
      ...by,
      action: 'accounts.create',
      target: accountTarget(made.id, shownEmail(made.email)),
      detail: { id: Number(made.id), credits: credits ?? 0 },
    });
  const { account, apikey } = await createAccount(ctx.db, ctx.secrets.keyEncryption, { email, credits }, record).catch(
    (err) => {
      if (!(err instanceof AccountCreateError)) throw err;
      throw err.code === 'email_taken' ? new ApiError(409, 'op_email_taken') : badRequest(`op_${err.code}`);
    },
  );
  return { ...accountListing(account), apikey };
}

/**
 * Adds (or, negative, withdraws) credits with the reason, in one transaction with its audit entry. The update is
 * conditional (accounts' adjustCreditsByOperator), so parallel withdrawals never take a balance below zero and parallel
 * additions never past MAX_BALANCE_CREDITS (op_balance_ceiling).
 */
export async function changeCredits(db: Db, by: ApiActor, id: number, amount: number, reason: string) {
  const units = toUnits(amount);
  return db.kysely.transaction().execute(async (trx) => {
    const account = await existing(trx, id);
    if (!(await adjustCreditsByOperator(trx, id, units, { actor: by.actor, reason })))
      throw badRequest(units < 0 ? 'op_below_zero' : 'op_balance_ceiling');
    if (units < 0) await recordLowBalance(trx, id);
    const after = await existing(trx, id);
    const detail = { amount, reason, credits: toCredits(Number(after.credits)) };
    await recordAudit(trx, {
      ...by,
      action: 'accounts.credits',
      target: accountTarget(id, shownEmail(account.email)),
      detail,
    });
    return { id, credits: toCredits(Number(after.credits)) };
  });
}

/** Archives the account and its family (accounts' archiveAccount), recorded with it. */
export async function archiveAs(db: Db, by: ApiActor, id: number) {
  return db.kysely.transaction().execute(async (trx) => {
    const account = await existing(trx, id);
    const { subaccounts } = await archiveAccount(trx, id);
    const target = accountTarget(id, shownEmail(account.email));
    await recordAudit(trx, { ...by, action: 'accounts.archive', target, detail: { id, subaccounts } });
    return accountListing(await existing(trx, id));
  });
}

/** Revives an archived account with a new API key (returned once); an active one is returned as it is. */
export async function unarchiveAs(ctx: Pick<AppContext, 'db' | 'secrets'>, by: ApiActor, id: number) {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const account = await existing(trx, id);
    if (account.status === 'active') return accountListing(account);
    const apikey = await unarchiveAccount(trx, ctx.secrets.keyEncryption, id);
    if (!apikey) throw new ApiError(409, 'op_parent_archived');
    await recordAudit(trx, {
      ...by,
      action: 'accounts.unarchive',
      target: accountTarget(id, shownEmail(account.email)),
      detail: { id },
    });
    return { ...accountListing(await existing(trx, id)), apikey };
  });
}

/** The account's credit ledger over a period of Mexico City days (both given days included), one page, newest first. */
export async function accountLedger(db: Executor, id: number, q: { from?: string; to?: string; page: number }) {
  await existing(db, id);
  const period = ledgerPeriod(q.from, q.to);
  if (!period) throw badRequest('op_ledger_invalid');
  return ledgerPage(db, id, { ...period, page: q.page });
}

/** A one-time link that sets the account's panel password (valid one hour), with its audit entry (never the token). */
export async function passwordResetAs(ctx: Pick<AppContext, 'db' | 'config'>, by: ApiActor, id: number) {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const account = await existing(trx, id);
    if (account.status !== 'active') throw new ApiError(409, 'op_account_archived');
    const { token, expiresAt } = await issuePasswordReset(trx, id);
    const expires_at = new Date(expiresAt).toISOString();
    const email = shownEmail(account.email);
    await recordAudit(trx, {
      ...by,
      action: 'accounts.password-reset',
      target: accountTarget(id, email),
      detail: { expires_at },
    });
    return { id, email, reset_url: `${ctx.config.publicBaseUrl}${RESET_PATH}${token}`, expires_at };
  });
}
