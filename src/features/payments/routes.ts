import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { cleanCountryCode, cleanNationalNumber } from '../../phone/numbers.js';
import { toCredits } from '../../accounts/credits.js';
import { ApiError, ok } from '../../http/errors.js';
import { emailAddress, jsonSchema, numeric, optionalText, text } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { formatLocal } from '../../lib/time.js';
import { notFoundPage, PAGE_HEADERS, paymentPage } from './page.js';
import { completePayment, findByRequestId, findByToken, sendPaymentRequest } from './service.js';
import { stripeWebhookRoute } from '../../payment-providers/stripe/route.js';
import { paymentSink } from './paid.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const upTo = (max: number) => (s: string) => [...s].length <= max;
const blankIsAbsent = (v: unknown) => (v === '' || v === null ? undefined : v);
const Amount = (code: string) => z.preprocess(blankIsAbsent, numeric(code, code).optional());

const SendBody = z.object({
  number: text('payment_01')
    .transform(cleanNationalNumber)
    .pipe(
      z
        .string()
        .min(1, { error: 'payment_01' })
        .regex(/^\d{1,10}$/, { error: 'payment_02' }),
    ),
  country_code: text('payment_03')
    .transform(cleanCountryCode)
    .pipe(
      z
        .string()
        .min(1, { error: 'payment_03' })
        .regex(/^\+?\d{1,4}$/, { error: 'payment_04' }),
    ),
  template: text('payment_05').pipe(
    z.string().pipe(z.string().trim().min(1, { error: 'payment_05' }).refine(upTo(40), { error: 'payment_06' })),
  ),
  message: text('payment_07').pipe(
    z
      .string()
      .refine((s) => s.trim() !== '', { error: 'payment_07' })
      .refine(upTo(123), { error: 'payment_08' }),
  ),
  amount: Amount('payment_09'),
  name: optionalText('payment_10').pipe(z.string().refine(upTo(150), { error: 'payment_10' }).optional()),
  email: optionalText('payment_11').pipe(
    emailAddress({ max: 100, tooLong: 'payment_11', invalid: 'payment_11' }).optional(),
  ),
});
const GetBody = z.object({ request_id: text('payment_13').pipe(z.string().regex(UUID, { error: 'payment_13' })) });
const CompleteBody = z.object({ amount: Amount('payment_09') });

const envelope = { success: z.boolean(), message: z.string(), status: z.number(), code: z.string() };
const SendReply = z.object({
  ...envelope,
  request_id: z.string().describe('UUID of the payment request'),
  reference: z.string().describe('reference of the SMS that carries the link (webhook confirmations name it)'),
  payment_url: z.string(),
  credit: z.number().describe('credits charged'),
});
const GetReply = z.object({
  ...envelope,
  request_id: z.string(),
  payment_status: z.enum(['pending', 'paid']),
  amount: z.number().nullable(),
  paid_amount: z.number().nullable(),
  currency: z.string(),
  template: z.string(),
  number: z.string(),
  reference: z.string(),
  created_date: z.string(),
  paid_date: z.string().nullable(),
});
const TokenParams = { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] };
const html = { 'text/html': { schema: { type: 'string' } } };

export function paymentsRoutes(api: FastifyInstance, ctx: AppContext) {
  api.post(
    '/paymentrequest/send',
    {
      config: { sendLimited: true },
      schema: {
        tags: ['payments'],
        summary: 'Send a payment link by SMS',
        body: jsonSchema(SendBody),
        response: { 200: jsonSchema(SendReply) },
      },
    },
    async (request) => {
      const b = parse(SendBody, request.body);
      const sent = await sendPaymentRequest(ctx, request.account, {
        number: b.number,
        countryCode: b.country_code,
        template: b.template,
        message: b.message,
        amount: b.amount,
        name: b.name,
        email: b.email,
      });
      return ok('sms_11', 'sent_messages', {
        request_id: sent.requestId,
        reference: sent.reference,
        payment_url: sent.url,
        credit: toCredits(sent.creditUnits),
      });
    },
  );

  api.post(
    '/paymentrequest/get',
    {
      schema: {
        tags: ['payments'],
        summary: 'The state of one of your payment requests',
        body: jsonSchema(GetBody),
        response: { 200: jsonSchema(GetReply) },
      },
    },
    async (request) => {
      const { request_id } = parse(GetBody, request.body);
      const row = await findByRequestId(ctx.db.kysely, request.account.id, request_id);
      if (!row) throw new ApiError(400, 'payment_13');
      return ok('payment_get_01', 'payment_request', {
        request_id: row.request_id,
        payment_status: row.status,
        amount: row.amount_cents === null ? null : row.amount_cents / 100,
        paid_amount: row.paid_amount_cents === null ? null : row.paid_amount_cents / 100,
        currency: row.currency,
        template: row.template,
        number: row.number,
        reference: row.reference,
        created_date: formatLocal(row.created_at),
        paid_date: row.paid_at === null ? null : formatLocal(row.paid_at),
      });
    },
  );
}

export async function paymentsPublicRoutes(app: FastifyInstance, ctx: AppContext) {
  await app.register(async (scope) => stripeWebhookRoute(scope, ctx, paymentSink));

  app.get<{ Params: { token: string } }>(
    '/pay/:token',
    {
      schema: {
        tags: ['payments'],
        summary: 'Payment page of a payment link (HTML, no key)',
        security: [],
        params: TokenParams,
        response: {
          200: { content: html },
          303: { description: "to the provider's hosted checkout (Stripe)", type: 'null' },
          404: { content: html },
        },
      },
    },
    async (request, reply) => {
      const row = await findByToken(ctx.db.kysely, request.params.token);
      if (!row) return reply.code(404).headers(PAGE_HEADERS).send(notFoundPage());
      // A hosted checkout (Stripe) is where a pending request is paid: the short link leads there.
      if (row.checkout_url && row.status === 'pending' && row.checkout_closed_at === null)
        return reply
          .code(303)
          .headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' })
          .redirect(row.checkout_url);
      return reply.headers(PAGE_HEADERS).send(paymentPage(row));
    },
  );

  app.post<{ Params: { token: string } }>(
    '/pay/:token/complete',
    {
      schema: {
        tags: ['payments'],
        summary: "Completes a payment with the provider (the page's form; amount only when the request has none)",
        security: [],
        params: TokenParams,
        body: jsonSchema(CompleteBody),
        response: {
          200: { content: html },
          400: { content: html },
          402: { content: html },
          404: { content: html },
          409: { content: html },
        },
      },
    },
    async (request, reply) => {
      const parsed = CompleteBody.safeParse(request.body ?? {});
      const result = await completePayment(ctx, request.params.token, parsed.success ? parsed.data.amount : undefined);
      reply.headers(PAGE_HEADERS);
      switch (result.kind) {
        case 'not_found':
          return reply.code(404).send(notFoundPage());
        case 'already_paid':
          return reply.code(409).send(paymentPage(result.request));
        case 'invalid_amount':
          return reply
            .code(400)
            .send(paymentPage(result.request, { error: 'Escribe un monto de 15 a 110,000 con hasta dos decimales.' }));
        case 'declined':
          return reply
            .code(402)
            .send(paymentPage(result.request, { error: 'El pago fue rechazado. Intenta de nuevo.' }));
        case 'paid':
          return reply.send(paymentPage(result.request, { done: true }));
      }
    },
  );
}
