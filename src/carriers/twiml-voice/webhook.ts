import type { FastifyInstance } from 'fastify';
import type { CarrierManager } from '../manager.js';
import { refuse, sameText } from '../providers/webhooks.js';
import { TwimlConnector, twilioSignature } from './connector.js';
import { callStatusCode } from './mapping.js';

/** What the webhooks use of the process's carriers: connectors by name, and where refusals go. */
type WebhookCarriers = Pick<CarrierManager, 'ready' | 'connector' | 'refusals'>;

/**
 * The status callback of a TwiML voice connector
 * (https://www.twilio.com/docs/voice/api/call-resource#statuscallback):
 * a form POST signed in X-Twilio-Signature
 * (https://www.twilio.com/docs/usage/security#validating-requests). The
 * signature is checked against the URL this service gave the provider
 * (PUBLIC_BASE_URL), not the Host header, so a proxy in front changes nothing.
 */
export function twimlWebhookRoutes(app: FastifyInstance, carriers: WebhookCarriers): void {
  app.post<{ Params: { name: string }; Body: Record<string, unknown> }>(
    '/carriers/twiml-voice/:name/status',
    {
      schema: {
        tags: ['providers'],
        summary: 'TwiML voice status callback',
        security: [],
        params: { type: 'object', properties: { name: { type: 'string' } } },
      },
      config: { providerWebhook: true },
    },
    async (request, reply) => {
      await carriers.ready();
      const c = carriers.connector(request.params.name);
      if (!(c instanceof TwimlConnector))
        return refuse(
          carriers.refusals,
          request,
          request.params.name,
          404,
          'provider_01',
          'status callback for an unknown connector',
        );
      const body = request.body && typeof request.body === 'object' ? request.body : {};
      const params = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)]));
      const signature = request.headers['x-twilio-signature'];
      if (
        typeof signature !== 'string' ||
        !sameText(signature, twilioSignature(c.secrets.auth_token, c.statusCallback, params))
      ) {
        return refuse(
          carriers.refusals,
          request,
          c.name,
          401,
          'provider_02',
          signature ? 'wrong X-Twilio-Signature' : 'unsigned status callback',
        );
      }
      const code = callStatusCode(params.CallStatus ?? '', params.ErrorCode);
      if (code !== null && params.CallSid) {
        c.stats.receipts++;
        // The callback may come before the create-call answer recorded the sid: it waits for it.
        await c.sink.receipts(c.name, [
          {
            carrierId: params.CallSid.slice(0, 200),
            code,
            at: Date.now(),
            stat: params.CallStatus ?? null,
            err: params.ErrorCode || null,
          },
        ]);
      }
      return reply.code(204).send();
    },
  );
}
