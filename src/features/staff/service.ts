import { staffSummaries } from './store.js';
import { createHmac } from 'node:crypto';
import type { AppContext, WithDb } from '../../context.js';
import { badRequest } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { hashPassword, scryptKey } from '../../lib/passwords.js';
import { disableStaffByNumber, findActiveClashes, insertStaff, isActiveStaff, type StaffUser } from './store.js';
import { isUniqueViolation, type Executor } from '../../db/engine.js';

/** The panel's read view of the account's staff users. */
export { listStaff, staffSummaries, type StaffUser } from './store.js';

defineMessages({
  tool_users_01: 'tool_users',
  toolusers_01: 'OK',
  toolusers_02: 'type is required: cajero or gerente',
  toolusers_03: 'employee_name is required, 1 to 100 characters',
  toolusers_04: 'business_name is required, 1 to 100 characters',
  toolusers_05: 'number is required: exactly 10 digits',
  toolusers_06: 'password is required, 1 to 50 characters',
  toolusers_07: 'An active staff user of this account already has this number',
  toolusers_08: 'An active staff user of this account already has this name',
  toolusers_09: 'An active staff user of this account already uses this password',
  toolusers_10: 'No active staff user of this account has this number',
});

export interface NewStaff {
  type: 'cajero' | 'gerente';
  employee_name: string;
  business_name: string;
  number: string;
  password: string;
}

export const nameKey = (name: string) => name.trim().toLowerCase();

/**
 * Equal passwords must be detectable (the spec validates password
 * uniqueness) without keeping them in a fast, reversible or unsalted form:
 * scrypt with a salt derived from the server secret and the account, so
 * equal passwords of one account give equal fingerprints and nothing else does.
 */
async function passwordFingerprint(
  ctx: Pick<AppContext, 'secrets'>,
  accountId: number,
  password: string,
): Promise<string> {
  const salt = createHmac('sha256', ctx.secrets.staffPasswordFingerprint).update(`account:${accountId}`).digest();
  return (await scryptKey(password, salt)).toString('hex');
}

/** The rule a clash breaks, checked in the order number, name, password. */
function clashCode(
  clashes: StaffUser[],
  input: { number: string; name_key: string; password_fingerprint: string },
): string | undefined {
  if (clashes.some((s) => s.number === input.number)) return 'toolusers_07';
  if (clashes.some((s) => s.name_key === input.name_key)) return 'toolusers_08';
  if (clashes.some((s) => s.password_fingerprint === input.password_fingerprint)) return 'toolusers_09';
  return undefined;
}

export async function addStaff(
  ctx: Pick<AppContext, 'db' | 'secrets'>,
  accountId: number,
  input: NewStaff,
): Promise<StaffUser> {
  const db = ctx.db.kysely;
  // Number and name first: they need no hashing, which is slow on purpose.
  const cheap = { number: input.number, name_key: nameKey(input.employee_name), password_fingerprint: '' };
  const early = clashCode(await findActiveClashes(db, accountId, cheap), cheap);
  if (early) throw badRequest(early);
  const [password_hash, password_fingerprint] = await Promise.all([
    hashPassword(input.password),
    passwordFingerprint(ctx, accountId, input.password),
  ]);
  const unique = { ...cheap, password_fingerprint };
  const code = clashCode(await findActiveClashes(db, accountId, unique), unique);
  if (code) throw badRequest(code);
  try {
    return await insertStaff(db, {
      account_id: accountId,
      type: input.type,
      name: input.employee_name,
      business_name: input.business_name,
      password_hash,
      created_at: Date.now(),
      ...unique,
    });
  } catch (err) {
    // A parallel request took the number, name or password between the check and the insert (the partial UNIQUE indexes decide).
    if (!isUniqueViolation(err)) throw err;
    throw badRequest(clashCode(await findActiveClashes(db, accountId, unique), unique) ?? 'toolusers_07');
  }
}

export async function disableStaff(ctx: WithDb, accountId: number, number: string): Promise<void> {
  if (!(await disableStaffByNumber(ctx.db.kysely, accountId, number))) throw badRequest('toolusers_10');
}

/** For wallet and loyalty: refuses a usertool_id that is not an active staff user of the account with the caller's code. */
export async function requireActiveStaff(
  db: Executor,
  accountId: number,
  staffUserId: number,
  code: string,
): Promise<void> {
  if (!(await isActiveStaff(db, accountId, staffUserId))) throw badRequest(code);
}

/** The account's staff users (the panel's Programs page). */
export const staffSummariesOf = (ctx: WithDb, accountId: number) => staffSummaries(ctx.db.kysely, accountId);
