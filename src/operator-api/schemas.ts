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
    'from and to: dates YYYY-MM-DD from 1970-01-01 to 9998-12-31, to not before from, at most 366 days; by: account, carrier, prefix or day',
  op_number_invalid: 'number: a full international number, digits only',
  op_list_invalid: 'after: a number of the list, 1 to 15 digits; limit: a whole number from 1 to 1000',
  op_reason_invalid: 'reason: no control or invisible formatting characters (NUL, ESC, newlines, U+202E…)',
  op_balance_ceiling: 'The balance would pass 100000000 credits, the most an account holds',
  op_field_unknown: 'The body has a field this operation does not take',
  op_account_archived: 'The account is archived: unarchive it first',
  op_ledger_invalid: 'from and to: real dates YYYY-MM-DD, to not before from; page: a whole number from 1 to 10000',
});

/**
 * A whole number written in decimal digits only (as a path or query parameter is): `0x1`, `1e3`, ` 1` and `1.0`
 * are refused, where z.coerce.number would take them. A number (a JSON body's) is taken as it is.
 */
export const decimal = (code: string, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (/^\d{1,16}$/.test(v) ? Number(v) : Number.NaN) : v),
    z.number({ error: code }).int({ error: code }).min(1, { error: code }).max(max, { error: code }),
  );

/** A JSON body takes only the fields the OpenAPI document names (additionalProperties: false). */
export const jsonBody = <T extends z.ZodRawShape>(shape: T) =>
  z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? 'op_field_unknown' : undefined),
  });

export const AccountsQuery = z.object({
  search: z.string({ error: 'op_page_invalid' }).max(100, { error: 'op_page_invalid' }).default(''),
  page: decimal('op_page_invalid', 10_000).default(1),
});

export const LedgerQuery = z.object({
  from: z.string({ error: 'op_ledger_invalid' }).optional(),
  to: z.string({ error: 'op_ledger_invalid' }).optional(),
  page: decimal('op_ledger_invalid', 10_000).default(1),
});

export const AccountId = z.object({ id: decimal('op_account_missing') });

export const NewAccount = jsonBody({
  email: z.string({ error: 'op_email_invalid' }).max(320, { error: 'op_email_invalid' }),
  credits: z.number({ error: 'op_credits_invalid' }).optional(),
});

/** Characters a reason may not hold: controls (NUL, ESC, newlines) and invisible formatting (U+202E reorders a line). */
const UNSHOWABLE = /[\p{Cc}\p{Cf}]/u;

export const CreditChange = jsonBody({
  amount: z
    .number({ error: 'op_amount_invalid' })
    .refine((n) => n !== 0 && Math.abs(n) <= 100_000_000 && Math.round(n * 10_000) / 10_000 === n, {
      error: 'op_amount_invalid',
    }),
  reason: z
    .string({ error: 'op_reason_required' })
    .trim()
    .min(1, { error: 'op_reason_required' })
    .max(500, { error: 'op_reason_required' })
    .refine((s) => !UNSHOWABLE.test(s), { error: 'op_reason_invalid' }),
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
  account_id: decimal('op_account_missing').nullish(),
});

export const NewPrice = jsonBody({
  ...PriceKey.shape,
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
