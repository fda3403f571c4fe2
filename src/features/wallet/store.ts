import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/engine.js';
import type { WalletMembersTable, WalletMovementsTable, WalletProgramsTable } from './tables.js';

export type WalletProgram = Selectable<WalletProgramsTable>;
export type WalletMember = Selectable<WalletMembersTable>;

/** The largest balance a member may hold: 10,000,000.00 in cents. */
export const MAX_BALANCE_CENTS = 1_000_000_000;

/** Program keys are base64url tokens; anything else names no program (and never reaches a query). */
const KEY = /^[A-Za-z0-9_-]{1,64}$/;

export async function insertProgram(db: Executor, values: Insertable<WalletProgramsTable>): Promise<WalletProgram> {
  return db.insertInto('wallet_programs').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function listPrograms(db: Executor, accountId: number): Promise<WalletProgram[]> {
  return db.selectFrom('wallet_programs').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** The account's program with that key; another account's program is absent. */
export async function findProgram(
  db: Executor,
  accountId: number,
  walletKey: string,
): Promise<WalletProgram | undefined> {
  if (!KEY.test(walletKey)) return undefined;
  return db
    .selectFrom('wallet_programs')
    .selectAll()
    .where('wallet_key', '=', walletKey)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function findMember(db: Executor, walletId: number, phone: string): Promise<WalletMember | undefined> {
  return db
    .selectFrom('wallet_members')
    .selectAll()
    .where('wallet_id', '=', walletId)
    .where('phone', '=', phone)
    .executeTakeFirst();
}

export async function listMembers(db: Executor, walletId: number, phone?: string): Promise<WalletMember[]> {
  let query = db.selectFrom('wallet_members').selectAll().where('wallet_id', '=', walletId);
  if (phone !== undefined) query = query.where('phone', '=', phone);
  return query.orderBy('id').execute();
}

/** Enrolls a member; undefined when the phone is already in the wallet. */
export async function insertMember(
  db: Executor,
  values: Omit<Insertable<WalletMembersTable>, 'id' | 'balance_cents'>,
): Promise<WalletMember | undefined> {
  return db
    .insertInto('wallet_members')
    .values(values)
    .onConflict((oc) => oc.columns(['wallet_id', 'phone']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Adds to a balance unless it would pass MAX_BALANCE_CENTS; the new balance, or undefined. */
export async function creditMember(db: Executor, memberId: number, cents: number): Promise<number | undefined> {
  const row = await db
    .updateTable('wallet_members')
    .set({ balance_cents: sql`balance_cents + ${cents}`, updated_at: Date.now() })
    .where('id', '=', memberId)
    .where(sql<boolean>`balance_cents + ${cents} <= ${MAX_BALANCE_CENTS}`)
    .returning('balance_cents')
    .executeTakeFirst();
  return row?.balance_cents;
}

/** Takes from a balance only when it covers the amount; the new balance, or undefined. */
export async function debitMember(db: Executor, memberId: number, cents: number): Promise<number | undefined> {
  const row = await db
    .updateTable('wallet_members')
    .set({ balance_cents: sql`balance_cents - ${cents}`, updated_at: Date.now() })
    .where('id', '=', memberId)
    .where('balance_cents', '>=', cents)
    .returning('balance_cents')
    .executeTakeFirst();
  return row?.balance_cents;
}

export async function insertMovement(
  db: Executor,
  values: Omit<Insertable<WalletMovementsTable>, 'id'>,
): Promise<void> {
  await db.insertInto('wallet_movements').values(values).execute();
}

export async function listMovements(db: Executor, memberId: number) {
  return db.selectFrom('wallet_movements').selectAll().where('member_id', '=', memberId).orderBy('id').execute();
}

/** The account's wallet programs with their member count and total balance. */
export async function walletSummaries(db: Executor, accountId: number) {
  return db
    .selectFrom('wallet_programs as w')
    .leftJoin('wallet_members as m', 'm.wallet_id', 'w.id')
    .select([
      'w.id',
      'w.name',
      'w.app_client',
      (eb) => eb.fn.count<number>('m.id').as('members'),
      sql<number>`coalesce(sum(m.balance_cents), 0)`.as('cents'),
    ])
    .where('w.account_id', '=', accountId)
    .groupBy(['w.id', 'w.name', 'w.app_client'])
    .orderBy('w.id')
    .execute();
}
