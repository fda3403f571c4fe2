import type { WithDb } from '../context.js';
import { isUniqueViolation } from '../db/engine.js';
import { hashPassword } from '../lib/passwords.js';
import { insertOperator } from './store.js';

/** A new operator with the password hashed; false when an operator has the email already. */
export async function createOperator(ctx: WithDb, email: string, password: string): Promise<boolean> {
  const hash = await hashPassword(password);
  try {
    await insertOperator(ctx.db.kysely, email, hash);
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}
