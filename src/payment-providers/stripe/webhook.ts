import { createHmac } from 'node:crypto';
import type { AppContext, WithDb } from '../../context.js';
import { isUniqueViolation } from '../../db/engine.js';
import { ApiError } from '../../http/errors.js';
import { sameDigest } from '../../lib/secrets.js';
import type { PaymentSink } from '../provider.js';
import { STRIPE } from './settings.js';
import { recordRejection } from '../../carriers/providers/store.js';

/** Stripe's default tolerance: a signature older (or newer) than 5 minutes is a replay. */
export const TOLERANCE_SECONDS = 300;

/**
 * Checks a `Stripe-Signature` header (https://docs.stripe.com/webhooks#verify-manually):
 * `t=<unix seconds>,v1=<hex>[,v1=…]`, v1 = HMAC-SHA256(secret, `${t}.${raw body}`),
 * compared in constant time; t within the tolerance. Returns why it fails, or null.
 */
export function signatureProblem(
  header: string | undefined,
  raw: string,
  secret: string,
  nowMs = Date.now(),
): string | null {
  if (!header) return 'missing_signature';
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const v1 = parts.filter(([k, v]) => k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/i.test(v)).map(([, v]) => v!);
  if (!t || !/^\d{1,12}$/.test(t) || v1.length === 0) return 'malformed_signature';
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex');
  if (!v1.some((v) => sameDigest(v, expected))) return 'bad_signature';
  if (Math.abs(nowMs / 1000 - Number(t)) > TOLERANCE_SECONDS) return 'stale_timestamp';
  return null;
}

interface StripeEvent {
  id: string;
  type: string;
  data: {
    object: {
      id?: string;
      object?: string;
      payment_status?: string;
      amount_total?: number;
      payment_intent?: string | null;
    };
  };
}

function asEvent(raw: string): StripeEvent | undefined {
  try {
    const e = JSON.parse(raw);
    if (
      typeof e?.id === 'string' &&
      e.id.length <= 255 &&
      typeof e.type === 'string' &&
      typeof e.data?.object === 'object' &&
      e.data.object
    )
      return e;
  } catch {
    /* not JSON */
  }
  return undefined;
}

type Outcome = 'applied' | 'duplicate' | 'ignored';

async function note(
  ctx: WithDb,
  outcome: Outcome,
  fields: { eventId?: string; type?: string; reason?: string; remote?: string },
): Promise<void> {
  await ctx.db.kysely
    .insertInto('payment_webhooks')
    .values({
      provider: STRIPE,
      event_id: fields.eventId ?? null,
      event_type: fields.type?.slice(0, 100) ?? null,
      outcome,
      reason: fields.reason ?? null,
      remote_address: fields.remote ?? null,
      received_at: Date.now(),
    })
    .execute();
}

/** Session events: what each does to the payment request (docs/operators/payments-stripe.md). */
const PAID = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);
const CLOSED: Record<string, string> = {
  'checkout.session.expired': 'expired',
  'checkout.session.async_payment_failed': 'payment_failed',
};

/**
 * One webhook POST. Unsigned, wrongly signed or stale ones are refused (400)
 * and counted (recordRejection); an event id already applied is a replay:
 * acknowledged (200, so Stripe stops resending) and recorded, never applied twice. The applied
 * record and its effects share one transaction, and its unique index makes
 * parallel deliveries of one event apply once. What an event reports goes to `sink`.
 */
export async function handleStripeWebhook(
  ctx: AppContext,
  sink: PaymentSink,
  webhookSecret: string,
  raw: string,
  signature: string | undefined,
  remote: string,
): Promise<Outcome> {
  const problem = signatureProblem(signature, raw, webhookSecret);
  const event = problem ? undefined : asEvent(raw);
  if (problem || !event) {
    // Counted with the other refused provider webhooks (`carriers rejections`), not logged one row each.
    await recordRejection(ctx, STRIPE, problem ?? 'malformed_event', remote);
    throw new ApiError(400, 'payment_webhook_01');
  }
  const session = event.data.object;
  const relevant =
    session.object === 'checkout.session' &&
    typeof session.id === 'string' &&
    (PAID.has(event.type) || event.type in CLOSED);
  if (!relevant) {
    await note(ctx, 'ignored', { eventId: event.id, type: event.type, remote });
    return 'ignored';
  }
  try {
    await ctx.db.kysely.transaction().execute(async (trx) => {
      await trx
        .insertInto('payment_webhooks')
        .values({
          provider: STRIPE,
          event_id: event.id,
          event_type: event.type,
          outcome: 'applied',
          reason: null,
          remote_address: remote,
          received_at: Date.now(),
        })
        .execute();
      const checkout = { provider: STRIPE, checkoutId: session.id! };
      if (PAID.has(event.type)) {
        // checkout.session.completed of a delayed method (OXXO, SPEI) arrives unpaid; async_payment_succeeded follows.
        if (session.payment_status !== 'paid') return;
        await sink.paid(trx, {
          ...checkout,
          amountCents: Number.isSafeInteger(session.amount_total) ? session.amount_total! : null,
          providerRef: typeof session.payment_intent === 'string' ? session.payment_intent : session.id!,
        });
      } else await sink.closed(trx, { ...checkout, reason: CLOSED[event.type] });
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await note(ctx, 'duplicate', { eventId: event.id, type: event.type, remote });
    return 'duplicate';
  }
  ctx.worker.nudge();
  return 'applied';
}
