import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';
import { affected } from '../db/engine.js';
import type { PrincipalKind } from './tables.js';

// The authenticator secrets in the database. Front ends reach them through totp.ts.

export async function totpRow(db: Executor, kind: PrincipalKind, principalId: number) {
  return db
    .selectFrom('panel_totp')
    .selectAll()
    .where('kind', '=', kind)
    .where('principal_id', '=', principalId)
    .executeTakeFirst();
}

/** A new secret, not yet on: replaces an unconfirmed one, never an enabled one. */
export async function saveUnconfirmedSecret(db: Executor, kind: PrincipalKind, principalId: number, secretEnc: string) {
  await db
    .deleteFrom('panel_totp')
    .where('kind', '=', kind)
    .where('principal_id', '=', principalId)
    .where('enabled', '=', 0)
    .execute();
  await db
    .insertInto('panel_totp')
    .values({ kind, principal_id: principalId, secret_enc: secretEnc, enabled: 0, created_at: Date.now() })
    .onConflict((oc) => oc.columns(['kind', 'principal_id']).doNothing())
    .execute();
}

/** Uses up a step (and turns the secret on): false when that step, or a later one, was used already. */
export async function useStep(db: Executor, kind: PrincipalKind, principalId: number, step: number): Promise<boolean> {
  const used = await db
    .updateTable('panel_totp')
    .set({ last_step: step, enabled: 1 })
    .where('kind', '=', kind)
    .where('principal_id', '=', principalId)
    .where(sql<boolean>`last_step < ${step}`)
    .executeTakeFirst();
  return affected(used) === 1;
}

export async function disableTotp(db: Executor, kind: PrincipalKind, principalId: number): Promise<void> {
  await db.deleteFrom('panel_totp').where('kind', '=', kind).where('principal_id', '=', principalId).execute();
}
