import { createHash } from 'node:crypto';
import type { Db, Executor } from '../db/engine.js';
import { randomToken } from '../lib/ids.js';
import { hashPassword } from '../lib/passwords.js';

/** A one-time link that sets an account's panel password (migration 0049_ledger_reset_links): only its hash is kept. */
export interface ResetLinksTable {
  token_hash: string;
  account_id: number;
  created_at: number;
  expires_at: number;
}

export interface ResetLinkTables {
  reset_links: ResetLinksTable;
}

declare module '../db/schema.js' {
  interface Database extends ResetLinkTables {}
}

/** The panel's password rule: 8 to 128 characters. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export const meetsPasswordRules = (password: string): boolean =>
  password.length >= PASSWORD_MIN && password.length <= PASSWORD_MAX;

/** How long a reset link works. */
export const RESET_TTL_MS = 3_600_000;

/** The reset link's path under PUBLIC_BASE_URL; the token follows. */
export const RESET_PATH = '/panel/reset?token=';

const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** The new hash and the end of every panel session of the account, in the caller's transaction. */
async function storePassword(trx: Executor, accountId: number, passwordHash: string): Promise<void> {
  await trx.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', accountId).execute();
  await trx.deleteFrom('panel_sessions').where('kind', '=', 'account').where('principal_id', '=', accountId).execute();
  await trx.deleteFrom('reset_links').where('account_id', '=', accountId).execute();
}

/**
 * Sets the account's panel password (the caller checked meetsPasswordRules): every panel session of the account ends
 * and any reset link still open stops working.
 */
export async function setAccountPassword(db: Db, accountId: number, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await db.kysely.transaction().execute((trx) => storePassword(trx, accountId, passwordHash));
}

/**
 * A new one-time reset link for the account, valid RESET_TTL_MS: the token in clear for the link (shown or mailed
 * once, never stored) and when it ends. Links that ran out are removed on the way.
 */
export async function issuePasswordReset(
  db: Executor,
  accountId: number,
  now = Date.now(),
): Promise<{ token: string; expiresAt: number }> {
  await db.deleteFrom('reset_links').where('expires_at', '<=', now).execute();
  const token = randomToken(32);
  const expiresAt = now + RESET_TTL_MS;
  await db
    .insertInto('reset_links')
    .values({ token_hash: tokenHash(token), account_id: accountId, created_at: now, expires_at: expiresAt })
    .execute();
  return { token, expiresAt };
}

/** The active account a reset token still opens, or undefined (unknown, spent, ran out, archived account). */
export async function resetTokenAccount(db: Executor, token: string, now = Date.now()) {
  if (token === '' || token.length > 200) return undefined;
  return db
    .selectFrom('reset_links')
    .innerJoin('accounts', 'accounts.id', 'reset_links.account_id')
    .select(['accounts.id', 'accounts.email'])
    .where('reset_links.token_hash', '=', tokenHash(token))
    .where('reset_links.expires_at', '>', now)
    .where('accounts.status', '=', 'active')
    .executeTakeFirst();
}

/**
 * Spends the token and sets the password (the caller checked meetsPasswordRules), in one transaction: of two uses of
 * the same link only one sets it. The account it set, or undefined when the token opens nothing.
 */
export async function redeemPasswordReset(db: Db, token: string, password: string, now = Date.now()) {
  const account = await resetTokenAccount(db.kysely, token, now);
  if (!account) return undefined;
  const passwordHash = await hashPassword(password);
  return db.kysely.transaction().execute(async (trx) => {
    const spent = await trx
      .deleteFrom('reset_links')
      .where('token_hash', '=', tokenHash(token))
      .where('expires_at', '>', now)
      .returning('account_id')
      .executeTakeFirst();
    if (!spent) return undefined;
    await storePassword(trx, Number(spent.account_id), passwordHash);
    return account;
  });
}
