import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import type { PaymentSink } from '../provider.js';
import { loadStripeSettings } from './settings.js';
import { handleStripeWebhook } from './webhook.js';

/**
 * POST /payments/stripe/webhook: the endpoint to register in Stripe's
 * dashboard. In its own scope so its JSON stays the raw bytes the signature covers.
 * What Stripe reports goes to `sink` (the payment requests' feature).
 */
export async function stripeWebhookRoute(scope: FastifyInstance, ctx: AppContext, sink: PaymentSink): Promise<void> {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  scope.post(
    '/payments/stripe/webhook',
    {
      schema: {
        tags: ['payments'],
        summary:
          "Stripe's signed webhook (checkout.session.* events); refused unless the Stripe-Signature header verifies",
        security: [],
        response: {
          200: { type: 'object', properties: { received: { type: 'boolean' }, outcome: { type: 'string' } } },
        },
      },
      config: { providerWebhook: true },
    },
    async (request) => {
      // Read per request, so a secret rotated with the CLI applies at once in every process.
      const settings = await loadStripeSettings(ctx);
      if (!settings) throw new ApiError(404, 'not_found');
      const raw = typeof request.body === 'string' ? request.body : '';
      const signature = request.headers['stripe-signature'];
      const outcome = await handleStripeWebhook(
        ctx,
        sink,
        settings.webhookSecret,
        raw,
        typeof signature === 'string' ? signature : undefined,
        request.ip,
      );
      return { received: true, outcome };
    },
  );
}
