/* Shared setup of the WhatsApp Cloud API connector suites (src/carriers/whatsapp-cloud/whatsapp*.test.ts). */
import { afterAll, beforeAll, expect } from 'vitest';
import { createInstance } from '../../src/features/chatapp/store.js';
import { eventually, startHarness, type EngineName, type Harness } from './harness.js';
import { startHttpServer } from './http-server.js';
import { routeToProvider } from './providers.js';
import { startWhatsappCloud } from './whatsapp-cloud.js';

export const SECRETS = { access_token: 'EAAG-test-token-123', app_secret: 'app-secret-abc', verify_token: 'verify-me' };

/**
 * A harness whose chat-app route goes to a Cloud API connector named 'wa' talking to a fake Graph API,
 * and a receiver for the accounts' webhooks; started before the suite, stopped after it.
 */
export function whatsappSuite(engine: EngineName) {
  const s = {} as {
    h: Harness;
    wa: Awaited<ReturnType<typeof startWhatsappCloud>>;
    hooks: Awaited<ReturnType<typeof startHttpServer>>;
  };
  beforeAll(async () => {
    s.h = await startHarness(engine, {
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
        DISPATCH_RETRY_MS: '10',
        CARRIER_POLL_MS: '100',
        PROVIDER_WEBHOOK_BODY_LIMIT_BYTES: '65536',
      },
    });
    s.wa = await startWhatsappCloud({
      accessToken: SECRETS.access_token,
      appSecret: SECRETS.app_secret,
      phoneNumberId: '106540352242922',
    });
    s.hooks = await startHttpServer(() => ({ status: 200, body: 'ok', type: 'text/plain' }));
    // The default chat-app route (the simulator) now goes to the Cloud API connector.
    await routeToProvider(s.h, {
      name: 'wa',
      type: 'whatsapp-cloud',
      channel: 'chatapp',
      options: { phoneNumberId: '106540352242922', graphUrl: s.wa.url, otpTemplate: 'codigo_verificacion' },
      secrets: SECRETS,
    });
  });
  afterAll(async () => {
    await s.h.close();
    await s.wa.stop();
    await s.hooks.stop();
  });

  const setup = async () => {
    const a = await s.h.createAccount(10);
    const instance = await createInstance(s.h.ctx.db.kysely, a.id);
    expect(
      (await s.h.post('/webhook/add', { url: `${s.hooks.url}/hook/${a.id}`, status: '1' }, a.apikey)).body.code,
    ).toBe('add_webhook_01');
    return { ...a, instance: instance.instance_id };
  };
  const message = (reference: string) =>
    s.h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  // Sent: the hand-off recorded (the connector names the carrier id on the message a moment before).
  const sent = (reference: string) =>
    eventually(async () => {
      const row = await message(reference);
      return row.stage >= 1 && row.carrier_id ? row : null;
    }, 40_000);
  const events = (accountId: number) =>
    s.hooks.seen
      .filter((r) => r.method === 'POST' && r.path === `/hook/${accountId}`)
      .map((r) => Object.fromEntries(new URLSearchParams(r.body)));
  const webhook = (body: string, signature?: string) =>
    s.h.request('POST', '/carriers/whatsapp-cloud/wa/webhook', {
      body,
      headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    });
  const statusPayload = (id: string, status: string, extra: Record<string, unknown> = {}) =>
    s.wa.payload({ statuses: [{ id, status, timestamp: '1700000000', recipient_id: '525512345678', ...extra }] });

  /**
   * A customer's message as Meta posts it; a reply quoting one of ours names it in `context`
   * (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples, "Text Messages" and "Reply").
   */
  const incomingMessage = (from: string, id: string, body: string, quoted?: string) =>
    s.wa.payload({
      contacts: [{ profile: { name: 'Ana' }, wa_id: from }],
      messages: [
        {
          ...(quoted ? { context: { from: '15550783881', id: quoted } } : {}),
          from,
          id,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'text',
          text: { body },
        },
      ],
    });
  const repliesTo = (number: string) =>
    s.h.ctx.db.kysely
      .selectFrom('replies')
      .select(['account_id', 'message_id', 'text'])
      .where('number', '=', number)
      .orderBy('id')
      .execute();

  return { suite: s, setup, message, sent, events, webhook, statusPayload, incomingMessage, repliesTo };
}
