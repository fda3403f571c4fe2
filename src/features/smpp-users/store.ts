import type { Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/engine.js';
import type { SmppBindsTable, SmppUsersTable } from './tables.js';

export type SmppUserRow = Selectable<SmppUsersTable>;
export type SmppBindRow = Selectable<SmppBindsTable>;

/** A bind is live while its holder renews it: a killed process frees its binds within this long. */
export const BIND_LEASE_MS = 4_000;

export async function insertSmppUser(db: Executor, row: Omit<SmppUserRow, 'id'>): Promise<void> {
  await db.insertInto('smpp_users').values(row).execute();
}

export async function findSmppUser(db: Executor, systemId: string): Promise<SmppUserRow | undefined> {
  return db.selectFrom('smpp_users').selectAll().where('system_id', '=', systemId).executeTakeFirst();
}

/** Users with their account's email, optionally of one account. */
export async function listSmppUsers(db: Executor, accountId?: number) {
  let q = db
    .selectFrom('smpp_users')
    .innerJoin('accounts', 'accounts.id', 'smpp_users.account_id')
    .selectAll('smpp_users')
    .select('accounts.email');
  if (accountId !== undefined) q = q.where('smpp_users.account_id', '=', accountId);
  return q.orderBy('smpp_users.system_id').execute();
}

export async function updateSmppUser(
  db: Executor,
  id: number,
  changes: Updateable<SmppUsersTable>,
): Promise<SmppUserRow | undefined> {
  return db
    .updateTable('smpp_users')
    .set({ ...changes, updated_at: Date.now() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteSmppUser(db: Executor, id: number): Promise<boolean> {
  await db.deleteFrom('smpp_binds').where('smpp_user_id', '=', id).execute();
  await db.deleteFrom('smpp_resubmits').where('smpp_user_id', '=', id).execute();
  const r = await db.deleteFrom('smpp_users').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Live binds, with their user's system id and account's email; of one user, or of one account, when given. */
export async function liveBinds(db: Executor, filter: { userId?: number; accountId?: number } = {}, now = Date.now()) {
  let q = db
    .selectFrom('smpp_binds')
    .innerJoin('smpp_users', 'smpp_users.id', 'smpp_binds.smpp_user_id')
    .innerJoin('accounts', 'accounts.id', 'smpp_binds.account_id')
    .selectAll('smpp_binds')
    .select(['smpp_users.system_id', 'accounts.email'])
    .where('smpp_binds.expires_at', '>=', now);
  if (filter.userId !== undefined) q = q.where('smpp_binds.smpp_user_id', '=', filter.userId);
  if (filter.accountId !== undefined) q = q.where('smpp_binds.account_id', '=', filter.accountId);
  return q.orderBy('smpp_users.system_id').orderBy('smpp_binds.slot').execute();
}

/**
 * Deletes one bind, named by its user, slot and start (a slot taken again
 * since is another bind); its holder closes it at its next renewal.
 * Returns whether it was live.
 */
export async function dropBind(db: Executor, userId: number, slot: number, since: number, now = Date.now()) {
  const rows = await db
    .deleteFrom('smpp_binds')
    .where('smpp_user_id', '=', userId)
    .where('slot', '=', slot)
    .where('since', '=', since)
    .returning('expires_at')
    .execute();
  return rows.some((r) => Number(r.expires_at) >= now);
}

/** Deletes the user's binds; their holders close them at their next renewal. Returns how many were live. */
export async function dropBinds(db: Executor, userId: number, now = Date.now()): Promise<number> {
  const rows = await db.deleteFrom('smpp_binds').where('smpp_user_id', '=', userId).returning('expires_at').execute();
  return rows.filter((r) => Number(r.expires_at) >= now).length;
}

/** Binds of the user live now (its lease not expired), across the deployment. */
export async function liveBindCount(db: Executor, userId: number, now = Date.now()): Promise<number> {
  const row = await db
    .selectFrom('smpp_binds')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('smpp_user_id', '=', userId)
    .where('expires_at', '>=', now)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export type NewBind = Pick<SmppBindRow, 'smpp_user_id' | 'holder' | 'account_id' | 'mode' | 'address'>;

/**
 * Takes a free slot below `maxBinds` for a new bind, or returns null: a slot
 * is free when it has no row or its lease expired, and taking it is one
 * conditional upsert, so parallel binds in any process never pass the cap.
 */
export async function acquireBindSlot(
  db: Executor,
  bind: NewBind,
  maxBinds: number,
  now = Date.now(),
): Promise<number | null> {
  const taken = await db
    .selectFrom('smpp_binds')
    .select('slot')
    .where('smpp_user_id', '=', bind.smpp_user_id)
    .where('expires_at', '>=', now)
    .execute();
  const busy = new Set(taken.map((r) => r.slot));
  for (let slot = 0; slot < maxBinds; slot++) {
    if (busy.has(slot)) continue;
    const values = { ...bind, slot, since: now, expires_at: now + BIND_LEASE_MS, submitted: 0, delivered: 0 };
    const row = await db
      .insertInto('smpp_binds')
      .values(values)
      .onConflict((oc) =>
        oc.columns(['smpp_user_id', 'slot']).doUpdateSet(values).where('smpp_binds.expires_at', '<', now),
      )
      .returning('slot')
      .executeTakeFirst();
    if (row) return row.slot;
  }
  return null;
}

export interface HeldBind {
  userId: number;
  slot: number;
  /** Counted since the last renewal, added to the row. */
  submitted: number;
  delivered: number;
}

/** Renews one held bind and adds its counters; false when it is no longer this holder's (kicked, removed, expired). */
export async function renewBind(db: Executor, holder: string, bind: HeldBind, now = Date.now()): Promise<boolean> {
  const r = await db
    .updateTable('smpp_binds')
    .set((eb) => ({
      expires_at: now + BIND_LEASE_MS,
      submitted: eb('submitted', '+', bind.submitted),
      delivered: eb('delivered', '+', bind.delivered),
    }))
    .where('smpp_user_id', '=', bind.userId)
    .where('slot', '=', bind.slot)
    .where('holder', '=', holder)
    .where('expires_at', '>=', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function releaseBind(db: Executor, holder: string, userId: number, slot: number): Promise<void> {
  await db
    .deleteFrom('smpp_binds')
    .where('smpp_user_id', '=', userId)
    .where('slot', '=', slot)
    .where('holder', '=', holder)
    .execute();
}
