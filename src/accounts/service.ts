import type { AppContext, WithDb } from '../context.js';
import type { Executor } from '../db/engine.js';
import { createAccount } from './create.js';
import { searchAccounts, subaccountRows } from './listing-store.js';
import {
  adjustCreditsByOperator,
  archiveAccount,
  currentKey,
  findAccountByEmail,
  lowBalanceUnits,
  rotateKey,
  selectCaller,
  updateAccountSettings,
  type AccountSettingChanges,
} from './store.js';

// What front ends that hold the context (the panel's pages) call: the store's functions, given the context.

type WithSecrets = Pick<AppContext, 'db' | 'secrets'>;

/** The caller as the API sees it (settings inherited from a parent included); throws when it is not active. */
export const callerById = (ctx: WithDb, id: number) =>
  selectCaller(ctx.db.kysely).where('accounts.id', '=', id).executeTakeFirstOrThrow();

export const accountByEmail = (ctx: WithDb, email: string) => findAccountByEmail(ctx.db.kysely, email);

export const accountsMatching = (ctx: WithDb, search: string) => searchAccounts(ctx.db.kysely, search);

/** An operator's change of a balance, with its ledger entry: never below zero, never past MAX_BALANCE_CREDITS; false when refused. */
export const addCredits = (
  ctx: WithDb,
  accountId: number,
  units: number,
  by: { actor: string; reason?: string | null },
) => ctx.db.kysely.transaction().execute((trx) => adjustCreditsByOperator(trx, accountId, units, by));

export const archiveAccountNow = (ctx: WithDb, accountId: number) =>
  ctx.db.kysely.transaction().execute((trx) => archiveAccount(trx, accountId));

/** The account's current API key in clear. */
export const revealKey = (ctx: WithSecrets, accountId: number) =>
  currentKey(ctx.db.kysely, ctx.secrets.keyEncryption, accountId);

/** Revokes every key of the account and issues a new one, in one transaction. */
export const rotateAccountKey = (ctx: WithSecrets, accountId: number) =>
  ctx.db.kysely.transaction().execute((trx) => rotateKey(trx, ctx.secrets.keyEncryption, accountId));

export const changeAccountSettings = (ctx: WithDb, accountId: number, changes: AccountSettingChanges) =>
  updateAccountSettings(ctx.db.kysely, accountId, changes);

/**
 * Saves the settings and, in the same transaction, runs `check` on what was saved: a check that throws undoes the
 * change (the panel's allow-list refuses to shut out the browser that saves it).
 */
export const changeAccountSettingsChecked = (
  ctx: WithDb,
  accountId: number,
  changes: AccountSettingChanges,
  check: (trx: Executor) => Promise<void>,
) =>
  ctx.db.kysely.transaction().execute(async (trx) => {
    await updateAccountSettings(trx, accountId, changes);
    await check(trx);
  });

/** The account's low-balance threshold in units (null: none). */
export async function lowBalanceThreshold(ctx: WithDb, accountId: number): Promise<number | null> {
  const units = await lowBalanceUnits(ctx.db.kysely, accountId);
  return units == null ? null : Number(units);
}

/** A parent's sub-accounts, newest first (the panel lists 500 at most). */
export const subaccountsOf = (ctx: WithDb, parentId: number) => subaccountRows(ctx.db.kysely, parentId, 500);

/** A new top-level account with its first key (the service `accounts create` uses). */
export const openAccount = (ctx: WithSecrets, input: { email: string; password?: string; credits?: number }) =>
  createAccount(ctx.db, ctx.secrets.keyEncryption, input);
