import { loyaltySummaries } from './store.js';
import type { BaseContext, WithDb } from '../../context.js';
import type { Executor } from '../../db/engine.js';
import { badRequest } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { randomToken } from '../../lib/ids.js';
import { createList, upsertContact } from '../contacts/store.js';
import { requireActiveStaff } from '../staff/service.js';
import {
  addStamp,
  findMember,
  findProgram,
  insertMember,
  insertMovement,
  insertProgram,
  takeReward,
  type LoyaltyMember,
  type LoyaltyProgram,
} from './store.js';

/** The panel's read view of the account's programs. */
export { listMembers, listPrograms, loyaltySummaries, type LoyaltyMember } from './store.js';

defineMessages({
  loyalty_get_01: 'loyalty_programs',
  loyalty_sale_01: 'OK',
  loyalty_contact_get_01: 'loyalty_contacts',
  loyalty_redeem_01: 'reward_redeemed',
  loyalty_02: 'loyalty_key is required',
  loyalty_03: 'No loyalty program of this account has this loyalty_key',
  loyalty_04: 'phone is required: exactly 10 digits',
  loyalty_05: 'customer_name is required, 1 to 100 characters',
  loyalty_06: 'usertool_id is required: a positive integer',
  loyalty_07: 'usertool_id is not an active staff user of this account',
  loyalty_10: 'This phone is not enrolled in the loyalty program',
  loyalty_11: 'This phone is already enrolled in the loyalty program',
  loyalty_12: 'No reward is available to redeem',
});

export const DEFAULT_STAMPS = 10;
export const MAX_STAMPS = 100;

/** Creates a program and the contact list it owns (linked to the tool, so /contacts/* refuses changes to it). */
export async function createLoyalty(
  ctx: BaseContext,
  accountId: number,
  name: string,
  stampsRequired: number,
  appClient = '',
): Promise<LoyaltyProgram> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const list = await createList(trx, { accountId, name: `loyalty: ${name}`, linkedTool: 'loyalty' });
    return insertProgram(trx, {
      account_id: accountId,
      loyalty_key: randomToken(16),
      name,
      app_client: appClient,
      stamps_required: stampsRequired,
      list_id: list.id,
      created_at: Date.now(),
    });
  });
}

export async function requireLoyalty(db: Executor, accountId: number, loyaltyKey: string): Promise<LoyaltyProgram> {
  const program = await findProgram(db, accountId, loyaltyKey);
  if (!program) throw badRequest('loyalty_03');
  return program;
}

interface StaffAction {
  loyalty_key: string;
  phone: string;
  usertool_id: number;
}

export async function enroll(
  ctx: WithDb,
  accountId: number,
  input: StaffAction & { customer_name: string; birthdate?: string },
): Promise<{ program: LoyaltyProgram; member: LoyaltyMember }> {
  const program = await requireLoyalty(ctx.db.kysely, accountId, input.loyalty_key);
  return ctx.db.kysely.transaction().execute(async (trx) => {
    await requireActiveStaff(trx, accountId, input.usertool_id, 'loyalty_07');
    if (await findMember(trx, program.id, input.phone)) throw badRequest('loyalty_11');
    const { contact } = await upsertContact(trx, accountId, program.list_id, {
      country_code: '52',
      number: `52${input.phone}`,
      name: input.customer_name,
      birthday_date: input.birthdate ?? null,
    });
    const now = Date.now();
    const member = await insertMember(trx, {
      account_id: accountId,
      program_id: program.id,
      phone: input.phone,
      name: input.customer_name,
      birthdate: input.birthdate ?? null,
      contact_id: contact.id,
      enrolled_by: input.usertool_id,
      created_at: now,
      updated_at: now,
    });
    // A parallel enrolment of the same phone won the UNIQUE index: this one rolls back.
    if (!member) throw badRequest('loyalty_11');
    return { program, member };
  });
}

/** Runs a staff action on an enrolled member in one transaction with its ledger row. */
async function memberAction(
  ctx: WithDb,
  accountId: number,
  input: StaffAction,
  change: (
    trx: Executor,
    program: LoyaltyProgram,
    member: LoyaltyMember,
  ) => Promise<{ after: LoyaltyMember; kind: 'stamp' | 'redeem'; completed: boolean }>,
): Promise<{ program: LoyaltyProgram; after: LoyaltyMember; completed: boolean }> {
  const program = await requireLoyalty(ctx.db.kysely, accountId, input.loyalty_key);
  return ctx.db.kysely.transaction().execute(async (trx) => {
    await requireActiveStaff(trx, accountId, input.usertool_id, 'loyalty_07');
    const member = await findMember(trx, program.id, input.phone);
    if (!member) throw badRequest('loyalty_10');
    const { after, kind, completed } = await change(trx, program, member);
    await insertMovement(trx, {
      account_id: accountId,
      program_id: program.id,
      member_id: member.id,
      kind,
      stamps_after: after.stamps,
      card_completed: completed ? 1 : 0,
      staff_user_id: input.usertool_id,
      created_at: Date.now(),
    });
    return { program, after, completed };
  });
}

/** One stamp; the stamp that reaches the program's count completes the card. */
export function sale(ctx: WithDb, accountId: number, input: StaffAction) {
  return memberAction(ctx, accountId, input, async (trx, program, member) => {
    const after = await addStamp(trx, member.id, program.stamps_required);
    // Only a completing stamp leaves the card at 0.
    return { after, kind: 'stamp', completed: after.stamps === 0 };
  });
}

/** Redeems one earned reward (contact_current_redeem - 1); refused when none is available. */
export function redeem(ctx: WithDb, accountId: number, input: StaffAction) {
  return memberAction(ctx, accountId, input, async (trx, _program, member) => {
    const after = await takeReward(trx, member.id);
    if (!after) throw badRequest('loyalty_12');
    return { after, kind: 'redeem', completed: false };
  });
}

/** The account's loyalty programs with members and rewards (the panel's Programs page). */
export const loyaltySummariesOf = (ctx: WithDb, accountId: number) => loyaltySummaries(ctx.db.kysely, accountId);
