import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/engine.js';
import type { LoyaltyMembersTable, LoyaltyMovementsTable, LoyaltyProgramsTable } from './tables.js';

export type LoyaltyProgram = Selectable<LoyaltyProgramsTable>;
export type LoyaltyMember = Selectable<LoyaltyMembersTable>;

/** Program keys are base64url tokens; anything else names no program (and never reaches a query). */
const KEY = /^[A-Za-z0-9_-]{1,64}$/;

export async function insertProgram(db: Executor, values: Insertable<LoyaltyProgramsTable>): Promise<LoyaltyProgram> {
  return db.insertInto('loyalty_programs').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function listPrograms(db: Executor, accountId: number): Promise<LoyaltyProgram[]> {
  return db.selectFrom('loyalty_programs').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** The account's program with that key; another account's program is absent. */
export async function findProgram(
  db: Executor,
  accountId: number,
  loyaltyKey: string,
): Promise<LoyaltyProgram | undefined> {
  if (!KEY.test(loyaltyKey)) return undefined;
  return db
    .selectFrom('loyalty_programs')
    .selectAll()
    .where('loyalty_key', '=', loyaltyKey)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function findMember(db: Executor, programId: number, phone: string): Promise<LoyaltyMember | undefined> {
  return db
    .selectFrom('loyalty_members')
    .selectAll()
    .where('program_id', '=', programId)
    .where('phone', '=', phone)
    .executeTakeFirst();
}

export async function listMembers(db: Executor, programId: number, phone?: string): Promise<LoyaltyMember[]> {
  let query = db.selectFrom('loyalty_members').selectAll().where('program_id', '=', programId);
  if (phone !== undefined) query = query.where('phone', '=', phone);
  return query.orderBy('id').execute();
}

/** Enrolls a member; undefined when the phone is already in the program. */
export async function insertMember(
  db: Executor,
  values: Omit<
    Insertable<LoyaltyMembersTable>,
    'id' | 'stamps' | 'completes' | 'rewards_available' | 'rewards_redeemed'
  >,
): Promise<LoyaltyMember | undefined> {
  return db
    .insertInto('loyalty_members')
    .values(values)
    .onConflict((oc) => oc.columns(['program_id', 'phone']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/**
 * One stamp, in one UPDATE (every right-hand side sees the row before it):
 * the stamp that reaches `required` completes the card, which earns a
 * reward and starts a new card at 0.
 */
export async function addStamp(db: Executor, memberId: number, required: number): Promise<LoyaltyMember> {
  const completes = sql<boolean>`stamps + 1 >= ${required}`;
  return db
    .updateTable('loyalty_members')
    .set({
      stamps: sql`CASE WHEN ${completes} THEN 0 ELSE stamps + 1 END`,
      completes: sql`completes + CASE WHEN ${completes} THEN 1 ELSE 0 END`,
      rewards_available: sql`rewards_available + CASE WHEN ${completes} THEN 1 ELSE 0 END`,
      updated_at: Date.now(),
    })
    .where('id', '=', memberId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Takes one reward when one is available; the member after, or undefined. */
export async function takeReward(db: Executor, memberId: number): Promise<LoyaltyMember | undefined> {
  return db
    .updateTable('loyalty_members')
    .set({
      rewards_available: sql`rewards_available - 1`,
      rewards_redeemed: sql`rewards_redeemed + 1`,
      updated_at: Date.now(),
    })
    .where('id', '=', memberId)
    .where('rewards_available', '>', 0)
    .returningAll()
    .executeTakeFirst();
}

export async function insertMovement(
  db: Executor,
  values: Omit<Insertable<LoyaltyMovementsTable>, 'id'>,
): Promise<void> {
  await db.insertInto('loyalty_movements').values(values).execute();
}

export async function listMovements(db: Executor, memberId: number) {
  return db.selectFrom('loyalty_movements').selectAll().where('member_id', '=', memberId).orderBy('id').execute();
}

/** The account's loyalty programs with their member count and rewards waiting. */
export async function loyaltySummaries(db: Executor, accountId: number) {
  return db
    .selectFrom('loyalty_programs as p')
    .leftJoin('loyalty_members as m', 'm.program_id', 'p.id')
    .select([
      'p.id',
      'p.name',
      'p.stamps_required',
      (eb) => eb.fn.count<number>('m.id').as('members'),
      sql<number>`coalesce(sum(m.rewards_available), 0)`.as('rewards'),
    ])
    .where('p.account_id', '=', accountId)
    .groupBy(['p.id', 'p.name', 'p.stamps_required'])
    .orderBy('p.id')
    .execute();
}
