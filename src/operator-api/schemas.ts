import { z } from 'zod';
import { CHANNELS } from '../channels.js';
import { defineMessages } from '../http/codes.js';

defineMessages({
  op_token: 'Send Authorization: Bearer <operator token> (mensajero operator-tokens add)',
  op_read_only: 'This token is read-only: it may only GET',
  op_address: 'This address is not in OPERATOR_API_ALLOW_IP',
  op_account_missing: 'No account with that id',
  op_email_invalid: 'email: a valid email address',
  op_email_taken: 'An account with that email exists',
  op_credits_invalid: 'credits: 0 to 100000000 with at most 4 decimals',
  op_amount_invalid: 'amount: a number of credits other than 0, at most 100000000 either way, at most 4 decimals',
  op_reason_required: 'reason: why the balance changes (1 to 500 characters)',
  op_below_zero: 'The balance cannot go below zero',
  op_parent_archived: 'The account stays archived: unarchive its parent first',
  op_page_invalid: 'page: a whole number from 1 to 10000; search: at most 100 characters',
  op_margins_invalid:
    'from and to: dates YYYY-MM-DD, to not before from, at most 366 days; by: account, carrier, prefix or day',
  op_number_invalid: 'number: a full international number, digits only',
  op_list_invalid: 'after: a number, digits only; limit: a whole number from 1 to 1000',
});

export const AccountsQuery = z.object({
  search: z.string({ error: 'op_page_invalid' }).max(100, { error: 'op_page_invalid' }).default(''),
  page: z.coerce
    .number({ error: 'op_page_invalid' })
    .int({ error: 'op_page_invalid' })
    .min(1, { error: 'op_page_invalid' })
    .max(10_000, { error: 'op_page_invalid' })
    .default(1),
});

export const AccountId = z.object({
  id: z.coerce
    .number({ error: 'op_account_missing' })
    .int({ error: 'op_account_missing' })
    .min(1, { error: 'op_account_missing' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'op_account_missing' }),
});

export const NewAccount = z.object({
  email: z.string({ error: 'op_email_invalid' }).max(320, { error: 'op_email_invalid' }),
  credits: z.number({ error: 'op_credits_invalid' }).optional(),
});

export const CreditChange = z.object({
  amount: z
    .number({ error: 'op_amount_invalid' })
    .refine((n) => n !== 0 && Math.abs(n) <= 100_000_000 && Math.round(n * 10_000) / 10_000 === n, {
      error: 'op_amount_invalid',
    }),
  reason: z
    .string({ error: 'op_reason_required' })
    .trim()
    .min(1, { error: 'op_reason_required' })
    .max(500, { error: 'op_reason_required' }),
});

export const MarginsQuery = z.object({
  from: z.string({ error: 'op_margins_invalid' }).regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'op_margins_invalid' }),
  to: z.string({ error: 'op_margins_invalid' }).regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'op_margins_invalid' }),
  by: z.enum(['account', 'carrier', 'prefix', 'day'], { error: 'op_margins_invalid' }).default('account'),
});

/** Who made a change through the API, for the audit log. */
export interface ApiActor {
  actor: string;
  address: string | null;
}

export const PriceKey = z.object({
  channel: z.enum(CHANNELS, { error: 'op_price_invalid' }),
  prefix: z.string({ error: 'op_price_invalid' }).regex(/^\d{1,15}$/, { error: 'op_price_invalid' }),
  account_id: z.coerce.number({ error: 'op_account_missing' }).int().min(1).max(Number.MAX_SAFE_INTEGER).nullish(),
});

export const NewPrice = PriceKey.extend({
  credits: z
    .number({ error: 'op_price_invalid' })
    .min(0, { error: 'op_price_invalid' })
    .max(1_000_000, { error: 'op_price_invalid' })
    .refine((n) => Math.round(n * 10_000) / 10_000 === n, { error: 'op_price_invalid' }),
});

defineMessages({
  op_price_invalid:
    'channel: sms, rcs, chatapp or voice; prefix: 1 to 15 digits with the country code; credits: 0 to 1000000, at most 4 decimals',
});
