import { v7 as uuidv7 } from 'uuid';
import type { AppContext, WithConfig } from '../../context.js';
import type { AuthenticatedAccount } from '../../accounts/index.js';
import { badRequest } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { randomToken } from '../../lib/ids.js';
import { send, type SendContext } from '../../messaging/send.js';
import { channelNumbers } from '../../phone/accepted.js';
import { gsm7Length, toGsm7 } from '../../text/gsm7.js';
import { findByToken, insertPaymentRequest, type PaymentRequest } from './store.js';
import { recordPayment } from './paid.js';
export { findByRequestId, findByToken } from './store.js';

defineMessages({
  payment_01: 'number is required',
  payment_02: 'number must be digits only, at most 10, and a mobile or geographic number of the country',
  payment_03: 'country_code is required',
  payment_04: 'country_code is not a covered country',
  payment_05: 'template is required',
  payment_06: 'template is longer than 40 characters',
  payment_07: 'message is required',
  payment_08: 'message is longer than 123 characters',
  payment_09: 'amount must be a number from 15 to 110000 with at most two decimals',
  payment_10: 'name is longer than 150 characters',
  payment_11: 'email is not a valid address (at most 100 characters)',
  payment_12: 'message plus the payment link is longer than 160 GSM-7 characters',
  payment_13: 'you have no payment request with this request_id',
  payment_get_01: 'payment_request',
  payment_14: 'amount is required: the payment provider needs it to open its checkout',
  payment_provider_01: 'the payment provider refused to open the checkout',
  payment_provider_02: 'the payment provider is unavailable; nothing was sent or charged, try again later',
  payment_webhook_01: 'webhook refused: missing, wrong or stale signature, or not an event',
});

export const MIN_AMOUNT = 15;
export const MAX_AMOUNT = 110_000;
const SMS_LIMIT = 160;

/** Integer cents of an amount within the limits, or undefined (out of range, or finer than a cent). */
export function amountToCents(amount: number): number | undefined {
  if (!Number.isFinite(amount) || amount < MIN_AMOUNT || amount > MAX_AMOUNT) return undefined;
  const cents = Math.round(amount * 100);
  return Math.abs(cents - amount * 100) < 1e-6 ? cents : undefined;
}

export const coveredCountries = (ctx: WithConfig): string[] =>
  ctx.config.PAYMENT_COUNTRY_CODES.split(',').map((c) => c.trim());

export const payLink = (ctx: WithConfig, token: string): string => `${ctx.config.publicBaseUrl}/pay/${token}`;

export interface SendInput {
  number: string;
  countryCode: string;
  template: string;
  message: string;
  amount?: number;
  name?: string;
  email?: string;
}

/**
 * Creates the request and, in the same transaction, sends its link by SMS
 * through the messaging pipeline, charged like any SMS (sms_07 when the
 * balance does not cover it: then nothing is created).
 */
export async function sendPaymentRequest(
  ctx: SendContext & Pick<AppContext, 'paymentProvider'>,
  account: AuthenticatedAccount,
  input: SendInput,
) {
  const countryCode = input.countryCode.replace(/^\+/, '');
  if (!coveredCountries(ctx).includes(countryCode)) throw badRequest('payment_04');
  // The link goes by SMS: the SMS number rule (its countries, no premium or toll-free ranges).
  const refused = channelNumbers(ctx.config, 'sms').refusal(countryCode, input.number);
  if (refused) throw badRequest(refused === 'country' ? 'payment_04' : 'payment_02');
  const amountCents = input.amount === undefined ? null : amountToCents(input.amount);
  if (amountCents === undefined) throw badRequest('payment_09');

  const token = randomToken(9);
  const url = payLink(ctx, token);
  const text = `${toGsm7(input.message)} ${url}`;
  if (gsm7Length(text) > SMS_LIMIT)
    throw badRequest('payment_12', undefined, { max_message_length: SMS_LIMIT - gsm7Length(url) - 1 });

  const requestId = uuidv7();
  const provider = ctx.paymentProvider;
  // Before the transaction: a provider that is down refuses the send (nothing debited). Its idempotency key is the request_id.
  const checkout = await provider.createCheckout({
    requestId,
    amountCents,
    currency: ctx.config.PAYMENT_CURRENCY,
    concept: input.template,
    returnUrl: url,
  });
  const [sent] = await send(
    ctx,
    [
      {
        accountId: account.id,
        channel: 'sms',
        source: 'payment',
        recipients: [{ countryCode, number: `${countryCode}${input.number}` }],
        text,
        campaignName: `Payment ${input.template}`,
        meta: { payment_request_id: requestId },
        trafficClass: 'transactional',
      },
    ],
    'queued',
    async (trx, [result]) => {
      await insertPaymentRequest(trx, {
        request_id: requestId,
        token,
        account_id: account.id,
        message_id: result.messageIds[0],
        reference: result.references[0].reference,
        country_code: countryCode,
        number: `${countryCode}${input.number}`,
        template: input.template,
        message: input.message,
        amount_cents: amountCents,
        currency: ctx.config.PAYMENT_CURRENCY,
        name: input.name ?? null,
        email: input.email ?? null,
        provider: provider.name,
        checkout_id: checkout.checkoutId,
        checkout_url: checkout.url ?? null,
        checkout_closed_at: null,
        checkout_closed_reason: null,
        provider_ref: null,
        paid_amount_cents: null,
        created_at: Date.now(),
        paid_at: null,
      });
    },
  );
  return { requestId, url, reference: sent.references[0].reference, creditUnits: sent.creditUnits };
}

export type CompletionResult =
  | { kind: 'not_found' }
  | { kind: 'already_paid'; request: PaymentRequest }
  | { kind: 'invalid_amount'; request: PaymentRequest }
  | { kind: 'declined'; request: PaymentRequest; reason: string }
  | { kind: 'paid'; request: PaymentRequest };

/**
 * The payer completes a request on its page. The provider's confirmation is
 * idempotent per checkout, and pending → paid is one conditional update, so
 * parallel completions pay once: one answer is `paid`, the others `already_paid`.
 */
export async function completePayment(
  ctx: Pick<AppContext, 'db' | 'worker' | 'paymentProvider'>,
  token: string,
  enteredAmount: number | undefined,
): Promise<CompletionResult> {
  const request = await findByToken(ctx.db.kysely, token);
  if (!request) return { kind: 'not_found' };
  if (request.status === 'paid') return { kind: 'already_paid', request };
  const cents = request.amount_cents ?? (enteredAmount === undefined ? undefined : amountToCents(enteredAmount));
  if (cents === undefined) return { kind: 'invalid_amount', request };
  const outcome = await ctx.paymentProvider.confirm({
    checkoutId: request.checkout_id,
    requestId: request.request_id,
    amountCents: cents,
    currency: request.currency,
  });
  if (!outcome.ok) return { kind: 'declined', request, reason: outcome.reason };
  const paid = await ctx.db.kysely
    .transaction()
    .execute((trx) => recordPayment(trx, request.id, cents, outcome.providerRef));
  ctx.worker.nudge();
  if (!paid) return { kind: 'already_paid', request: (await findByToken(ctx.db.kysely, token)) ?? request };
  return { kind: 'paid', request: paid };
}
