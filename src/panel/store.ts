import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';
import { panelAllowList, storePasswordHash } from '../accounts/index.js';
import type { PrincipalKind } from './tables.js';

// The panel's own queries: its operators, their passwords, who an email names at sign-in. Pages reach them through
// service.ts; sign-in through signin-candidates.ts.

export const operatorWithHash = (db: Executor, id: number) =>
  db
    .selectFrom('panel_operators')
    .select(['id', 'email', 'password_hash'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

export async function setPasswordHash(db: Executor, kind: PrincipalKind, id: number, hash: string): Promise<void> {
  if (kind === 'operator')
    await db.updateTable('panel_operators').set({ password_hash: hash }).where('id', '=', id).execute();
  else await storePasswordHash(db, id, hash);
}

/** A new operator; a taken email is a unique violation. */
export async function insertOperator(db: Executor, email: string, hash: string): Promise<void> {
  await db.insertInto('panel_operators').values({ email, password_hash: hash, created_at: Date.now() }).execute();
}

/** The operator with this email and the accounts it may name (signin-candidates.ts says which), `limit` at most. */
export function signinRows(db: Executor, email: string, limit: number) {
  const escaped = email.replace(/[\\%_]/g, (c) => `\\${c}`);
  return Promise.all([
    db.selectFrom('panel_operators').select(['id', 'password_hash']).where('email', '=', email).executeTakeFirst(),
    db
      .selectFrom('accounts')
      .leftJoin('accounts as parent', 'parent.id', 'accounts.parent_id')
      .select(['accounts.id', 'accounts.password_hash', 'accounts.parent_id', panelAllowList.as('panel_allow_ips')])
      .where('accounts.status', '=', 'active')
      .where((eb) =>
        eb.or([
          eb.and([eb('accounts.email', '=', email), eb('accounts.parent_id', 'is', null)]),
          eb.and([
            eb('parent.status', '=', 'active'),
            sql<boolean>`${sql.ref('accounts.email')} like ${`% ${escaped}`} escape '\\'`,
          ]),
        ]),
      )
      .orderBy(sql`case when accounts.parent_id is null then 0 else 1 end`)
      .orderBy('accounts.id')
      .limit(limit)
      .execute(),
  ]);
}
