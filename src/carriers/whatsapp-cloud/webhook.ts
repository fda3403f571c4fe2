import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { CarrierManager } from '../manager.js';
import { rawJsonBodies, refuse, sameText } from '../providers/webhooks.js';
import { WhatsappConnector } from './connector.js';
import { statusCode } from './mapping.js';
import { instanceConnectorName } from './instances.js';

/** What the webhooks use of the process's carriers: connectors by name, and where refusals go. */
type WebhookCarriers = Pick<
  CarrierManager,
  'ready' | 'connector' | 'instanceByPhoneNumber' | 'instanceAccount' | 'refusals'
>;

/** X-Hub-Signature-256 of a body: "sha256=" + HMAC-SHA256(app secret, raw body) in hex. */
export const hubSignature = (appSecret: string, body: string) =>
  `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;

const schema = (summary: string) => ({
  tags: ['providers'],
  summary,
  security: [],
  params: { type: 'object', properties: { name: { type: 'string' } } },
});

/**
 * The Cloud API's webhooks (set one as the app's callback URL): the
 * verification handshake (GET, hub.mode=subscribe with the verify token →
 * hub.challenge) and the signed POSTs
 * (https://developers.facebook.com/docs/graph-api/webhooks/getting-started,
 * payload: .../whatsapp/cloud-api/webhooks/components). One pair per
 * whatsapp-cloud connector, and one per chat-app instance bound to its own
 * number, each checked with its own verify token and app secret.
 */
export function whatsappWebhookRoutes(app: FastifyInstance, carriers: WebhookCarriers): void {
  webhookPair(app, carriers, '/carriers/whatsapp-cloud/:name/webhook', (name) => name, 'connector');
  webhookPair(app, carriers, '/chatapp/instances/:name/webhook', instanceConnectorName, 'instance');
}

function webhookPair(
  app: FastifyInstance,
  carriers: WebhookCarriers,
  path: string,
  connectorName: (param: string) => string,
  what: string,
): void {
  const connectorNamed = async (param: string) => {
    await carriers.ready();
    const c = carriers.connector(connectorName(param));
    return c instanceof WhatsappConnector ? c : null;
  };

  app.get<{ Params: { name: string }; Querystring: Record<string, string> }>(
    path,
    { schema: schema('WhatsApp Cloud API webhook verification') },
    async (request, reply) => {
      const c = await connectorNamed(request.params.name);
      if (!c)
        return refuse(
          carriers.refusals,
          request,
          connectorName(request.params.name),
          404,
          'provider_01',
          `verification for an unknown ${what}`,
        );
      const q = request.query;
      if (
        q['hub.mode'] !== 'subscribe' ||
        typeof q['hub.verify_token'] !== 'string' ||
        !sameText(q['hub.verify_token'], c.secrets.verify_token)
      ) {
        return refuse(carriers.refusals, request, c.name, 403, 'provider_03', 'verification with a wrong verify token');
      }
      return reply.type('text/plain').send(String(q['hub.challenge'] ?? ''));
    },
  );

  app.register(async (scope) => {
    rawJsonBodies(scope);
    const options = {
      schema: schema('WhatsApp Cloud API webhook: statuses and incoming messages'),
      config: { providerWebhook: true },
    };
    scope.post<{ Params: { name: string }; Body: unknown }>(path, options, async (request, reply) => {
      const c = await connectorNamed(request.params.name);
      if (!c)
        return refuse(
          carriers.refusals,
          request,
          connectorName(request.params.name),
          404,
          'provider_01',
          `webhook for an unknown ${what}`,
        );
      const raw = typeof request.body === 'string' ? request.body : '';
      const signature = request.headers['x-hub-signature-256'];
      if (typeof signature !== 'string' || !sameText(signature, hubSignature(c.secrets.app_secret, raw))) {
        return refuse(
          carriers.refusals,
          request,
          c.name,
          401,
          'provider_02',
          signature ? 'wrong X-Hub-Signature-256' : 'unsigned webhook',
        );
      }
      let payload: any;
      try {
        payload = JSON.parse(raw);
      } catch {
        return refuse(carriers.refusals, request, c.name, 400, 'provider_04', 'signed webhook that is not JSON');
      }
      await handlePayload(carriers, c, payload);
      return reply.code(200).send({ received: true });
    });
  });
}

/**
 * Whose a webhook's `value` is: the connector whose URL it came to, or, for
 * another number of the same Meta app (an app has one callback URL for all
 * its numbers), the bound instance of that number with the same app secret.
 */
function ownerOf(carriers: WebhookCarriers, c: WhatsappConnector, phoneNumberId: unknown): WhatsappConnector | null {
  if (phoneNumberId === undefined || String(phoneNumberId) === c.settings.phone_number_id) return c;
  const other = carriers.instanceByPhoneNumber(String(phoneNumberId));
  return other && sameText(other.secrets.app_secret, c.secrets.app_secret) ? other : null;
}

interface Status {
  id?: unknown;
  status?: unknown;
  timestamp?: unknown;
  errors?: Array<{ code?: unknown }>;
}
/** An incoming message; `context.id` names the message of ours it quotes (a reply). */
interface Incoming {
  from?: unknown;
  id?: unknown;
  timestamp?: unknown;
  type?: unknown;
  text?: { body?: unknown };
  context?: { id?: unknown };
  [k: string]: unknown;
}

const epochMs = (t: unknown) => (typeof t === 'string' && /^\d{1,12}$/.test(t) ? Number(t) * 1000 : Date.now());

/** What a customer sent, as text: its body, or for media the type and caption (the media itself stays with the provider). */
function incomingText(m: Incoming): string {
  if (m.type === 'text' && typeof m.text?.body === 'string') return m.text.body;
  const part =
    typeof m.type === 'string' ? (m[m.type] as { caption?: unknown; body?: unknown } | undefined) : undefined;
  const caption = typeof part?.caption === 'string' ? part.caption : typeof part?.body === 'string' ? part.body : '';
  return `[${String(m.type ?? 'unknown')}]${caption ? ` ${caption}` : ''}`;
}

async function handlePayload(carriers: WebhookCarriers, to: WhatsappConnector, payload: any): Promise<void> {
  const values = (Array.isArray(payload?.entry) ? payload.entry : [])
    .flatMap((e: any) => (Array.isArray(e?.changes) ? e.changes : []))
    .filter((ch: any) => ch?.field === 'messages')
    .map((ch: any) => ch.value ?? {});
  for (const value of values) {
    const c = ownerOf(carriers, to, value.metadata?.phone_number_id);
    // Another phone number of the same app that nobody here sends from.
    if (!c) continue;
    // Meta batches a few per POST: more than 1000 in one is not the provider, and is cut.
    const statuses: Status[] = Array.isArray(value.statuses) ? value.statuses.slice(0, 1000) : [];
    const receipts = statuses.flatMap((s) => {
      const errorCode = typeof s.errors?.[0]?.code === 'number' ? (s.errors[0].code as number) : undefined;
      const code = statusCode(String(s.status), errorCode);
      const carrierId = typeof s.id === 'string' ? s.id.slice(0, 200) : '';
      return carrierId === '' || code === null
        ? []
        : [
            {
              carrierId,
              code,
              at: epochMs(s.timestamp),
              read: s.status === 'read',
              stat: String(s.status),
              err: errorCode === undefined ? null : String(errorCode),
            },
          ];
    });
    c.stats.receipts += receipts.length;
    // A status may come before the send's answer recorded the message id: it waits for it.
    await c.sink.receipts(c.name, receipts);

    const messages: Incoming[] = Array.isArray(value.messages) ? value.messages.slice(0, 1000) : [];
    for (const m of messages) {
      if (typeof m.from !== 'string' || !/^\d{6,15}$/.test(m.from) || typeof m.id !== 'string') continue;
      // The Cloud API may deliver a webhook again: each incoming message id is taken once.
      if (!(await c.sink.firstSeen(c.name, m.id.slice(0, 200)))) continue;
      c.stats.replies++;
      const quoted = typeof m.context?.id === 'string' ? m.context.id.slice(0, 200) : undefined;
      const instanceAccount = carriers.instanceAccount(c.name);
      await c.sink.reply({
        carrier: c.name,
        source: m.from,
        destination: c.settings.phone_number_id,
        text: incomingText(m).slice(0, 4096),
        at: epochMs(m.timestamp),
        quoted,
        owners: instanceAccount === undefined ? [] : [instanceAccount],
      });
    }
  }
}
