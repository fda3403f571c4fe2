import type { Insertable, Selectable } from 'kysely';
import { affected, type Executor } from '../../db/engine.js';
import type { StaffUsersTable } from './tables.js';

export type StaffUser = Selectable<StaffUsersTable>;

export async function listStaff(db: Executor, accountId: number): Promise<StaffUser[]> {
  return db.selectFrom('staff_users').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

export async function insertStaff(
  db: Executor,
  values: Omit<Insertable<StaffUsersTable>, 'id' | 'status' | 'disabled_at'>,
): Promise<StaffUser> {
  return db.insertInto('staff_users').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Active staff of the account that share the number, the name or the password with a new user. */
export async function findActiveClashes(
  db: Executor,
  accountId: number,
  clash: { number: string; name_key: string; password_fingerprint: string },
): Promise<StaffUser[]> {
  return db
    .selectFrom('staff_users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .where((eb) =>
      eb.or([
        eb('number', '=', clash.number),
        eb('name_key', '=', clash.name_key),
        eb('password_fingerprint', '=', clash.password_fingerprint),
      ]),
    )
    .execute();
}

/** Disables the account's active staff user with that number; false when there is none. */
export async function disableStaffByNumber(db: Executor, accountId: number, number: string): Promise<boolean> {
  const result = await db
    .updateTable('staff_users')
    .set({ status: 'disabled', disabled_at: Date.now() })
    .where('account_id', '=', accountId)
    .where('number', '=', number)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return affected(result) > 0;
}

/** Whether the id names an active staff user of this account (another account's user is absent). */
export async function isActiveStaff(db: Executor, accountId: number, staffUserId: number): Promise<boolean> {
  const row = await db
    .selectFrom('staff_users')
    .select('id')
    .where('id', '=', staffUserId)
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return row !== undefined;
}

/** The account's staff users as a read view (at most 500, no secrets). */
export async function staffSummaries(db: Executor, accountId: number) {
  return db
    .selectFrom('staff_users')
    .select(['id', 'name', 'type', 'business_name', 'status'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(500)
    .execute();
}
