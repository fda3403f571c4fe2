import type { Executor } from '../db/engine.js';
import type { PrincipalKind } from './tables.js';

// The panel's own queries: its operators and their passwords. Pages reach them through service.ts.

export const operatorWithHash = (db: Executor, id: number) =>
  db
    .selectFrom('panel_operators')
    .select(['id', 'email', 'password_hash'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

export async function setPasswordHash(db: Executor, kind: PrincipalKind, id: number, hash: string): Promise<void> {
  if (kind === 'operator')
    await db.updateTable('panel_operators').set({ password_hash: hash }).where('id', '=', id).execute();
  else await db.updateTable('accounts').set({ password_hash: hash }).where('id', '=', id).execute();
}

/** A new operator; a taken email is a unique violation. */
export async function insertOperator(db: Executor, email: string, hash: string): Promise<void> {
  await db.insertInto('panel_operators').values({ email, password_hash: hash, created_at: Date.now() }).execute();
}
