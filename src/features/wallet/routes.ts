import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest, ok } from '../../http/errors.js';
import { integer, jsonSchema, optionalText, text } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { formatLocal } from '../../lib/time.js';
import { Envelope, name, staffId, tenDigits, toolCopy } from '../staff/fields.js';
import { amountCents, fromCents, optionalAmountCents } from './money.js';
import { ADD, enroll, listMembers, listPrograms, move, requireWallet, type WalletMember } from './service.js';

const walletKey = text('wallet_02').pipe(z.string().trim().min(1, { error: 'wallet_02' }));
const transactionType = integer('wallet_08').pipe(z.union([z.literal(0), z.literal(1)], { error: 'wallet_08' }));

const ContactAddBody = z.object({
  wallet_key: walletKey,
  phone: tenDigits('wallet_04'),
  customer_name: name('wallet_05'),
  usertool_id: staffId('wallet_06'),
});
const ContactGetBody = z.object({
  wallet_key: walletKey,
  phone: optionalText('wallet_04').pipe(
    z
      .string()
      .trim()
      .regex(/^\d{10}$/, { error: 'wallet_04' })
      .optional(),
  ),
});
const BalanceUpdateBody = z.object({
  wallet_key: walletKey,
  phone: tenDigits('wallet_04'),
  transaction_type: transactionType,
  transaction_amount: amountCents('wallet_09'),
});
const SaleBody = z.object({
  wallet_key: walletKey,
  phone: tenDigits('wallet_04'),
  transaction_type: transactionType,
  usertool_id: staffId('wallet_06'),
  transaction_amount: optionalAmountCents('wallet_09'),
});

const WalletItem = z.object({
  wallet_name: z.string(),
  wallet_key: z.string(),
  wallet_app_client: z.string(),
  wallet_plan_type: z.literal('balance'),
});
const WalletContact = z.object({
  contact_name: z.string(),
  contact_phone: z.string(),
  contact_balance: z.number().describe('currency units, two decimals at most'),
  contact_creation_date: z.string().describe('YYYY-MM-DD HH:MM:SS, Mexico City'),
});
const BalanceReply = z.object({ ...Envelope, balance: z.number().describe('the new balance, currency units') });

const toContact = (m: WalletMember): z.infer<typeof WalletContact> => ({
  contact_name: m.name,
  contact_phone: m.phone,
  contact_balance: fromCents(m.balance_cents),
  contact_creation_date: formatLocal(m.created_at),
});

const tags = ['wallet'];

export function walletRoutes(api: FastifyInstance, ctx: AppContext) {
  programRoutes(api, ctx);
  contactRoutes(api, ctx);
  balanceRoutes(api, ctx);
}

/** POST /wallet/get: the account's wallet programs. */
function programRoutes(api: FastifyInstance, ctx: AppContext): void {
  api.post(
    '/wallet/get',
    {
      schema: {
        tags,
        summary: 'List the wallet programs of the account',
        response: {
          200: jsonSchema(z.object({ ...Envelope, result: z.array(WalletItem), wallets: toolCopy(WalletItem) })),
        },
      },
    },
    async (request) => {
      const programs = (await listPrograms(ctx.db.kysely, request.account.id)).map((p) => ({
        wallet_name: p.name,
        wallet_key: p.wallet_key,
        wallet_app_client: p.app_client,
        wallet_plan_type: 'balance' as const,
      }));
      return ok('wallets_get_01', 'wallets', { result: programs, wallets: programs });
    },
  );
}

/** POST /wallet/contact/add and /wallet/contact/get: enrolling and reading contacts. */
function contactRoutes(api: FastifyInstance, ctx: AppContext): void {
  api.post(
    '/wallet/contact/add',
    {
      schema: {
        tags,
        summary: 'Enroll a contact in a wallet (balance 0), by an active staff user',
        body: jsonSchema(ContactAddBody),
        response: { 200: jsonSchema(BalanceReply) },
      },
    },
    async (request) => {
      const input = parse(ContactAddBody, request.body);
      const member = await enroll(ctx, request.account.id, input);
      return ok('wallet_contact_add_01', 'contact_added', { balance: fromCents(member.balance_cents) });
    },
  );

  api.post(
    '/wallet/contact/get',
    {
      schema: {
        tags,
        summary: "The wallet's contacts and their balances; phone filters to one",
        body: jsonSchema(ContactGetBody),
        response: {
          200: jsonSchema(z.object({ ...Envelope, result: z.array(WalletContact), contacts: toolCopy(WalletContact) })),
        },
      },
    },
    async (request) => {
      const input = parse(ContactGetBody, request.body);
      const program = await requireWallet(ctx.db.kysely, request.account.id, input.wallet_key);
      const contacts = (await listMembers(ctx.db.kysely, program.id, input.phone)).map(toContact);
      return ok('wallet_contact_get_01', 'wallet_contacts', { result: contacts, contacts });
    },
  );
}

/** POST /wallet/balance/update and /wallet/sale: movements of a contact's balance. */
function balanceRoutes(api: FastifyInstance, ctx: AppContext): void {
  api.post(
    '/wallet/balance/update',
    {
      schema: {
        tags,
        summary: 'Operator movement (no staff user): 0 adds, 1 redeems transaction_amount',
        body: jsonSchema(BalanceUpdateBody),
        response: { 200: jsonSchema(BalanceReply) },
      },
    },
    async (request) => {
      const input = parse(BalanceUpdateBody, request.body);
      const cents = await move(ctx, request.account.id, {
        wallet_key: input.wallet_key,
        phone: input.phone,
        type: input.transaction_type,
        cents: input.transaction_amount,
        staffUserId: null,
      });
      return ok('wallet_balance_01', 'balance_updated', { balance: fromCents(cents) });
    },
  );

  api.post(
    '/wallet/sale',
    {
      schema: {
        tags,
        summary:
          'A sale by a staff user: 0 adds transaction_amount (required), 1 redeems it (the whole balance when absent)',
        body: jsonSchema(SaleBody),
        response: { 200: jsonSchema(BalanceReply) },
      },
    },
    async (request) => {
      const input = parse(SaleBody, request.body);
      if (input.transaction_type === ADD && input.transaction_amount === undefined) throw badRequest('wallet_09');
      const cents = await move(ctx, request.account.id, {
        wallet_key: input.wallet_key,
        phone: input.phone,
        type: input.transaction_type,
        cents: input.transaction_amount,
        staffUserId: input.usertool_id,
      });
      return ok('wallet_sale_01', 'sale_registered', { balance: fromCents(cents) });
    },
  );
}
