import { walletSummaries } from './store.js';
import type { BaseContext, WithDb } from '../../context.js';
import type { Executor } from '../../db/engine.js';
import { badRequest } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { randomToken } from '../../lib/ids.js';
import { createList, upsertContact } from '../contacts/store.js';
import { requireActiveStaff } from '../staff/service.js';
import {
  creditMember,
  debitMember,
  findMember,
  findProgram,
  insertMember,
  insertMovement,
  insertProgram,
  type WalletMember,
  type WalletProgram,
} from './store.js';

/** The panel's read view of the account's programs. */
export { listMembers, listPrograms, walletSummaries, type WalletMember } from './store.js';

defineMessages({
  wallets_get_01: 'wallets',
  wallet_contact_add_01: 'contact_added',
  wallet_contact_get_01: 'wallet_contacts',
  wallet_balance_01: 'balance_updated',
  wallet_sale_01: 'sale_registered',
  wallet_02: 'wallet_key is required',
  wallet_03: 'No wallet of this account has this wallet_key',
  wallet_04: 'phone is required: exactly 10 digits',
  wallet_05: 'customer_name is required, 1 to 100 characters',
  wallet_06: 'usertool_id is required: a positive integer',
  wallet_07: 'usertool_id is not an active staff user of this account',
  wallet_08: 'transaction_type is required: 0 add or 1 redeem',
  wallet_09: 'transaction_amount must be from 0.01 to 1000000 with at most two decimals (required to add)',
  wallet_10: 'This phone is not enrolled in the wallet',
  wallet_11: 'This phone is already enrolled in the wallet',
  wallet_12: 'The balance does not cover the redeem',
  wallet_13: 'The balance would exceed 10000000',
});

export const ADD = 0;
export const REDEEM = 1;

/** Creates a program and the contact list it owns (linked to the tool, so /contacts/* refuses changes to it). */
export async function createWallet(
  ctx: BaseContext,
  accountId: number,
  name: string,
  appClient = '',
): Promise<WalletProgram> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const list = await createList(trx, { accountId, name: `wallet: ${name}`, linkedTool: 'wallet' });
    return insertProgram(trx, {
      account_id: accountId,
      wallet_key: randomToken(16),
      name,
      app_client: appClient,
      list_id: list.id,
      created_at: Date.now(),
    });
  });
}

export async function requireWallet(db: Executor, accountId: number, walletKey: string): Promise<WalletProgram> {
  const program = await findProgram(db, accountId, walletKey);
  if (!program) throw badRequest('wallet_03');
  return program;
}

async function requireMember(db: Executor, program: WalletProgram, phone: string): Promise<WalletMember> {
  const member = await findMember(db, program.id, phone);
  if (!member) throw badRequest('wallet_10');
  return member;
}

export async function enroll(
  ctx: WithDb,
  accountId: number,
  input: { wallet_key: string; phone: string; customer_name: string; usertool_id: number },
): Promise<WalletMember> {
  const program = await requireWallet(ctx.db.kysely, accountId, input.wallet_key);
  return ctx.db.kysely.transaction().execute(async (trx) => {
    await requireActiveStaff(trx, accountId, input.usertool_id, 'wallet_07');
    if (await findMember(trx, program.id, input.phone)) throw badRequest('wallet_11');
    const { contact } = await upsertContact(trx, accountId, program.list_id, {
      country_code: '52',
      number: `52${input.phone}`,
      name: input.customer_name,
    });
    const now = Date.now();
    const member = await insertMember(trx, {
      account_id: accountId,
      wallet_id: program.id,
      phone: input.phone,
      name: input.customer_name,
      contact_id: contact.id,
      enrolled_by: input.usertool_id,
      created_at: now,
      updated_at: now,
    });
    // A parallel enrolment of the same phone won the UNIQUE index: this one rolls back.
    if (!member) throw badRequest('wallet_11');
    return member;
  });
}

export interface Movement {
  wallet_key: string;
  phone: string;
  type: typeof ADD | typeof REDEEM;
  /** Required to add; a redeem without it takes the whole balance. */
  cents?: number;
  /** The staff user who makes it; null for an operator movement (/wallet/balance/update). */
  staffUserId: number | null;
}

/**
 * Moves a member's balance and writes its ledger row in one transaction.
 * Each change is one conditional UPDATE, so parallel redeems never take a
 * balance below zero. Returns the new balance in cents.
 */
export async function move(ctx: WithDb, accountId: number, m: Movement): Promise<number> {
  const program = await requireWallet(ctx.db.kysely, accountId, m.wallet_key);
  return ctx.db.kysely.transaction().execute(async (trx) => {
    if (m.staffUserId !== null) await requireActiveStaff(trx, accountId, m.staffUserId, 'wallet_07');
    const member = await requireMember(trx, program, m.phone);
    let cents: number;
    let balance: number | undefined;
    if (m.type === ADD) {
      cents = m.cents!;
      balance = await creditMember(trx, member.id, cents);
      if (balance === undefined) throw badRequest('wallet_13');
    } else {
      // Redeeming "everything" takes the balance read here; if a parallel redeem took part of it first, the conditional UPDATE refuses.
      cents = m.cents ?? member.balance_cents;
      balance = cents > 0 ? await debitMember(trx, member.id, cents) : undefined;
      if (balance === undefined) throw badRequest('wallet_12');
    }
    await insertMovement(trx, {
      account_id: accountId,
      wallet_id: program.id,
      member_id: member.id,
      kind: m.type === ADD ? 'add' : 'redeem',
      amount_cents: cents,
      balance_after_cents: balance,
      staff_user_id: m.staffUserId,
      source: m.staffUserId === null ? 'balance_update' : 'sale',
      created_at: Date.now(),
    });
    return balance;
  });
}

/** The account's wallet programs with members and balances (the panel's Programs page). */
export const walletSummariesOf = (ctx: WithDb, accountId: number) => walletSummaries(ctx.db.kysely, accountId);
