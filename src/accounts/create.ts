import type { Db, Executor } from '../db/engine.js';
import { isUniqueViolation } from '../db/engine.js';
import { randomToken } from '../lib/ids.js';
import { hashPassword } from '../lib/passwords.js';
import { isAccountEmail, normalEmail } from '../text/email.js';
import { toCredits, toUnits } from './credits.js';
import { findAccountByEmail, insertAccount, type Account } from './store.js';
import { appendLedger } from './ledger.js';

/** Why an account was not created: `email_invalid`, `email_taken` or `credits_invalid`. */
export class AccountCreateError extends Error {
  constructor(
    readonly code: 'email_invalid' | 'email_taken' | 'credits_invalid',
    message: string,
  ) {
    super(message);
  }
}

/** The most credits an account starts with (as the panel's form accepts them). */
export const MAX_STARTING_CREDITS = 100_000_000;

/**
 * Creates a top-level account and its first API key (returned in clear, shown once): what `accounts create`, the
 * panel's operator view and the operator API call. Without a password (the operator API) the account gets a random
 * one nobody knows: it works with its API key.
 */
export async function createAccount(
  db: Db,
  encryptionKey: Buffer,
  input: { email: string; password?: string; credits?: number },
  /** Runs in the insert's transaction once the account exists: the caller's audit entry, so both commit or neither. */
  created?: (trx: Executor, account: Account) => Promise<unknown>,
): Promise<{ account: Account; apikey: string }> {
  const email = normalEmail(input.email);
  if (!isAccountEmail(email)) throw new AccountCreateError('email_invalid', `not a valid email: ${input.email}`);
  const credits = input.credits ?? 0;
  if (
    !Number.isFinite(credits) ||
    credits < 0 ||
    credits > MAX_STARTING_CREDITS ||
    toCredits(toUnits(credits)) !== credits
  )
    throw new AccountCreateError('credits_invalid', 'credits are 0 to 100000000 with at most 4 decimals');
  if (await findAccountByEmail(db.kysely, email))
    throw new AccountCreateError('email_taken', `an account with email ${email} exists`);
  const passwordHash = await hashPassword(input.password ?? randomToken(32));
  try {
    return await db.kysely.transaction().execute(async (trx) => {
      const made = await insertAccount(trx, encryptionKey, { email, passwordHash, credits: toUnits(credits) });
      if (credits > 0) {
        const units = toUnits(credits);
        await appendLedger(trx, [
          {
            kind: 'credit',
            actor: 'operator',
            reason: 'opening balance',
            accountId: made.account.id,
            units,
            balanceAfter: units,
          },
        ]);
      }
      if (created) await created(trx, made.account);
      return made;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AccountCreateError('email_taken', `an account with email ${email} exists`);
    throw err;
  }
}
